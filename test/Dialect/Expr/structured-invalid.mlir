// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier errors of the structured expr ops, from the shared shape rules:
// transpose permutations, slices outside the operand, reduce axes that are
// unsorted, repeated or out of range, bool reductions, matmul inner and batch
// mismatches, concat shapes off the joined axis and incompatible broadcasts.
// Ops that infer their result type (reduce, matmul) report a second error,
// "failed to infer returned types", after the shape rule's message.

expr.func @f(%x: tensor<2x3x4xf64>) -> tensor<4x3x2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.transpose' op transpose: axes must be a permutation of 0..3-1 with each axis once}}
  %0 = expr.transpose %x [2, 1, 2] : tensor<2x3x4xf64> to tensor<4x3x2xf64>
  expr.return %0 : tensor<4x3x2xf64>
}

// -----

expr.func @f(%x: tensor<2x3xf64>) -> tensor<3x2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.transpose' op transpose: permutation of 3 axes for shape (2, 3) (expected 2)}}
  %0 = expr.transpose %x [1, 0, 2] : tensor<2x3xf64> to tensor<3x2xf64>
  expr.return %0 : tensor<3x2xf64>
}

// -----

expr.func @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.transpose' op result shape must be (3, 2)}}
  %0 = expr.transpose %x [1, 0] : tensor<2x3xf64> to tensor<2x3xf64>
  expr.return %0 : tensor<2x3xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.slice' op slice: axis 0 picks indices 2..4 outside 0..3}}
  %0 = expr.slice %x starts [2] steps [1] : tensor<4xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<4x5xf64>) -> tensor<2x3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // Negative steps walk down from the start: 1, -1 leaves the axis.
  // expected-error @+1 {{'expr.slice' op slice: axis 0 picks indices 1..-1 outside 0..3}}
  %0 = expr.slice %x starts [1, 0] steps [-2, 1] : tensor<4x5xf64> to tensor<2x3xf64>
  expr.return %0 : tensor<2x3xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.slice' op slice: axis 0 has step 0 or a negative size}}
  %0 = expr.slice %x starts [0] steps [0] : tensor<4xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<4x5xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.slice' op slice: needs one start, step and size per axis of (4, 5)}}
  %0 = expr.slice %x starts [0] steps [1] : tensor<4x5xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2x3x4xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+2 {{reduce: axes must be sorted, distinct and within 0..2}}
  // expected-error @+1 {{'expr.reduce' op failed to infer returned types}}
  %0 = expr.reduce sum %x axes [2, 0] : tensor<2x3x4xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<2x3xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+2 {{reduce: axes must be sorted, distinct and within 0..1}}
  // expected-error @+1 {{'expr.reduce' op failed to infer returned types}}
  %0 = expr.reduce max %x axes [2] : tensor<2x3xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2x3xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+2 {{reduce: axes must be sorted, distinct and within 0..1}}
  // expected-error @+1 {{'expr.reduce' op failed to infer returned types}}
  %0 = expr.reduce min %x axes [1, 1] : tensor<2x3xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<2x3xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+2 {{'expr.reduce' op inferred type(s) 'tensor<3xf64>' are incompatible with return type(s) of operation 'tensor<2xf64>'}}
  // expected-error @+1 {{'expr.reduce' op failed to infer returned types}}
  %0 = expr.reduce sum %x axes [0] : tensor<2x3xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<4xi1>) -> tensor<i1> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reduce' op cannot reduce bool arrays: cast them to a number first}}
  %0 = expr.reduce sum %x axes [0] : tensor<4xi1> to tensor<i1>
  expr.return %0 : tensor<i1>
}

// -----

expr.func @f(%a: tensor<2x3xf64>, %b: tensor<4x5xf64>) -> tensor<2x5xf64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+2 {{matmul: inner dimensions differ: (2, 3) @ (4, 5)}}
  // expected-error @+1 {{'expr.matmul' op failed to infer returned types}}
  %0 = expr.matmul %a, %b : tensor<2x3xf64>, tensor<4x5xf64> to tensor<2x5xf64>
  expr.return %0 : tensor<2x5xf64>
}

// -----

expr.func @f(%a: tensor<2x2x3xf64>, %b: tensor<3x3x5xf64>) -> tensor<2x2x5xf64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+2 {{matmul: batch axes of (2, 2, 3) and (3, 3, 5) differ}}
  // expected-error @+1 {{'expr.matmul' op failed to infer returned types}}
  %0 = expr.matmul %a, %b : tensor<2x2x3xf64>, tensor<3x3x5xf64> to tensor<2x2x5xf64>
  expr.return %0 : tensor<2x2x5xf64>
}

// -----

expr.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<f64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+2 {{matmul: operands need equal rank >= 2, got (3,) and (3,)}}
  // expected-error @+1 {{'expr.matmul' op failed to infer returned types}}
  %0 = expr.matmul %a, %b : tensor<3xf64>, tensor<3xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%a: tensor<2x3xf64>, %b: tensor<2x4xf64>) -> tensor<4x3xf64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.concat' op concat: shape (2, 4) does not match (2, 3) except along axis 0}}
  %0 = expr.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf64>, tensor<2x4xf64>) -> tensor<4x3xf64>
  expr.return %0 : tensor<4x3xf64>
}

// -----

expr.func @f(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x6xf64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.concat' op concat: axis 2 is out of range for shape (2, 3)}}
  %0 = expr.concat %a, %b {axis = 2 : i64} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x6xf64>
  expr.return %0 : tensor<2x6xf64>
}

// -----

expr.func @f(%a: tensor<2x3xf64>, %b: tensor<2x3xf64>) -> tensor<4x3xf64> attributes {arg_names = ["a", "b"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.concat' op result shape must be (2, 6)}}
  %0 = expr.concat %a, %b {axis = 1 : i64} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<4x3xf64>
  expr.return %0 : tensor<4x3xf64>
}

// -----

expr.func @f(%x: tensor<3x1xf64>) -> tensor<2x4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.broadcast' op cannot broadcast 'tensor<3x1xf64>' to 'tensor<2x4xf64>'}}
  %0 = expr.broadcast %x : tensor<3x1xf64> to tensor<2x4xf64>
  expr.return %0 : tensor<2x4xf64>
}

// -----

expr.func @f(%x: tensor<2x1x4xf64>) -> tensor<3x4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // A broadcast never drops axes.
  // expected-error @+1 {{'expr.broadcast' op cannot broadcast 'tensor<2x1x4xf64>' to 'tensor<3x4xf64>'}}
  %0 = expr.broadcast %x : tensor<2x1x4xf64> to tensor<3x4xf64>
  expr.return %0 : tensor<3x4xf64>
}

// -----

expr.func @f(%x: tensor<0x3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // A maximum over an empty axis has no value (NumPy refuses it too).
  // expected-error @+1 {{'expr.reduce' op has no identity over the zero-size axis 0}}
  %0 = expr.reduce max %x axes [0] : tensor<0x3xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<0x3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // A sum over an empty axis is 0: no error.
  %0 = expr.reduce sum %x axes [0] : tensor<0x3xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}
