// RUN: scaly-opt %s -split-input-file -scaly-program-to-emitc -verify-diagnostics
//
// Upstream scf.if and scf.while translate as C statements: a branch with
// results, or a while loop carrying values, is refused with the reason, and
// the conversion names the op it could not convert.

prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %zero = arith.constant 0.0 : f64
  %pos = arith.cmpf ogt, %v, %zero : f64
  // expected-error @+2 {{'scf.if' op with results has no C translation here}}
  // expected-error @+1 {{failed to legalize operation 'scf.if'}}
  %r = scf.if %pos -> (f64) {
    scf.yield %v : f64
  } else {
    scf.yield %zero : f64
  }
  prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %one = arith.constant 1.0 : f64
  // expected-error @+2 {{'scf.while' op carrying values has no C translation here}}
  // expected-error @+1 {{failed to legalize operation 'scf.while'}}
  %r = scf.while (%a = %v) : (f64) -> f64 {
    %big = arith.cmpf ogt, %a, %one : f64
    scf.condition(%big) %a : f64
  } do {
  ^bb0(%b: f64):
    %h = arith.mulf %b, %b : f64
    scf.yield %h : f64
  }
  prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
