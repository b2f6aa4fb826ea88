// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier errors of the program dialect's helper calls: prog.reduce kinds,
// counts, result types and bools; prog.matmul writes a writable output of
// the operands' element type with non-negative sizes.

prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.reduce' op kind must be sum, prod, max or min, got 'mean'}}
  %0 = prog.reduce "mean" %x count 4 stride 1 : <const f64> -> f64
  prog.store %0 to %y[0] : f64 into <f64>
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.reduce' op count must be >= 0}}
  %0 = prog.reduce "sum" %x count -1 stride 1 : <const f64> -> f64
  prog.store %0 to %y[0] : f64 into <f64>
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f32>, %w: !prog.ptr<none>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.reduce' op result type must be the pointer's element type}}
  %0 = prog.reduce "max" %x count 4 stride 1 : <const f64> -> f32
  prog.store %0 to %y[0] : f32 into <f32>
  prog.return
}

// -----

prog.proc @p(%a: !prog.ptr<const f64>, %b: !prog.ptr<const f64>, %c: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["a", "b", "c", "w"], input_sizes = array<i64: 4, 4>, output_sizes = array<i64: 4>} {
  // expected-error @+1 {{'prog.matmul' op output must be writable}}
  prog.matmul %a, %b into %b m 2 k 2 n 2 : <const f64>, <const f64>, <const f64>
  prog.return
}

// -----

prog.proc @p(%a: !prog.ptr<const f32>, %b: !prog.ptr<const f64>, %c: !prog.ptr<f64>, %w: !prog.ptr<none>) attributes {arg_names = ["a", "b", "c", "w"], input_sizes = array<i64: 4, 4>, output_sizes = array<i64: 4>} {
  // expected-error @+1 {{'prog.matmul' op operands and output must have one element type}}
  prog.matmul %a, %b into %c m 2 k 2 n 2 : <const f32>, <const f64>, <f64>
  prog.return
}

// -----

prog.proc @p(%a: !prog.ptr<const f64>, %b: !prog.ptr<const f64>, %c: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["a", "b", "c", "w"], input_sizes = array<i64: 4, 4>, output_sizes = array<i64: 4>} {
  // expected-error @+1 {{'prog.matmul' op sizes must be >= 0}}
  prog.matmul %a, %b into %c m 2 k -2 n 2 : <const f64>, <const f64>, <f64>
  prog.return
}
