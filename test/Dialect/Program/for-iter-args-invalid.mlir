// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier and parser errors of prog.for's carried values (iter_args): the
// counts and types of init values, body arguments, yielded values and
// results must match (a yield outside prog.for: control-flow-invalid.mlir).

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{'prog.for' op has 2 results, expected one per init value (1)}}
  %r:2 = "prog.for"(%z) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: i64, %s: f64):
    "prog.yield"(%s) : (f64) -> ()
  }) : (f64) -> (f64, f64)
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{'prog.for' op body takes 1 arguments, expected the i64 induction variable and one per init value (2)}}
  %r = "prog.for"(%z) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: i64):
    "prog.yield"(%z) : (f64) -> ()
  }) : (f64) -> f64
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{'prog.for' op induction variable (the body's first argument) must be i64, got 'i32'}}
  %r = "prog.for"(%z) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: i32, %s: f64):
    "prog.yield"(%s) : (f64) -> ()
  }) : (f64) -> f64
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{'prog.for' op carried value #0: body argument has type 'f32', expected the init value's type 'f64'}}
  %r = "prog.for"(%z) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: i64, %s: f32):
    "prog.yield"(%z) : (f64) -> ()
  }) : (f64) -> f64
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  %one = arith.constant 1 : i64
  // expected-error @+1 {{'prog.for' op carried value #1: result has type 'f64', expected the init value's type 'i64'}}
  %r:2 = "prog.for"(%z, %one) <{lower = 0 : i64, upper = 4 : i64, step = 1 : i64}> ({
  ^bb0(%i: i64, %s: f64, %n: i64):
    "prog.yield"(%s, %n) : (f64, i64) -> ()
  }) : (f64, i64) -> (f64, f64)
  prog.return
}

// -----

// A body without a yield gets an empty one, which is too short.
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{'prog.for' op body yields 0 values, expected one per init value (1)}}
  %r = prog.for %i = 0 to 4 iter_args(%s = %z) -> (f64) {
    %s2 = arith.addf %s, %s : f64
  }
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // Checked first by upstream's LoopLikeOpInterface verifier.
  // expected-error @+1 {{'prog.for' op different number of region iter_args and yielded values: 2 != 3}}
  %r:2 = prog.for %i = 0 to 4 iter_args(%a = %z, %b = %z) -> (f64, f64) {
    prog.yield %a, %b, %b : f64, f64, f64
  }
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  %n = arith.constant 3 : i64
  // expected-error @+1 {{'prog.for' op 1-th region iter_arg and 1-th yielded value have different type: 'f64' != 'i64'}}
  %r:2 = prog.for %i = 0 to 4 iter_args(%a = %z, %b = %z) -> (f64, f64) {
    prog.yield %a, %n : f64, i64
  }
  prog.return
}

// -----

// Results and body arguments take their types from the arrow list.
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{iter_args has 2 values but 1 types}}
  %r = prog.for %i = 0 to 4 iter_args(%a = %z, %b = %z) -> (f64) {
    prog.yield %a : f64
  }
  prog.return
}

// -----

// A carried value is a scalar or a lane vector, never a pointer.
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.for' op operand #0 must be variadic of}}
  %r = prog.for %i = 0 to 4 iter_args(%p = %y) -> (!prog.ptr<f64>) {
    prog.yield %p : !prog.ptr<f64>
  }
  prog.return
}
