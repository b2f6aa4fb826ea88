// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// A malformed #expr.place, expr.place array, expr.next array or
// expr.scalarize_limit is refused when it is read.

expr.func @negative(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{#expr.place: the output number and the offset must not be negative, got 0 and -2}}
  %0 = expr.neg %x {expr.place = [#expr.place<output 0 offset -2>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @unknown_kind(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expected output, yield, workspace or registers, got 'stack'}}
  %0 = expr.neg %x {expr.place = [#expr.place<stack 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @workspace_number(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expected '>'}}
  %0 = expr.neg %x {expr.place = [#expr.place<workspace 2>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @one_per_result(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.place must be an array of one #expr.place per result (1)}}
  %0 = expr.neg %x {expr.place = [#expr.place<registers>, #expr.place<workspace>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @not_an_array(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.place must be an array of one #expr.place per result (1)}}
  %0 = expr.neg %x {expr.place = #expr.place<registers>} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// expected-error@+1 {{expr.scalarize_limit must be an i64 of at least 0, got -1 : i64}}
expr.func @negative_limit(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = -1} {
  expr.return %x : tensor<2xf64>
}

// -----

// expected-error@+1 {{expr.scalarize_limit must be an i64 of at least 0, got "64"}}
expr.func @string_limit(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = "64"} {
  expr.return %x : tensor<2xf64>
}

// -----

expr.func @limit_on_op(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.scalarize_limit belongs on an expr.func}}
  %0 = expr.neg %x {expr.scalarize_limit = 64} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @next_per_carried(%s0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["s0"], res_names = ["s"]} {
  // expected-error@+1 {{expr.next must be an array of one #expr.place<workspace> or #expr.place<registers> per carried value (1)}}
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<registers>, #expr.place<workspace>]} : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%s: tensor<2xf64>):
    expr.yield %s : tensor<2xf64>
  }
  expr.return %r : tensor<2xf64>
}

// -----

// A next value replaces the carried one: it has no output or slice.
expr.func @next_into_output(%s0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["s0"], res_names = ["s"]} {
  // expected-error@+1 {{expr.next must be an array of one #expr.place<workspace> or #expr.place<registers> per carried value (1)}}
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%s: tensor<2xf64>):
    expr.yield %s : tensor<2xf64>
  }
  expr.return %r : tensor<2xf64>
}

// -----

expr.func @next_on_op(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{expr.next belongs on an expr.loop}}
  %0 = expr.neg %x {expr.next = [#expr.place<workspace>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
