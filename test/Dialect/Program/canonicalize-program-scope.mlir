// RUN: scaly-opt %s --scaly-canonicalize-program | FileCheck %s
//
// What scaly-canonicalize-program leaves alone: everything outside a
// prog.proc (here an expr.func whose x + (-0.0) canonicalize would fold),
// a loop of two iterations, a branch on a value that is not constant, a
// loop whose body writes and a loop whose result is used.

// CHECK-LABEL: expr.func @outside(
// CHECK-NEXT:    expr.constant
// CHECK-NEXT:    expr.add
expr.func @outside(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %z = expr.constant dense<-0.0> : tensor<f64>
  %0 = expr.add %x, %z : tensor<f64>
  expr.return %0 : tensor<f64>
}

// CHECK-LABEL: prog.proc @kept(
// CHECK:         prog.for %{{.*}} = 0 to 2 {
// CHECK:           %[[B:.*]] = prog.load
// CHECK:           scf.if %[[B]] {
// CHECK:             prog.store
// CHECK:         %[[R:.*]] = prog.for %{{.*}} = 0 to 3 iter_args
// CHECK:           arith.mulf
// CHECK:         prog.store %[[R]]
prog.proc @kept(%c: !prog.ptr<const i1>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["c", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  %one = arith.constant 1.0 : f64
  prog.for %i = 0 to 2 {
    %b = prog.load %c[0] : !prog.ptr<const i1> -> i1
    scf.if %b {
      prog.store %one to %y[0] : f64 into !prog.ptr<f64>
    }
  }
  %r = prog.for %i = 0 to 3 iter_args(%s = %one) -> (f64) {
    %m = arith.mulf %s, %s : f64
    prog.yield %m : f64
  }
  prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
