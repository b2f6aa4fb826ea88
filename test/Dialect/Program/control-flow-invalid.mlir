// RUN: scaly-opt %s -split-input-file -verify-diagnostics

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.call_extern' op calls 'missing', which is not declared with prog.extern}}
  prog.call_extern @missing() : () -> ()
  prog.return
}

// -----

prog.extern @ext : (f64) -> f64
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'prog.call_extern' op types do not match the declaration of @ext}}
  %r = prog.call_extern @ext(%c) : (i32) -> f64
  prog.return
}

// -----

// expected-error @+1 {{'prog.extern' op an external C function returns at most one value, got 2}}
prog.extern @two : (f64) -> (f64, f64)

// -----

// expected-error @+1 {{'prog.extern' op type 'index' has no C form}}
prog.extern @idx : (index) -> ()
