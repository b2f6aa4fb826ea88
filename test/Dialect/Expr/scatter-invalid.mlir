// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier errors of expr.scatter: one position per value, each within the
// result, none twice; element types match.

expr.func @f(%v: tensor<2xf64>) -> tensor<2x2xf64> attributes {arg_names = ["v"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.scatter' op position 4 is outside the 4 elements of (2, 2)}}
  %0 = expr.scatter %v [0, 4] : tensor<2xf64> to tensor<2x2xf64>
  expr.return %0 : tensor<2x2xf64>
}

// -----

expr.func @f(%v: tensor<2xf64>) -> tensor<2x2xf64> attributes {arg_names = ["v"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.scatter' op position -1 is outside the 4 elements of (2, 2)}}
  %0 = expr.scatter %v [-1, 0] : tensor<2xf64> to tensor<2x2xf64>
  expr.return %0 : tensor<2x2xf64>
}

// -----

expr.func @f(%v: tensor<3xf64>) -> tensor<2x2xf64> attributes {arg_names = ["v"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.scatter' op position 3 is given twice (each element of the result takes at most one value)}}
  %0 = expr.scatter %v [3, 0, 3] : tensor<3xf64> to tensor<2x2xf64>
  expr.return %0 : tensor<2x2xf64>
}

// -----

expr.func @f(%v: tensor<3xf64>) -> tensor<2x2xf64> attributes {arg_names = ["v"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.scatter' op 2 positions for 3 values}}
  %0 = expr.scatter %v [0, 3] : tensor<3xf64> to tensor<2x2xf64>
  expr.return %0 : tensor<2x2xf64>
}

// -----

expr.func @f(%v: tensor<2xf64>) -> tensor<2x2xf32> attributes {arg_names = ["v"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.scatter' op failed to verify that all of {values, result} have same element type}}
  %0 = expr.scatter %v [0, 3] : tensor<2xf64> to tensor<2x2xf32>
  expr.return %0 : tensor<2x2xf32>
}
