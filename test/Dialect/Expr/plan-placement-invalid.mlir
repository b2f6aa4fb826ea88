// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// A malformed #expr.place or expr.place array is refused when it is read.

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
