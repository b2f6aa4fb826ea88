// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
//
// prog.is_aligned and streaming stores in C: the alignment test on the
// address as uintptr_t; each 32 bytes of a streaming store one
// SCALY_STREAM_STORE of a vector through the naturally aligned type
// (double4_aligned), defined once as Clang's nontemporal store builtin or,
// for other compilers, a plain store.

// CHECK:       typedef double double4 __attribute__((vector_size(32), aligned(8), may_alias));
// CHECK-NEXT:  typedef double double4_aligned __attribute__((vector_size(32), may_alias));
// CHECK-NEXT:  typedef double double8 __attribute__((vector_size(64), aligned(8), may_alias));
// CHECK:       #if defined(__clang__)
// CHECK-NEXT:  #define SCALY_STREAM_STORE(address, ...) __builtin_nontemporal_store((__VA_ARGS__), (address))
// CHECK-NEXT:  #else
// CHECK-NEXT:  #define SCALY_STREAM_STORE(address, ...) (*(address) = (__VA_ARGS__))
// CHECK-NEXT:  #endif
// CHECK-LABEL: int s(
// CHECK:         if ((((uintptr_t)res[0]) & 63) == 0) {
// CHECK-NEXT:      SCALY_STREAM_STORE((double4_aligned*)res[0], (double4){1.0, 1.0, 1.0, 1.0});
// CHECK-NEXT:      SCALY_STREAM_STORE((double4_aligned*)(res[0] + 4), (double4){1.0, 1.0, 1.0, 1.0});
// CHECK-NEXT:    } else {
// CHECK-NEXT:      *(double8*)(res[0]) = (double8){1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};
// CHECK-NEXT:    }
prog.proc @s(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 8>, entry} {
  %c = arith.constant 1.0 : f64
  %ok = prog.is_aligned %y, 64 : !prog.ptr<f64>
  scf.if %ok {
    prog.store %c, %c, %c, %c, %c, %c, %c, %c to %y[0] {streaming} : f64, f64, f64, f64, f64, f64, f64, f64 into !prog.ptr<f64>
  } else {
    prog.store %c, %c, %c, %c, %c, %c, %c, %c to %y[0] : f64, f64, f64, f64, f64, f64, f64, f64 into !prog.ptr<f64>
  }
  prog.return
}
