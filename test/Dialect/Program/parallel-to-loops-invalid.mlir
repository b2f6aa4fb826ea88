// RUN: scaly-opt %s -split-input-file --scaly-parallel-to-loops -verify-diagnostics
//
// Nests the program dialect's loops cannot express are refused by name.

prog.proc @reduced(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  // expected-error @+1 {{carries reduced values}}
  %s = scf.parallel (%i) = (%c0) to (%c4) step (%c1) init (%z) -> f64 {
    scf.reduce(%z : f64) {
    ^bb0(%a: f64, %b: f64):
      %t = arith.addf %a, %b : f64
      scf.reduce.return %t : f64
    }
  }
  prog.store %s to %y[0] : f64 into <f64>
  prog.return
}

// -----

prog.proc @dynamic(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = prog.load %w[0] : <f64> -> f64
  %ni = arith.fptosi %n : f64 to i64
  %nx = arith.index_cast %ni : i64 to index
  // expected-error @+1 {{has a bound of dimension 0 that is not a constant}}
  scf.parallel (%i) = (%c0) to (%nx) step (%c1) {
    scf.reduce
  } {scaly.names = ["i"]}
  prog.return
}

// -----

prog.proc @names(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{expected an array of one string per dimension (2)}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c2) step (%c1, %c1) {
    scf.reduce
  } {scaly.names = ["i"]}
  prog.return
}

// -----

prog.proc @names_not_array(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{has scaly.names "i": expected an array of one string per dimension (1)}}
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.reduce
  } {scaly.names = "i"}
  prog.return
}
