// RUN: scaly-opt %s --split-input-file --verify-diagnostics
//
// expr.nlp_solve checks its operands (1-D float64 arrays; the bounds and the
// multiplier guesses of x and of g as long as x0 and lbg), its wrapper's C
// name and its backend.

expr.func @two_d_x0(%x0: tensor<2x1xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{'expr.nlp_solve' op operands must be 1-D float64 arrays}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %bx) {name = "w", solver = "ipopt"}
      : tensor<2x1xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @scalar_p(%p: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["p"], res_names = ["x"]} {
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{operands must be 1-D float64 arrays}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%bx, %p, %bx, %bx, %g, %g, %g, %bx) {name = "w", solver = "sqp"}
      : tensor<2xf64>, tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

// float32 passes the operand type constraint (a float array) but not the verifier.
expr.func @f32_lbg(%lbg: tensor<1xf32>) -> tensor<2xf64> attributes {arg_names = ["lbg"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{operands must be 1-D float64 arrays}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%bx, %p, %bx, %bx, %lbg, %g, %g, %bx) {name = "w", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf32>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @lbx_length(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %short = expr.constant dense<[0.0]> : tensor<1xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{'expr.nlp_solve' op lbx, ubx and lam_x0 must have the length of x0 (2)}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %short, %bx, %g, %g, %g, %bx) {name = "w", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @ubx_length(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %long = expr.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{lbx, ubx and lam_x0 must have the length of x0 (2)}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %long, %g, %g, %g, %bx) {name = "w", solver = "sqp"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<3xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

// An empty lam_x0 is no shorthand for "zeros": it must have x0's length too.
expr.func @lam_x0_length(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{lbx, ubx and lam_x0 must have the length of x0 (2)}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %none) {name = "w", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<0xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @ubg_length(%lbg: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["lbg"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{'expr.nlp_solve' op ubg and lam_g0 must have the length of lbg (2)}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%bx, %p, %bx, %bx, %lbg, %g, %lbg, %bx) {name = "w", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>,
        tensor<1xf64>, tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

// No constraints (an empty lbg) with a guess for a multiplier nobody has.
expr.func @lam_g0_length(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{ubg and lam_g0 must have the length of lbg (0)}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %none, %none, %g, %bx) {name = "w", solver = "sqp"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<0xf64>,
        tensor<0xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<0xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @empty_name(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{'expr.nlp_solve' op needs the C name of its solver wrapper}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %bx) {name = "", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @unknown_solver(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{'expr.nlp_solve' op solver must be "ipopt" or "sqp", got "snopt"}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %bx) {name = "w", solver = "snopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

// The backend's name is matched exactly.
expr.func @solver_case(%x0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+1 {{solver must be "ipopt" or "sqp", got "IPOPT"}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %bx) {name = "w", solver = "IPOPT"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<2xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}

// -----

// The results' lengths are inferred from x0 and lbg: x, lam_g, lam_x.
expr.func @result_length(%x0: tensor<2xf64>) -> tensor<3xf64> attributes {arg_names = ["x0"], res_names = ["x"]} {
  %p = expr.constant dense<[1.0]> : tensor<1xf64>
  %bx = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %g = expr.constant dense<[0.0]> : tensor<1xf64>
  // expected-error @+2 {{inferred type(s) 'tensor<2xf64>', 'tensor<1xf64>', 'tensor<2xf64>' are incompatible with return type(s) of operation 'tensor<3xf64>', 'tensor<1xf64>', 'tensor<2xf64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %x, %lam_g, %lam_x = expr.nlp_solve(%x0, %p, %bx, %bx, %g, %g, %g, %bx) {name = "w", solver = "ipopt"}
      : tensor<2xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>, tensor<1xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64> -> tensor<3xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<3xf64>
}
