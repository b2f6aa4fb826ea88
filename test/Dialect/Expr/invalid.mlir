// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier errors of the expression dialect: gather/reshape/concat/broadcast
// shape rules, call and map signatures, loop bodies, return types, func names
// and the elementwise shape rules of cmp/select/cast/sum.

expr.func @f(%x: tensor<4xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.gather' op index 4 is outside the operand's 4 elements}}
  %0 = expr.gather %x [4] : tensor<4xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{index -1 is outside the operand's 4 elements}}
  %0 = expr.gather %x [-1] : tensor<4xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.gather' op has 1 indices for a result of 2 elements}}
  %0 = expr.gather %x [0] : tensor<4xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<f32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.gather' op failed to verify that all of {operand, result} have same element type}}
  %0 = expr.gather %x [1] : tensor<4xf64> to tensor<f32>
  expr.return %0 : tensor<f32>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reshape' op cannot reshape 4 elements to 'tensor<3xf64>'}}
  %0 = expr.reshape %x : tensor<4xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<2x2xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reshape' op failed to verify that all of {operand, result} have same element type}}
  %0 = expr.reshape %x : tensor<4xf64> to tensor<2x2xf32>
  expr.return %0 : tensor<2x2xf32>
}

// -----

expr.func @f(%x: tensor<2xf64>, %s: tensor<f64>) -> tensor<4xf64> attributes {arg_names = ["x", "s"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.concat' op operands hold 3 elements but the result 'tensor<4xf64>' holds 4}}
  %0 = expr.concat %x, %s : (tensor<2xf64>, tensor<f64>) -> tensor<4xf64>
  expr.return %0 : tensor<4xf64>
}

// -----

expr.func @f(%x: tensor<2xf64>, %s: tensor<f32>) -> tensor<3xf64> attributes {arg_names = ["x", "s"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.concat' op operand 'tensor<f32>' has another element type than 'tensor<3xf64>'}}
  %0 = expr.concat %x, %s : (tensor<2xf64>, tensor<f32>) -> tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<2x3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.broadcast' op cannot broadcast 'tensor<2xf64>' to 'tensor<2x3xf64>'}}
  %0 = expr.broadcast %x : tensor<2xf64> to tensor<2x3xf64>
  expr.return %0 : tensor<2x3xf64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<2xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.broadcast' op failed to verify that all of {operand, result} have same element type}}
  %0 = expr.broadcast %x : tensor<f64> to tensor<2xf32>
  expr.return %0 : tensor<2xf32>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.call' op calls 'nowhere', which is not an expr.func}}
  %0 = expr.call @nowhere(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.call' op operand types do not match the inputs of @g}}
  %0 = expr.call @g(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.call' op operand types do not match the inputs of @g}}
  %0 = expr.call @g(%x, %x) : (tensor<2xf64>, tensor<2xf64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.call' op result types do not match the outputs of @g}}
  %0 = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op operand #0 must be 'tensor<2x2xf64>', got 'tensor<3x2xf64>'}}
  %0 = expr.map @g(%x) count 2 : (tensor<3x2xf64>) -> tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op result type 'tensor<2xf64>' should be 'tensor<3xf64>'}}
  %0 = expr.map @g(%x) count 3 : (tensor<3x2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op count must be at least 1, got 0}}
  %0 = expr.map @g(%x) count 0 : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op has 2 operands but @g takes 1}}
  %0 = expr.map @g(%x, %x) count 3 : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op calls 'nowhere', which is not an expr.func}}
  %0 = expr.map @nowhere(%x) count 1 : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.loop' op body argument 'tensor<3xf64>' is not a slice of 'tensor<3x2xf64>'}}
  %0 = expr.loop 3 (%x) : (tensor<3x2xf64>) -> tensor<3xf64> {
  ^bb0(%r: tensor<3xf64>):
    %s = expr.sum %r : tensor<3xf64> to tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.loop' op body takes 2 slices but the loop has 1 operands}}
  %0 = expr.loop 3 (%x) : (tensor<3x2xf64>) -> tensor<3xf64> {
  ^bb0(%r: tensor<2xf64>, %q: tensor<2xf64>):
    %s = expr.sum %r : tensor<2xf64> to tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.loop' op operand of type 'tensor<3x2xf64>' has no leading axis of length 2}}
  %0 = expr.loop 2 (%x) : (tensor<3x2xf64>) -> tensor<3xf64> {
  ^bb0(%r: tensor<2xf64>):
    %s = expr.sum %r : tensor<2xf64> to tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.loop' op operand of type 'tensor<f64>' has no leading axis of length 3}}
  %0 = expr.loop 3 (%x) : (tensor<f64>) -> tensor<f64> {
  ^bb0(%r: tensor<f64>):
    expr.yield %r : tensor<f64>
  }
  expr.return %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.loop' op yielded slice 'tensor<f64>' does not stack to 'tensor<3x2xf64>'}}
  %0 = expr.loop 3 (%x) : (tensor<3x2xf64>) -> tensor<3x2xf64> {
  ^bb0(%r: tensor<2xf64>):
    %s = expr.sum %r : tensor<2xf64> to tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %0 : tensor<3x2xf64>
}

// -----

expr.func @f(%x: tensor<3x2xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  // expected-error @+1 {{'expr.loop' op yields 1 values for 2 results}}
  %0, %1 = expr.loop 3 (%x) : (tensor<3x2xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  ^bb0(%r: tensor<2xf64>):
    %s = expr.sum %r : tensor<2xf64> to tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %0, %1 : tensor<3xf64>, tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.constant dense<1.0> : tensor<f64>
  // expected-error @+1 {{'expr.yield' op expects parent op to be one of 'expr.loop, expr.fused'}}
  expr.yield %0 : tensor<f64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.return' op returns types that differ from the signature of @f}}
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  // expected-error @+1 {{'expr.return' op returns types that differ from the signature of @f}}
  expr.return %x : tensor<2xf64>
}

// -----

// expected-error @+1 {{'expr.func' op has 1 inputs but 2 arg_names}}
expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x", "extra"], res_names = ["y"]} {
  expr.return %x : tensor<2xf64>
}

// -----

// expected-error @+1 {{'expr.func' op has 1 outputs but 0 res_names}}
expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = []} {
  expr.return %x : tensor<2xf64>
}

// -----

// expected-error @+1 {{'expr.func' op inputs must be statically shaped tensors, got 'tensor<?xf64>'}}
expr.func @f(%x: tensor<?xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.constant dense<1.0> : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2xf16>) attributes {arg_names = ["x"], res_names = []} {
  // expected-error @+1 {{'expr.neg' op operand #0 must be statically shaped tensor of 64-bit float or 32-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values whose element count fits in 64 bits, but got 'tensor<2xf16>'}}
  %0 = expr.neg %x : tensor<2xf16>
  expr.return
}

// -----

expr.func @f(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<3xi1> attributes {arg_names = ["x", "y"], res_names = ["c"]} {
  // expected-error @+1 {{'expr.cmp' op all non-scalar operands/results must have the same shape}}
  %0 = expr.cmp lt %x, %y : tensor<2xf64> -> tensor<3xi1>
  expr.return %0 : tensor<3xi1>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.cmp' op result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<2xf64>'}}
  %0 = expr.cmp lt %x, %x : tensor<2xf64> -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%c: tensor<3xi1>, %y: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c", "y"], res_names = ["r"]} {
  // expected-error @+1 {{'expr.select' op all non-scalar operands/results must have the same shape}}
  %0 = expr.select %c, %y, %y : tensor<3xi1>, tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2xi32>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.cast' op all non-scalar operands/results must have the same shape}}
  %0 = expr.cast %x : tensor<2xi32> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.sum' op result must be a scalar of the operand's element type}}
  %0 = expr.sum %x : tensor<2xf64> to tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<f32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.sum' op result must be a scalar of the operand's element type}}
  %0 = expr.sum %x : tensor<2xf64> to tensor<f32>
  expr.return %0 : tensor<f32>
}

