// RUN: scaly-opt %s -split-input-file --scaly-lower-to-program -verify-diagnostics
// RUN: not scaly-opt %s -split-input-file --scaly-lower-to-program="scalarize-limit=4" 2>&1 | FileCheck %s --check-prefix=OPTION
//
// scaly-lower-to-program reads where values live from scaly-plan-placement
// (expr.place, expr.next and the function's expr.scalarize_limit); it
// refuses a function without a plan, and a plan that gives memory to none of
// a value that needs it. The limit is the plan's alone: the lowering has no
// option that could contradict it.
// OPTION: no such option scalarize-limit

// expected-error@+1 {{'expr.func' op has no scalarize limit (expr.scalarize_limit): run scaly-plan-placement before scaly-lower-to-program}}
expr.func @no_limit(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.neg %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

expr.func @unplanned(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  // expected-error@+1 {{'expr.neg' op has no placement plan (expr.place): run scaly-plan-placement before scaly-lower-to-program}}
  %0 = expr.neg %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A kept call always writes memory: registers is no place for its result.
expr.func @registers_call(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<registers> gives it none (rerun scaly-plan-placement)}}
  %0 = expr.call @g(%x) {block, expr.place = [#expr.place<registers>]} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.neg %0 {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
  %0 = expr.math cos %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A yielded slice outside any loop, and an output the function does not
// have, are no memory either.
expr.func @no_such_place(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<yield 0> gives it none (rerun scaly-plan-placement)}}
  %0 = expr.call @g(%x) {block, expr.place = [#expr.place<yield 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  // expected-error@+1 {{'expr.call' op result #0 needs memory, but its plan #expr.place<output 3> gives it none (rerun scaly-plan-placement)}}
  %1 = expr.call @g(%0) {block, expr.place = [#expr.place<output 3>]} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
  %0 = expr.math cos %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A loop with a carried value needs the plan of its next value.
expr.func @no_next(%s0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["s0"], res_names = ["s"], expr.scalarize_limit = 64} {
  // expected-error@+1 {{'expr.loop' op has no plan for its next values (expr.next): run scaly-plan-placement before scaly-lower-to-program}}
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%s: tensor<2xf64>):
    %n = expr.neg %s {expr.place = [#expr.place<registers>]} : tensor<2xf64>
    expr.yield %n : tensor<2xf64>
  }
  expr.return %r : tensor<2xf64>
}

// -----

// A value planned into the next value of a carried value (yield 0) needs
// that next value built in a window: expr.next says registers.
expr.func @yield_into_registers(%s0: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["s0"], res_names = ["s"], expr.scalarize_limit = 4} {
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<registers>], expr.place = [#expr.place<output 0>]} : (tensor<8xf64>) -> tensor<8xf64> {
  ^bb0(%s: tensor<8xf64>):
    // expected-error@+1 {{'expr.neg' op result #0 is planned into the next value of carried value 0 (#expr.place<yield 0>), which the loop's expr.next builds in registers (rerun scaly-plan-placement)}}
    %n = expr.neg %s {expr.place = [#expr.place<yield 0>]} : tensor<8xf64>
    expr.yield %n : tensor<8xf64>
  }
  expr.return %r : tensor<8xf64>
}
