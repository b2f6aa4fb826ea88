// RUN: scaly-opt %s -split-input-file -scaly-program-to-emitc -verify-diagnostics
//
// An scf.for becomes `for (long long i = lower; i < upper; i += step)`: its
// bounds must be constants and its step positive (the lowering makes only
// such loops; upstream's scf.for verifier checks the step of index loops
// only); the conversion then names the op it could not convert.

prog.proc @f(%n: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["n", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %upper = prog.load %n[0] : !prog.ptr<const i64> -> i64
  %v = arith.constant 2.0 : f64
  // expected-error @+2 {{'scf.for' op with bounds that are not constants has no C translation here}}
  // expected-error @+1 {{failed to legalize operation 'scf.for'}}
  scf.for %i = %zero to %upper step %one : i64 {
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}

// -----

prog.proc @f(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  %zero = arith.constant 0 : i64
  %four = arith.constant 4 : i64
  %step = arith.constant -1 : i64
  %v = arith.constant 2.0 : f64
  // expected-error @+2 {{'scf.for' op with step -1 has no C translation here}}
  // expected-error @+1 {{failed to legalize operation 'scf.for'}}
  scf.for %i = %zero to %four step %step : i64 {
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}
