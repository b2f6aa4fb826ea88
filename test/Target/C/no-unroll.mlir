// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// An innermost loop, whatever its trip count, is printed after the line
// SCALY_NO_UNROLL, a macro the module defines once: Clang's loop pragma
// `unroll(disable)`, nothing under other compilers. A loop holding another
// loop gets no pragma (the compiler may unroll it).

// CHECK:       #if defined(__clang__)
// CHECK-NEXT:  #define SCALY_NO_UNROLL _Pragma("clang loop unroll(disable)")
// CHECK-NEXT:  #else
// CHECK-NEXT:  #define SCALY_NO_UNROLL
// CHECK-NEXT:  #endif
// CHECK-LABEL: int loops(
// CHECK:         SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long i = 0; i < 64; ++i) {
// CHECK-NOT:     SCALY_NO_UNROLL
// CHECK:         for (long long o = 0; o < 100; ++o) {
// CHECK-NEXT:      SCALY_NO_UNROLL
// CHECK-NEXT:      for (long long j = 0; j < 200; j += 2) {
// CHECK:         }
// CHECK-NEXT:    }
// CHECK-NEXT:    SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long s = 0; s < 3; ++s) {
prog.proc @loops(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 200>, output_sizes = array<i64: 200>} {
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 64 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %xi = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %yi = prog.offset %y[%i] : !prog.ptr<f64> -> !prog.ptr<f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> f64
    prog.store %v to %yi[0] : f64 into !prog.ptr<f64>
  } {scaly.name = "i"}
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 100 : i64
  %st2 = arith.constant 1 : i64
  scf.for %o = %lo2 to %hi2 step %st2 : i64 {
    %lo3 = arith.constant 0 : i64
    %hi3 = arith.constant 200 : i64
    %st3 = arith.constant 2 : i64
    scf.for %j = %lo3 to %hi3 step %st3 : i64 {
      %xj = prog.offset %x[%j] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %yj = prog.offset %y[%j] : !prog.ptr<f64> -> !prog.ptr<f64>
      %v = prog.load %xj[0] : !prog.ptr<const f64> -> f64
      %d = arith.addf %v, %v : f64
      prog.store %d to %yj[0] : f64 into !prog.ptr<f64>
    } {scaly.name = "j"}
  } {scaly.name = "o"}
  %lo4 = arith.constant 0 : i64
  %hi4 = arith.constant 3 : i64
  %st4 = arith.constant 1 : i64
  scf.for %s = %lo4 to %hi4 step %st4 : i64 {
    %xs = prog.offset %x[%s] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %ys = prog.offset %y[%s] : !prog.ptr<f64> -> !prog.ptr<f64>
    %v = prog.load %xs[0] : !prog.ptr<const f64> -> f64
    prog.store %v to %ys[0] : f64 into !prog.ptr<f64>
  } {scaly.name = "s"}
  prog.return
}
