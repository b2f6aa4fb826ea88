// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// Conditionals, while loops and external C functions print as plain C: a
// declaration for each prog.extern (or an #include of its header), if/else
// blocks for scf.if, and for (;;) { ...; if (!c) break; ... } for scf.while.

// CHECK:      #include "solver.h"
// CHECK:      double scaly_test_clip(double, const double*);
// CHECK:      int f(
// CHECK:        double v0 = arg[0][0];
// CHECK-NEXT:   if (v0 > 0.0) {
// CHECK-NEXT:     res[0][0] = scaly_test_clip(v0, arg[0]);
// CHECK-NEXT:   } else {
// CHECK-NEXT:     res[0][0] = 0.0;
// CHECK-NEXT:   }
// CHECK-NEXT:   for (;;) {
// CHECK-NEXT:     if (!(res[0][0] > 1.0)) {
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-NEXT:     res[0][0] = res[0][0] * 0.5;
// CHECK-NEXT:   }
// CHECK-NEXT:   solver_step(res[0]);
// CHECK-NEXT:   return SCALY_SUCCESS;
prog.extern @scaly_test_clip : (f64, !prog.ptr<const f64>) -> f64
prog.extern @solver_step : (!prog.ptr<f64>) -> () {header = "solver.h"}
prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %pos = arith.cmpf ogt, %v, %zero : f64
  scf.if %pos {
    %c = prog.call_extern @scaly_test_clip(%v, %x) : (f64, !prog.ptr<const f64>) -> f64
    prog.store %c to %y[0] : f64 into !prog.ptr<f64>
  } else {
    prog.store %zero to %y[0] : f64 into !prog.ptr<f64>
  }
  scf.while : () -> () {
    %cur = prog.load %y[0] : !prog.ptr<f64> -> f64
    %big = arith.cmpf ogt, %cur, %one : f64
    scf.condition(%big)
  } do {
    %cur = prog.load %y[0] : !prog.ptr<f64> -> f64
    %next = arith.mulf %cur, %half : f64
    prog.store %next to %y[0] : f64 into !prog.ptr<f64>
    scf.yield
  }
  prog.call_extern @solver_step(%y) : (!prog.ptr<f64>) -> ()
  prog.return
}
