// RUN: scaly-opt %s -split-input-file --scaly-sum-in-blocks -verify-diagnostics
//
// A marked sum the pass cannot compute by block is refused by name.

prog.proc @small(%x: !prog.ptr<const f64>, %s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "w"], entry, input_sizes = array<i64: 100>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  // expected-error @+1 {{is not a float sum of more than 8192 consecutive elements}}
  %sum = prog.reduce "sum" %x count 100 stride 1 {scaly.sum_in_blocks} : <const f64> -> f64
  prog.store %sum to %s[0] : f64 into <f64>
  prog.return
}

// -----

// The sum reads an input, not a window a nest writes.
prog.proc @input(%x: !prog.ptr<const f64>, %s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "w"], entry, input_sizes = array<i64: 20000>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  // expected-error @+1 {{does not read a workspace window of its count elements}}
  %sum = prog.reduce "sum" %x count 20000 stride 1 {scaly.sum_in_blocks} : <const f64> -> f64
  prog.store %sum to %s[0] : f64 into <f64>
  prog.return
}

// -----

// The window is also read elsewhere: contracting it would lose elements.
prog.proc @shared(%x: !prog.ptr<const f64>, %s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "w"], entry, input_sizes = array<i64: 20000>, output_sizes = array<i64: 2>, workspace = 0 : i64} {
  %win = prog.window %w size 20000 : <f64> -> <f64>
  %c0 = arith.constant 0 : index
  %c20000 = arith.constant 20000 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c20000) step (%c1) {
    %k = arith.index_cast %i : index to i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %q = prog.offset %win[%k] : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["i"]}
  %view = prog.offset %win : <f64> -> <const f64>
  // expected-error @+1 {{its window is read or written by more than one nest writing it}}
  %sum = prog.reduce "sum" %view count 20000 stride 1 {scaly.sum_in_blocks} : <const f64> -> f64
  %last = prog.load %win[19999] : <f64> -> f64
  prog.store %sum, %last to %s[0] : f64, f64 into <f64>
  prog.return
}

// -----

// The nest writes element k at another place.
prog.proc @reversed(%x: !prog.ptr<const f64>, %s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "w"], entry, input_sizes = array<i64: 20000>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  %win = prog.window %w size 20000 : <f64> -> <f64>
  %c0 = arith.constant 0 : index
  %c20000 = arith.constant 20000 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c20000) step (%c1) {
    %k = arith.index_cast %i : index to i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %q = prog.offset %win[%k] {bias = 1 : i64} : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["i"]}
  %view = prog.offset %win : <f64> -> <const f64>
  // expected-error @+1 {{does not end with the store of element k at k}}
  %sum = prog.reduce "sum" %view count 20000 stride 1 {scaly.sum_in_blocks} : <const f64> -> f64
  prog.store %sum to %s[0] : f64 into <f64>
  prog.return
}