// -----

expr.func @f(%x: tensor<2xi32>) -> tensor<2xi32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.math' op operand #0 must be statically shaped tensor of 64-bit float or 32-bit float values, but got 'tensor<2xi32>'}}
  %0 = expr.math sin %x : tensor<2xi32>
  expr.return %0 : tensor<2xi32>
}

// -----

expr.func @f(%x: tensor<2xi64>) -> tensor<2xi64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.math2' op operand #0 must be statically shaped tensor of 64-bit float or 32-bit float values, but got 'tensor<2xi64>'}}
  %0 = expr.math2 pow %x, %x : tensor<2xi64>
  expr.return %0 : tensor<2xi64>
}

// -----

expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+2 {{expected ::scaly::expr::MathFn to be one of: sin, cos, tan}}
  // expected-error @+1 {{failed to parse Expr_MathFnAttr parameter}}
  %0 = expr.math sine %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// expr.fused: a body of elementwise ops, views, concatenations and gathers
// only, no arguments, yielding one value of the result's type.
expr.func @f(%x: tensor<4x2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.fused' op body may hold only elementwise ops, views, concatenations and gathers, found 'expr.reduce'}}
  %0 = expr.fused : tensor<4xf64> {
    %r = expr.reduce sum %x axes [1] : tensor<4x2xf64> to tensor<4xf64>
    expr.yield %r : tensor<4xf64>
  }
  expr.return %0 : tensor<4xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.fused' op body must yield one value of the result's type 'tensor<4xf64>'}}
  %0 = expr.fused : tensor<4xf64> {
    %r = expr.reshape %x : tensor<4xf64> to tensor<2x2xf64>
    expr.yield %r : tensor<2x2xf64>
  }
  expr.return %0 : tensor<4xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.fused' op body takes no arguments (it reads outer values directly)}}
  %0 = expr.fused : tensor<4xf64> {
  ^bb0(%a: tensor<4xf64>):
    %n = expr.neg %a : tensor<4xf64>
    expr.yield %n : tensor<4xf64>
  }
  expr.return %0 : tensor<4xf64>
}

// -----

expr.func @f(%x: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.fused' op body must yield a value it computes, not one from outside it}}
  %0 = expr.fused : tensor<4xf64> {
    expr.yield %x : tensor<4xf64>
  }
  expr.return %0 : tensor<4xf64>
}

// -----

// An element count beyond int64 (2^61 x 4): the lowering counted elements
// without end.
expr.func @huge(%x: tensor<2305843009213693952x4xf64>) -> tensor<2305843009213693952xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reduce' op operand #0 must be statically shaped tensor of 64-bit float or 32-bit float or 32-bit signless integer or 64-bit signless integer or 1-bit signless integer values whose element count fits in 64 bits, but got 'tensor<2305843009213693952x4xf64>'}}
  %s = expr.reduce sum %x axes [1] : tensor<2305843009213693952x4xf64> to tensor<2305843009213693952xf64>
  expr.return %s : tensor<2305843009213693952xf64>
}
