// RUN: scaly-opt %s --split-input-file | scaly-opt --split-input-file | FileCheck %s --check-prefix=ROUND
// RUN: scaly-opt %s --scaly-simplify --split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: scaly-opt %s --scaly-differentiate --split-input-file | FileCheck %s --check-prefix=DIFF
//
// expr.scatter: printed and parsed back; folded when it places every value
// where it is or places zeros; differentiated as a linear op (forward: a
// scatter of the tangent; reverse: a gather of the cotangent).

// ROUND-LABEL: expr.func @diag(
// ROUND:         expr.scatter %{{.*}} [0, 4, 8] : tensor<3xf64> to tensor<3x3xf64>
// FOLD-LABEL:  expr.func @diag(
// FOLD:          expr.scatter
expr.func @diag(%v: tensor<3xf64>) -> tensor<3x3xf64> attributes {arg_names = ["v"], res_names = ["d"], entry} {
  %d = expr.scatter %v [0, 4, 8] : tensor<3xf64> to tensor<3x3xf64>
  expr.return %d : tensor<3x3xf64>
}

// -----

// FOLD-LABEL: expr.func @same(
// FOLD-NOT:     expr.scatter
// FOLD:         expr.return %arg0
expr.func @same(%v: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["v"], res_names = ["d"], entry} {
  %d = expr.scatter %v [0, 1, 2, 3] : tensor<4xf64> to tensor<4xf64>
  expr.return %d : tensor<4xf64>
}

// -----

// Zeros placed among zeros: one splat constant, however large.
// FOLD-LABEL: expr.func @zeros(
// FOLD-NOT:     expr.scatter
// FOLD:         expr.constant dense<0.000000e+00> : tensor<1000x1000xf64>
expr.func @zeros(%x: tensor<f64>) -> tensor<1000x1000xf64> attributes {arg_names = ["x"], res_names = ["d"], entry} {
  %z = expr.constant dense<0.0> : tensor<2xf64>
  %d = expr.scatter %z [5, 999999] : tensor<2xf64> to tensor<1000x1000xf64>
  expr.return %d : tensor<1000x1000xf64>
}

// -----

// Negative zeros keep their sign at their positions: not folded.
// FOLD-LABEL: expr.func @negative_zeros(
// FOLD:         expr.scatter
expr.func @negative_zeros(%x: tensor<f64>) -> tensor<2x2xf64> attributes {arg_names = ["x"], res_names = ["d"], entry} {
  %z = expr.constant dense<-0.0> : tensor<2xf64>
  %d = expr.scatter %z [0, 3] : tensor<2xf64> to tensor<2x2xf64>
  expr.return %d : tensor<2x2xf64>
}

// -----

// DIFF-LABEL: expr.func @place_vjp_1_1(
// DIFF-SAME:    %[[V:[^:]*]]: tensor<3xf64>, %[[W:[^:]*]]: tensor<3x3xf64>)
// DIFF:         %[[G:.*]] = expr.gather %[[W]] [7, 0, 4] : tensor<3x3xf64> to tensor<3xf64>
// DIFF:         %[[C:.*]] = expr.math{{ +}}cos %[[V]]
// DIFF:         %[[DV:.*]] = expr.mul %[[G]], %[[C]]
// DIFF:         expr.return %[[DV]]
// DIFF-LABEL: expr.func @place_jvp_1(
// DIFF-SAME:    %[[V:[^:]*]]: tensor<3xf64>, %[[T:[^:]*]]: tensor<3xf64>)
// DIFF:         %[[S:.*]] = expr.math{{ +}}cos %[[V]]
// DIFF:         %[[DS:.*]] = expr.mul %[[T]], %[[S]]
// DIFF:         %[[D:.*]] = expr.scatter %[[DS]] [7, 0, 4] : tensor<3xf64> to tensor<3x3xf64>
// DIFF:         expr.return %[[D]]
expr.func @place(%v: tensor<3xf64>) -> tensor<3x3xf64> attributes {arg_names = ["v"], res_names = ["d"]} {
  %s = expr.math sin %v : tensor<3xf64>
  %d = expr.scatter %s [7, 0, 4] : tensor<3xf64> to tensor<3x3xf64>
  expr.return %d : tensor<3x3xf64>
}
expr.func @main(%v: tensor<3xf64>, %t: tensor<3xf64>, %w: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>) attributes {arg_names = ["v", "t", "w"], res_names = ["jt", "wj"], entry} {
  %jt = expr.jvp @place(%v, %t) wrt [true] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3x3xf64>
  %wj = expr.vjp @place(%v, %w) wrt [true] of [true] : (tensor<3xf64>, tensor<3x3xf64>) -> tensor<3xf64>
  expr.return %jt, %wj : tensor<3x3xf64>, tensor<3xf64>
}
