// RUN: scaly-opt %s --scaly-canonicalize-program -split-input-file | FileCheck %s
// RUN: scaly-opt %s --pass-pipeline='builtin.module(prog.proc(scaly-canonicalize-program))' -split-input-file | FileCheck %s
//
// The reference is upstream canonicalize: on these procedures both print
// the same IR.
// RUN: scaly-opt %s -canonicalize -split-input-file > %t.upstream
// RUN: scaly-opt %s --scaly-canonicalize-program -split-input-file > %t.own
// RUN: diff %t.upstream %t.own
//
// scaly-canonicalize-program simplifies the ops without regions first, then
// the loops and branches innermost first, in rounds until nothing changes.
// test/Dialect/Program/canonicalize.mlir runs it on the dialect's own
// folders and patterns; here: nests, where one simplification enables
// another across rounds and levels.

// An inner loop of one iteration inside a loop of two: inlined in place, its
// constants hoisted to the top of the procedure and unified with the equal
// ones outside. The outer loop stays.
// CHECK-LABEL: prog.proc @nested_single_trip(
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    prog.for %[[I:.*]] = 0 to 2 {
// CHECK-NEXT:      %[[P:.*]] = prog.offset %{{.*}}[%[[I]]]
// CHECK-NEXT:      %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[V]], %[[TWO]]
// CHECK-NEXT:      prog.store %[[M]] to %{{.*}}[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.store %[[TWO]] to %{{.*}}[1]
// CHECK-NEXT:    prog.return
prog.proc @nested_single_trip(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  prog.for %i = 0 to 2 {
    prog.for %j = 7 to 8 {
      %two = arith.constant 2.0 : f64
      %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
      %m = arith.mulf %v, %two : f64
      prog.store %m to %y[0] : f64 into !prog.ptr<f64>
    }
  }
  %two = arith.constant 2.0 : f64
  prog.store %two to %y[1] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

// Inlining a one-trip loop makes its counter a constant; the comparison of
// the counter then folds, and the branch on it becomes the branch taken;
// the zero-trip loop inside the other branch goes with it.
// CHECK-LABEL: prog.proc @cascade(
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-NEXT:    prog.store %[[ONE]] to %{{.*}}[0]
// CHECK-NEXT:    prog.return
prog.proc @cascade(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %three = arith.constant 3 : i64
  prog.for %i = 2 to 3 {
    %small = arith.cmpi slt, %i, %three : i64
    scf.if %small {
      %one = arith.constant 1.0 : f64
      prog.store %one to %y[0] : f64 into !prog.ptr<f64>
    } else {
      prog.for %j = 0 to 0 {
        %zero = arith.constant 0.0 : f64
        prog.store %zero to %y[0] : f64 into !prog.ptr<f64>
      }
    }
  }
  prog.return
}

// -----

// Carried values: a dead nest (only reads and arithmetic) is removed whole;
// a live one keeps its loop of four iterations, and the inner loop of one
// iteration inside it becomes its body.
// CHECK-LABEL: prog.proc @carried(
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[R:.*]] = prog.for %{{.*}} = 0 to 4 iter_args(%[[S:.*]] = %[[Z]]) -> (f64) {
// CHECK-NEXT:      prog.offset
// CHECK-NEXT:      %[[V:.*]] = prog.load
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[S]], %[[V]]
// CHECK-NEXT:      prog.yield %[[N]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.store %[[R]] to %{{.*}}[0]
// CHECK-NEXT:    prog.return
prog.proc @carried(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %dead = prog.for %i = 0 to 4 iter_args(%s = %zero) -> (f64) {
    %inner = prog.for %j = 0 to 3 iter_args(%t = %s) -> (f64) {
      %m = arith.mulf %t, %t : f64
      prog.yield %m : f64
    }
    prog.yield %inner : f64
  }
  %live = prog.for %i = 0 to 4 iter_args(%s = %zero) -> (f64) {
    %inner = prog.for %j = 0 to 1 iter_args(%t = %s) -> (f64) {
      %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
      %n = arith.addf %t, %v : f64
      prog.yield %n : f64
    }
    prog.yield %inner : f64
  }
  prog.store %live to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
