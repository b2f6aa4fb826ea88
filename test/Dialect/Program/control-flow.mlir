// RUN: scaly-opt %s | scaly-opt | FileCheck %s
//
// prog.if, prog.while, prog.extern and prog.call_extern round-trip.

// NONE-NOT: error
// CHECK-LABEL: prog.extern @ext : (f64, !prog.ptr<f64>) -> f64
// CHECK-LABEL: prog.proc @p(
// CHECK:         prog.if %{{.*}} {
// CHECK:           prog.call_extern @ext(%{{.*}}, %{{.*}}) : (f64, !prog.ptr<f64>) -> f64
// CHECK:         } else {
// CHECK:         prog.while {
// CHECK:           prog.condition %{{.*}}
// CHECK:         } do {
// CHECK:           prog.yield
prog.extern @ext : (f64, !prog.ptr<f64>) -> f64
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %v = prog.load %y[0] : !prog.ptr<f64> -> f64
  %t = arith.constant true
  prog.if %t {
    %r = prog.call_extern @ext(%v, %y) : (f64, !prog.ptr<f64>) -> f64
    prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  } else {
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
  }
  prog.while {
    %c = arith.constant false
    prog.condition %c
  } do {
    prog.yield
  }
  prog.return
}
