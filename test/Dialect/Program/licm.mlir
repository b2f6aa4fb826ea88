// RUN: scaly-opt %s -loop-invariant-code-motion | FileCheck %s
//
// scf.for is a LoopLikeOpInterface: upstream loop-invariant-code-motion
// hoists the pure arithmetic that does not depend on the counter or on what
// the loop writes (loads stay: they read memory the loop may write).

// CHECK-LABEL: prog.proc @scale(
// CHECK:         %[[A:.*]] = prog.load %{{.*}}[0]
// CHECK:         %[[F:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK-NEXT:    %[[G:.*]] = math.sin %[[F]]
// CHECK-NEXT:    scf.for %[[I:[^ ]*]] = %c0_i64 to %c8_i64 step %c1_i64 : i64 {
// CHECK-NEXT:      %[[P:[^ ]*]] = prog.offset %{{[^ ]*}}[%[[I]]]
// CHECK-NEXT:      %[[V:[^ ]*]] = prog.load %[[P]][0]
// CHECK-NEXT:      %[[R:[^ ]*]] = arith.mulf %[[V]], %[[G]]
// CHECK:           prog.store %[[R]]
prog.proc @scale(%x: !prog.ptr<const f64>, %a: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "a", "y", "w"], input_sizes = array<i64: 8, 1>, output_sizes = array<i64: 8>, entry} {
  %av = prog.load %a[0] : !prog.ptr<const f64> -> f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 8 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %f = arith.mulf %av, %av : f64
    %g = math.sin %f : f64
    %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
    %r = arith.mulf %v, %g : f64
    %q = prog.offset %y[%i] : !prog.ptr<f64> -> !prog.ptr<f64>
    prog.store %r to %q[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}
