// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
//
// Element-aligned streaming stores in C: one SCALY_STREAM_STORE of all the
// values through the element-aligned vector type (double4, float8), which
// Clang splits into element-wide nontemporal stores. No alignment test.

// CHECK:       typedef double double4 __attribute__((vector_size(32), aligned(8), may_alias));
// CHECK:       #define SCALY_STREAM_STORE(address, ...) __builtin_nontemporal_store((__VA_ARGS__), (address))
// CHECK-LABEL: int s(
// CHECK-NOT:     uintptr_t
// CHECK:         SCALY_STREAM_STORE((double4*)(res[0] + 1), (double4){1.0, 1.0, 1.0, 1.0});
// CHECK-NEXT:    SCALY_STREAM_STORE((double2*)(res[0] + 5), (double2){1.0, 1.0});
prog.proc @s(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 7>, entry} {
  %c = arith.constant 1.0 : f64
  prog.store %c, %c, %c, %c to %y[1] {streaming, element_aligned} : f64, f64, f64, f64 into !prog.ptr<f64>
  prog.store %c, %c to %y[5] {streaming, element_aligned} : f64, f64 into !prog.ptr<f64>
  prog.return
}

// Floats: eight of them through float8, from a procedure other than the entry.
// CHECK-LABEL: static inline void t_raw(
// CHECK:         SCALY_STREAM_STORE((float8*)(y + 3), (float8){2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f});
prog.proc @t_raw(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 11>} {
  %c = arith.constant 2.5 : f32
  prog.store %c, %c, %c, %c, %c, %c, %c, %c to %y[3] {streaming, element_aligned} : f32, f32, f32, f32, f32, f32, f32, f32 into !prog.ptr<f32>
  prog.return
}
