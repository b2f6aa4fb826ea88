// RUN: scaly-opt %s -split-input-file --scaly-tile-copies -verify-diagnostics
//
// A copy plan the nest cannot follow is refused by name.

prog.proc @plan(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 60>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{stores "lines" needs rows of whole 64-byte lines}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c10_i64 = arith.constant 10 : i64
    %r = arith.muli %i64, %c10_i64 overflow<nsw> : i64
    %o = arith.addi %r, %j64 overflow<nsw> : i64
    %p = prog.offset %x[%o] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %q = prog.offset %y[%o] : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [4, 4], order = "rows", stores = "plain"}}, scaly.names = ["i", "j"]}
  prog.return
}

// -----

// The store is not at the nest's row-major position (a transposed store).
prog.proc @position(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 60>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{does not end with the store of one element at the nest's row-major position}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c6_i64 = arith.constant 6 : i64
    %r = arith.muli %j64, %c6_i64 overflow<nsw> : i64
    %o = arith.addi %r, %i64 overflow<nsw> : i64
    %v = arith.constant 1.0 : f64
    %q = prog.offset %y[%o] : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, scaly.names = ["i", "j"]}
  prog.return
}

// -----

// A store the element does not need would be lost.
prog.proc @extra(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 60>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{the nest holds 'prog.store', which its element does not need}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c10_i64 = arith.constant 10 : i64
    %r = arith.muli %i64, %c10_i64 overflow<nsw> : i64
    %o = arith.addi %r, %j64 overflow<nsw> : i64
    %v = arith.constant 1.0 : f64
    prog.store %v to %w[0] : f64 into <f64>
    %q = prog.offset %y[%o] : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, scaly.names = ["i", "j"]}
  prog.return
}

// -----

// One dimension: no rows and columns to block.
prog.proc @flat(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c60 = arith.constant 60 : index
  // expected-error @+1 {{not a nest of two or more dimensions from 0 by 1}}
  scf.parallel (%i) = (%c0) to (%c60) step (%c1) {
    scf.reduce
  } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}}
  prog.return
}

// -----

// A counter read as an index, not through one cast to i64.
prog.proc @counter(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  // expected-error @+1 {{a counter is read other than through one cast to i64}}
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %i32 = arith.index_cast %i : index to i32
    scf.reduce
  } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}}
  prog.return
}
