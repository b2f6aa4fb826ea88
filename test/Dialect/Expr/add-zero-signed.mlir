// RUN: scaly-opt %s --scaly-simplify | FileCheck %s
//
// Regression test (bug, low severity: x + 0.0 and x - (-0.0) fold to x).
// AddOp::fold returns the other operand when either operand is a splat
// comparing equal to 0.0, which includes +0.0; SubOp::fold does the same for
// a -0.0 right operand. In IEEE arithmetic (the generated C is built
// without -ffast-math, and NumPy agrees) (-0.0) + (+0.0) = +0.0 and
// (-0.0) - (-0.0) = +0.0, so these folds turn a +0.0 result into -0.0 for
// x = -0.0 (visible through 1/x, atan2, copysign, signbit). Only x + (-0.0)
// and x - (+0.0) are identities; MLIR's arith.addf/subf folders make the
// same distinction.

// CHECK-LABEL: expr.func @plus_positive_zero(
// CHECK:         expr.add
// CHECK-LABEL: expr.func @minus_negative_zero(
// CHECK:         expr.sub
// CHECK-LABEL: expr.func @plus_negative_zero(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<f64>
// CHECK-NOT:     expr.add
// CHECK:         expr.return %[[X]]
expr.func @plus_positive_zero(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %z = expr.constant dense<0.0> : tensor<f64>
  %0 = expr.add %x, %z : tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @minus_negative_zero(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %z = expr.constant dense<-0.0> : tensor<f64>
  %0 = expr.sub %x, %z : tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @plus_negative_zero(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %z = expr.constant dense<-0.0> : tensor<f64>
  %0 = expr.add %x, %z : tensor<f64>
  expr.return %0 : tensor<f64>
}
