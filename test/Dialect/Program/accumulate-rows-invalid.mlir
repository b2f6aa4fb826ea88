// RUN: scaly-opt %s -split-input-file --scaly-accumulate-rows -verify-diagnostics
// RUN: not scaly-opt %s -split-input-file --scaly-accumulate-rows="rows-per-pass=0" 2>&1 | FileCheck %s --check-prefix=OPTION
//
// A marked row loop the interchange cannot move is refused by name.
// OPTION: rows-per-pass must be at least 1, got 0

prog.proc @outside(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 8>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  %x0 = prog.load %x[0] : <const f64> -> f64
  %c1_i64 = arith.constant 1 : i64
  %c8_i64 = arith.constant 8 : i64
  // expected-error @+1 {{is not in the body of a loop nest (scf.parallel)}}
  %s = scf.for %r = %c1_i64 to %c8_i64 step %c1_i64 iter_args(%acc = %x0) -> (f64) : i64 {
    %pk = prog.offset %x[%r] : <const f64> -> <const f64>
    %v = prog.load %pk[0] : <const f64> -> f64
    %n = arith.addf %acc, %v : f64
    scf.yield %n : f64
  } {scaly.accumulate_rows}
  prog.store %s to %y[0] : f64 into <f64>
  prog.return
}

// -----

prog.proc @step(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 16>, output_sizes = array<i64: 2>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c2) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c8_i64 = arith.constant 8 : i64
    %z = arith.constant 0.0 : f64
    // expected-error @+1 {{is not a loop by 1 over an i64 counter between constants carrying one accumulator}}
    %s = scf.for %r = %c1_i64 to %c8_i64 step %c2_i64 iter_args(%acc = %z) -> (f64) : i64 {
      scf.yield %acc : f64
    } {scaly.accumulate_rows}
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %s to %q[0] : f64 into <f64>
    scf.reduce
  }
  prog.return
}

// -----

// The result is not what the nest stores last.
prog.proc @unstored(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 16>, output_sizes = array<i64: 2>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c2) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %c1_i64 = arith.constant 1 : i64
    %c8_i64 = arith.constant 8 : i64
    %z = arith.constant 0.0 : f64
    // expected-error @+1 {{its result is not stored by the nest's last op}}
    %s = scf.for %r = %c1_i64 to %c8_i64 step %c1_i64 iter_args(%acc = %z) -> (f64) : i64 {
      scf.yield %acc : f64
    } {scaly.accumulate_rows}
    %t = arith.addf %s, %z : f64
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %t to %q[0] : f64 into <f64>
    scf.reduce
  }
  prog.return
}

// -----

// A store inside the row loop: moving the loop would reorder it.
prog.proc @writes(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 16>, output_sizes = array<i64: 2>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c2) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %c1_i64 = arith.constant 1 : i64
    %c8_i64 = arith.constant 8 : i64
    %z = arith.constant 0.0 : f64
    // expected-error @+1 {{its body holds 'prog.store', which writes memory or holds a region}}
    %s = scf.for %r = %c1_i64 to %c8_i64 step %c1_i64 iter_args(%acc = %z) -> (f64) : i64 {
      prog.store %acc to %w[0] : f64 into <f64>
      scf.yield %acc : f64
    } {scaly.accumulate_rows}
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %s to %q[0] : f64 into <f64>
    scf.reduce
  }
  prog.return
}

// -----

// A row reads the result array: after the interchange it would read a
// partial sum.
prog.proc @reads_result(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 560>, output_sizes = array<i64: 80>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c80 = arith.constant 80 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c80) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %p = prog.offset %x[%j64] : <const f64> -> <const f64>
    %x0 = prog.load %p[0] : <const f64> -> f64
    %c1_i64 = arith.constant 1 : i64
    %c7_i64 = arith.constant 7 : i64
    // expected-error @+1 {{its body reads the array the nest stores the result into}}
    %s = scf.for %r = %c1_i64 to %c7_i64 step %c1_i64 iter_args(%acc = %x0) -> (f64) : i64 {
      %c80_i64 = arith.constant 80 : i64
      %m = arith.muli %r, %c80_i64 overflow<nsw> : i64
      %k = arith.addi %m, %j64 overflow<nsw> : i64
      %pk = prog.offset %x[%k] : <const f64> -> <const f64>
      %v = prog.load %pk[0] : <const f64> -> f64
      %py = prog.offset %y[%j64] : <f64> -> <f64>
      %old = prog.load %py[0] : <f64> -> f64
      %t = arith.mulf %v, %old : f64
      %n = arith.addf %acc, %t : f64
      scf.yield %n : f64
    } {scaly.accumulate_rows, scaly.name = "r"}
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %s to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["j"]}
  prog.return
}
