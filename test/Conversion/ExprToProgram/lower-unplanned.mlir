// RUN: scaly-opt %s -split-input-file --scaly-lower-to-program -verify-diagnostics
//
// scaly-lower-to-program reads where values live from scaly-plan-placement
// (expr.place); it refuses a function without a plan, and a plan that gives
// memory to none of a value that needs it.

expr.func @unplanned(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{'expr.neg' op has no placement plan (expr.place): run scaly-plan-placement before scaly-lower-to-program}}
  %0 = expr.neg %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A kept call always writes memory: registers is no place for its result.
expr.func @registers_call(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<registers> gives it none (rerun scaly-plan-placement)}}
  %0 = expr.call @g(%x) {block, expr.place = [#expr.place<registers>]} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.neg %0 {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A yielded slice outside any loop, and an output the function does not
// have, are no memory either.
expr.func @no_such_place(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<yield 0> gives it none (rerun scaly-plan-placement)}}
  %0 = expr.call @g(%x) {block, expr.place = [#expr.place<yield 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<output 3> gives it none (rerun scaly-plan-placement)}}
  %1 = expr.call @g(%0) {block, expr.place = [#expr.place<output 3>]} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
