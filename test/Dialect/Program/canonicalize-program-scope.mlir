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
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           %[[B:.*]] = prog.load
// CHECK:           scf.if %[[B]] {
// CHECK:             prog.store
// CHECK:         %[[R:.*]] = scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args
// CHECK:           arith.mulf
// CHECK:         prog.store %[[R]]
prog.proc @kept(%c: !prog.ptr<const i1>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["c", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  %one = arith.constant 1.0 : f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 2 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %b = prog.load %c[0] : !prog.ptr<const i1> -> i1
    scf.if %b {
      prog.store %one to %y[0] : f64 into !prog.ptr<f64>
    }
  }
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 3 : i64
  %st2 = arith.constant 1 : i64
  %r = scf.for %i = %lo2 to %hi2 step %st2 iter_args(%s = %one) -> (f64) : i64 {
    %m = arith.mulf %s, %s : f64
    scf.yield %m : f64
  }
  prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
