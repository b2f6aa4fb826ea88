// RUN: scaly-opt %s | scaly-opt | FileCheck %s
//
// Upstream scf.if and scf.while inside a procedure, prog.extern and
// prog.call_extern round-trip.

// NONE-NOT: error
// CHECK-LABEL: prog.extern @ext : (f64, !prog.ptr<f64>) -> f64
// CHECK-LABEL: prog.proc @p(
// CHECK:         scf.if %{{.*}} {
// CHECK:           prog.call_extern @ext(%{{.*}}, %{{.*}}) : (f64, !prog.ptr<f64>) -> f64
// CHECK:         } else {
// CHECK:         scf.while : () -> () {
// CHECK:           scf.condition(%{{.*}})
// CHECK:         } do {
// CHECK:           scf.yield
prog.extern @ext : (f64, !prog.ptr<f64>) -> f64
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %v = prog.load %y[0] : !prog.ptr<f64> -> f64
  %t = arith.constant true
  scf.if %t {
    %r = prog.call_extern @ext(%v, %y) : (f64, !prog.ptr<f64>) -> f64
    prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  } else {
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
  }
  scf.while : () -> () {
    %c = arith.constant false
    scf.condition(%c)
  } do {
    scf.yield
  }
  prog.return
}
