// RUN: scaly-opt %s --split-input-file --verify-diagnostics --scaly-differentiate
//
// Malformed derivative ops are refused by the verifier; functions that
// cannot be differentiated are refused by scaly-differentiate with a message
// naming the op.

expr.func @f(%x: tensor<3xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %r = expr.reduce sum %x axes [0] : tensor<3xf64> to tensor<f64>
  expr.return %r : tensor<f64>
}
expr.func @main(%x: tensor<3xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{operands must be the inputs of @f then one tangent per flagged port}}
  %d = expr.jvp @f(%x) wrt [true] : (tensor<3xf64>) -> tensor<f64>
  expr.return %d : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3xi32>) -> tensor<3xi32> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<3xi32>
}
expr.func @main(%x: tensor<3xi32>) -> tensor<3xi32> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{a tangent port of @f has non-float type 'tensor<3xi32>'}}
  %d = expr.jvp @f(%x, %x) wrt [true] : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  expr.return %d : tensor<3xi32>
}

// -----

expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}
expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{needs one wrt flag per input (1) and one of flag per result (1)}}
  %d = expr.vjp @f(%x, %x) wrt [true, true] of [true] : (tensor<f64>, tensor<f64>) -> tensor<f64>
  expr.return %d : tensor<f64>
}

// -----

expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.jvp' op calls 'nowhere', which is not an expr.func}}
  %d = expr.jvp @nowhere(%x, %x) wrt [true] : (tensor<f64>, tensor<f64>) -> tensor<f64>
  expr.return %d : tensor<f64>
}

// -----

// A function that differentiates itself has no finite derivative function.
// expected-error @+1 {{is recursive: its derivative would need itself}}
expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %d = expr.jvp @f(%x, %x) wrt [true] : (tensor<f64>, tensor<f64>) -> tensor<f64>
  expr.return %d : tensor<f64>
}

// -----

// A scan whose state is an integer carries no derivative.
expr.func @step(%s: tensor<i64>, %x: tensor<f64>) -> (tensor<i64>, tensor<f64>) attributes {arg_names = ["s", "x"], res_names = ["sn", "y"]} {
  expr.return %s, %x : tensor<i64>, tensor<f64>
}
expr.func @f(%s: tensor<i64>, %xs: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["s", "xs"], res_names = ["ys"]} {
  // expected-error @+1 {{differentiates a scan whose state is not float}}
  %sn, %ys = expr.scan @step(%s, %xs) count 4 : (tensor<i64>, tensor<4xf64>) -> (tensor<i64>, tensor<4xf64>)
  expr.return %ys : tensor<4xf64>
}
expr.func @main(%s: tensor<i64>, %xs: tensor<4xf64>, %t: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["s", "xs", "t"], res_names = ["y"]} {
  %d = expr.jvp @f(%s, %xs, %t) wrt [false, true] : (tensor<i64>, tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  expr.return %d : tensor<4xf64>
}

// -----

// A QP solve has no derivative rule yet: the pass names it.
expr.func @solve(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"]} {
  %P = expr.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %b = expr.constant dense<[-1.0, -1.0]> : tensor<2xf64>
  // expected-error @+1 {{is not differentiable yet: derivatives through it have no rule}}
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %none, %none, %none, %none, %none, %b, %P) {
      P_colptr = array<i64: 0, 1, 2>, P_rowind = array<i64: 0, 1>,
      A_colptr = array<i64: 0, 0, 0>, A_rowind = array<i64>,
      G_colptr = array<i64: 0, 0, 0>, G_rowind = array<i64>, name = "w"}
      : tensor<2xf64>, tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<2xf64>, tensor<2xf64>
      -> tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}
expr.func @main(%c: tensor<2xf64>, %t: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c", "t"], res_names = ["y"]} {
  %d = expr.jvp @solve(%c, %t) wrt [true] : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  expr.return %d : tensor<2xf64>
}
