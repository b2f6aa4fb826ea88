// RUN: scaly-opt %s --split-input-file --verify-diagnostics
//
// expr.qp_solve checks its patterns against its operands.

expr.func @lower_triangle(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"]} {
  %P = expr.constant dense<[4.0, 1.0, 2.0]> : tensor<3xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %xl = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  // expected-error @+1 {{P_rowind[1] = 1 is out of order or outside the upper triangle}}
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %none, %none, %none, %none, %none, %xl, %xl) {
      P_colptr = array<i64: 0, 2, 3>, P_rowind = array<i64: 0, 1, 1>,
      A_colptr = array<i64: 0, 0, 0>, A_rowind = array<i64>,
      G_colptr = array<i64: 0, 0, 0>, G_rowind = array<i64>, name = "w"}
      : tensor<3xf64>, tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<2xf64>, tensor<2xf64>
      -> tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @value_count(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"]} {
  %P = expr.constant dense<[4.0, 2.0]> : tensor<2xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %xl = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  // expected-error @+1 {{P stores 3 entries but P_values has 2}}
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %none, %none, %none, %none, %none, %xl, %xl) {
      P_colptr = array<i64: 0, 1, 3>, P_rowind = array<i64: 0, 0, 1>,
      A_colptr = array<i64: 0, 0, 0>, A_rowind = array<i64>,
      G_colptr = array<i64: 0, 0, 0>, G_rowind = array<i64>, name = "w"}
      : tensor<2xf64>, tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<2xf64>, tensor<2xf64>
      -> tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @bounds_length(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"]} {
  %P = expr.constant dense<[4.0, 1.0, 2.0]> : tensor<3xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %xl = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{x_l and x_u must have the length of c}}
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %none, %none, %none, %none, %none, %xl, %xl) {
      P_colptr = array<i64: 0, 1, 3>, P_rowind = array<i64: 0, 0, 1>,
      A_colptr = array<i64: 0, 0, 0>, A_rowind = array<i64>,
      G_colptr = array<i64: 0, 0, 0>, G_rowind = array<i64>, name = "w"}
      : tensor<3xf64>, tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<1xf64>, tensor<1xf64>
      -> tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @colptr_past_the_rows(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"]} {
  %P = expr.constant dense<[4.0, 1.0, 2.0]> : tensor<3xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %one = expr.constant dense<[1.0]> : tensor<1xf64>
  %xl = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  // expected-error @+1 {{A_colptr decreases or passes the 1 stored entries at column 0}}
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %one, %one, %none, %none, %none, %xl, %xl) {
      P_colptr = array<i64: 0, 1, 3>, P_rowind = array<i64: 0, 0, 1>,
      A_colptr = array<i64: 0, 1000000, 1>, A_rowind = array<i64: 0>,
      G_colptr = array<i64: 0, 0, 0>, G_rowind = array<i64>, name = "w"}
      : tensor<3xf64>, tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<0xf64>, tensor<2xf64>, tensor<2xf64>
      -> tensor<2xf64>, tensor<1xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}
