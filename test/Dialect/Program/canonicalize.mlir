// RUN: scaly-opt %s -canonicalize -split-input-file | FileCheck %s
// RUN: scaly-opt %s --scaly-canonicalize-program -split-input-file | FileCheck %s
//
// The program dialect's folders and canonicalization patterns (ODS
// hasFolder / hasCanonicalizer): offsets without index or bias, offsets of
// unindexed offsets, constant indices; and upstream's on the loops and
// branches the lowering makes: scf.for of no and of one iteration, dead
// loops, scf.if on a constant.
// The negatives (two iterations, a condition that is not constant, an
// indexed inner offset, an offset that adds const) stay as they are.

// CHECK-LABEL: prog.proc @loops(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     scf.for %{{.*}} = %c5_i64{{[_0-9]*}} to %c5_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}}
// CHECK:         %[[P:.*]] = prog.offset %[[X]] {bias = 3 : i64}
// CHECK-NEXT:    %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:    %[[S:.*]] = arith.addf %[[V]], %[[V]]
// CHECK-NEXT:    prog.store %[[S]] to %[[Y]][0]
// CHECK-NEXT:    scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:         prog.store %[[S]] to %[[Y]][1]
// CHECK-NEXT:    prog.return
prog.proc @loops(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 8>, output_sizes = array<i64: 2>} {
  %zero = arith.constant 0.0 : f64
  // No iteration: the result is the init value, and nothing runs.
  %lo1 = arith.constant 5 : i64
  %hi1 = arith.constant 5 : i64
  %st1 = arith.constant 1 : i64
  %r0 = scf.for %i = %lo1 to %hi1 step %st1 iter_args(%s = %zero) -> (f64) : i64 {
    prog.store %s to %y[0] : f64 into !prog.ptr<f64>
    scf.yield %s : f64
  }
  // One iteration (3, step 4 to 6): the body at i = 3, the result its yield.
  %lo2 = arith.constant 3 : i64
  %hi2 = arith.constant 6 : i64
  %st2 = arith.constant 4 : i64
  %r1 = scf.for %i = %lo2 to %hi2 step %st2 iter_args(%s = %r0) -> (f64) : i64 {
    %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
    %t = arith.addf %v, %v : f64
    prog.store %t to %y[0] : f64 into !prog.ptr<f64>
    scf.yield %t : f64
  }
  // Two iterations stay a loop.
  %lo3 = arith.constant 0 : i64
  %hi3 = arith.constant 2 : i64
  %st3 = arith.constant 1 : i64
  scf.for %i = %lo3 to %hi3 step %st3 : i64 {
    prog.store %zero to %y[1] : f64 into !prog.ptr<f64>
  }
  prog.store %r1 to %y[1] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

// CHECK-LABEL: prog.proc @branches(
// CHECK:         %[[C:.*]] = arith.constant 1.000000e+00
// CHECK:         %[[TWO:.*]] = arith.constant 2.000000e+00
// CHECK-NEXT:    prog.store %[[C]] to %{{.*}}[0]
// CHECK-NEXT:    %[[B:.*]] = prog.load
// CHECK-NEXT:    scf.if %[[B]] {
// CHECK-NEXT:      prog.store %[[TWO]]
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.return
prog.proc @branches(%c: !prog.ptr<const i1>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["c", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %t = arith.constant true
  %f = arith.constant false
  scf.if %t {
    prog.store %one to %y[0] : f64 into !prog.ptr<f64>
  } else {
    prog.store %two to %y[0] : f64 into !prog.ptr<f64>
  }
  // False without an else: nothing.
  scf.if %f {
    prog.store %two to %y[0] : f64 into !prog.ptr<f64>
  }
  %b = prog.load %c[0] : !prog.ptr<const i1> -> i1
  scf.if %b {
    prog.store %two to %y[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}

// -----

// CHECK-LABEL: prog.proc @offsets(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %{{[^:]*}}: !prog.ptr<const i64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[I:.*]] = prog.load
// CHECK-NEXT:    prog.call @use(%[[X]],
// CHECK-NEXT:    %[[A:.*]] = prog.offset %[[X]] {bias = 7 : i64}
// CHECK-NEXT:    prog.call @use(%[[A]],
// CHECK-NEXT:    %[[B:.*]] = prog.offset %[[X]][%[[I]]] {bias = 5 : i64, scale = 3 : i64}
// CHECK-NEXT:    prog.call @use(%[[B]],
// CHECK-NEXT:    %[[C0:.*]] = prog.offset %[[X]][%[[I]]] : <const f64> -> <const f64>
// CHECK-NEXT:    %[[C1:.*]] = prog.offset %[[C0]] {bias = 1 : i64}
// CHECK-NEXT:    prog.call @use(%[[C1]],
// CHECK-NEXT:    %[[D:.*]] = prog.offset %[[Y]] : <f64> -> <const f64>
// CHECK-NEXT:    prog.call @use(%[[D]],
prog.proc @use(%p: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["p", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64>} {
  prog.return
}
prog.proc @offsets(%x: !prog.ptr<const f64>, %n: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "n", "y", "w"], input_sizes = array<i64: 8, 1>, output_sizes = array<i64: 8>} {
  %nul = prog.null : !prog.ptr<f64>
  %i = prog.load %n[0] : !prog.ptr<const i64> -> i64
  // No index, no bias: the base.
  %same = prog.offset %x : !prog.ptr<const f64> -> !prog.ptr<const f64>
  prog.call @use(%same, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>
  // Offsets of unindexed offsets: one offset, biases added, the outer index kept.
  %a0 = prog.offset %x {bias = 3} : !prog.ptr<const f64> -> !prog.ptr<const f64>
  %a1 = prog.offset %a0 {bias = 4} : !prog.ptr<const f64> -> !prog.ptr<const f64>
  prog.call @use(%a1, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>
  %b1 = prog.offset %a0[%i] {scale = 3, bias = 2} : !prog.ptr<const f64> -> !prog.ptr<const f64>
  prog.call @use(%b1, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>
  // An indexed inner offset is kept.
  %c0 = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
  %c1 = prog.offset %c0 {bias = 1} : !prog.ptr<const f64> -> !prog.ptr<const f64>
  prog.call @use(%c1, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>
  // An offset that adds const is not its base.
  %d = prog.offset %y : !prog.ptr<f64> -> !prog.ptr<const f64>
  prog.call @use(%d, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>
  prog.return
}

// -----

// A loop whose results nobody uses and whose body only reads and computes
// (a nested loop too) is removed; one whose body writes stays (also inside
// an scf.if), and so does one whose result is used. A value carried
// unchanged is its init value (upstream's iter_args folder).
// CHECK-LABEL: prog.proc @dead_loops(
// CHECK-NOT:     arith.mulf
// CHECK:         %[[Z:.*]] = arith.constant 0.0
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      prog.store %[[Z]]
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           scf.if
// CHECK:             prog.store
// CHECK:         %[[USED:.*]] = scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args(%{{.*}} = %{{.*}}) -> (f64) : i64 {
// CHECK:           arith.addf
// CHECK:         prog.store %[[USED]]
// CHECK-NOT:     scf.for
prog.proc @dead_loops(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 8>, output_sizes = array<i64: 2>} {
  %zero = arith.constant 0.0 : f64
  %lo4 = arith.constant 0 : i64
  %hi4 = arith.constant 4 : i64
  %st4 = arith.constant 1 : i64
  %dead = scf.for %i = %lo4 to %hi4 step %st4 iter_args(%s = %zero) -> (f64) : i64 {
    %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
    %lo5 = arith.constant 0 : i64
    %hi5 = arith.constant 2 : i64
    %st5 = arith.constant 1 : i64
    %inner = scf.for %j = %lo5 to %hi5 step %st5 iter_args(%t = %v) -> (f64) : i64 {
      %m = arith.mulf %t, %t : f64
      scf.yield %m : f64
    }
    %n = arith.addf %s, %inner : f64
    scf.yield %n : f64
  }
  %lo6 = arith.constant 0 : i64
  %hi6 = arith.constant 4 : i64
  %st6 = arith.constant 1 : i64
  %writes = scf.for %i = %lo6 to %hi6 step %st6 iter_args(%s = %zero) -> (f64) : i64 {
    prog.store %s to %y[0] : f64 into !prog.ptr<f64>
    scf.yield %s : f64
  }
  %lo7 = arith.constant 0 : i64
  %hi7 = arith.constant 4 : i64
  %st7 = arith.constant 1 : i64
  %guarded = scf.for %i = %lo7 to %hi7 step %st7 iter_args(%s = %zero) -> (f64) : i64 {
    %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
    %pos = arith.cmpf ogt, %v, %zero : f64
    scf.if %pos {
      prog.store %v to %y[0] : f64 into !prog.ptr<f64>
    }
    scf.yield %s : f64
  }
  %lo8 = arith.constant 0 : i64
  %hi8 = arith.constant 4 : i64
  %st8 = arith.constant 1 : i64
  %used = scf.for %i = %lo8 to %hi8 step %st8 iter_args(%s = %zero) -> (f64) : i64 {
    %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
    %n = arith.addf %s, %v : f64
    scf.yield %n : f64
  }
  prog.store %used to %y[1] : f64 into !prog.ptr<f64>
  prog.return
}
