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
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[P:.*]] = prog.offset %{{.*}}[%[[I]]]
// CHECK-NEXT:      %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[V]], %[[TWO]]
// CHECK-NEXT:      prog.store %[[M]] to %{{.*}}[0]
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.store %[[TWO]] to %{{.*}}[1]
// CHECK-NEXT:    prog.return
prog.proc @nested_single_trip(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 2 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %lo2 = arith.constant 7 : i64
    %hi2 = arith.constant 8 : i64
    %st2 = arith.constant 1 : i64
    scf.for %j = %lo2 to %hi2 step %st2 : i64 {
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
  %lo3 = arith.constant 2 : i64
  %hi3 = arith.constant 3 : i64
  %st3 = arith.constant 1 : i64
  scf.for %i = %lo3 to %hi3 step %st3 : i64 {
    %small = arith.cmpi slt, %i, %three : i64
    scf.if %small {
      %one = arith.constant 1.0 : f64
      prog.store %one to %y[0] : f64 into !prog.ptr<f64>
    } else {
      %lo4 = arith.constant 0 : i64
      %hi4 = arith.constant 0 : i64
      %st4 = arith.constant 1 : i64
      scf.for %j = %lo4 to %hi4 step %st4 : i64 {
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
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    %[[R:.*]] = scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args(%[[S:.*]] = %[[Z]]) -> (f64) : i64 {
// CHECK-NEXT:      prog.offset
// CHECK-NEXT:      %[[V:.*]] = prog.load
// CHECK-NEXT:      %[[N:.*]] = arith.addf %[[S]], %[[V]]
// CHECK-NEXT:      scf.yield %[[N]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.store %[[R]] to %{{.*}}[0]
// CHECK-NEXT:    prog.return
prog.proc @carried(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %lo5 = arith.constant 0 : i64
  %hi5 = arith.constant 4 : i64
  %st5 = arith.constant 1 : i64
  %dead = scf.for %i = %lo5 to %hi5 step %st5 iter_args(%s = %zero) -> (f64) : i64 {
    %lo6 = arith.constant 0 : i64
    %hi6 = arith.constant 3 : i64
    %st6 = arith.constant 1 : i64
    %inner = scf.for %j = %lo6 to %hi6 step %st6 iter_args(%t = %s) -> (f64) : i64 {
      %m = arith.mulf %t, %t : f64
      scf.yield %m : f64
    }
    scf.yield %inner : f64
  }
  %lo7 = arith.constant 0 : i64
  %hi7 = arith.constant 4 : i64
  %st7 = arith.constant 1 : i64
  %live = scf.for %i = %lo7 to %hi7 step %st7 iter_args(%s = %zero) -> (f64) : i64 {
    %lo8 = arith.constant 0 : i64
    %hi8 = arith.constant 1 : i64
    %st8 = arith.constant 1 : i64
    %inner = scf.for %j = %lo8 to %hi8 step %st8 iter_args(%t = %s) -> (f64) : i64 {
      %p = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %v = prog.load %p[0] : !prog.ptr<const f64> -> f64
      %n = arith.addf %t, %v : f64
      scf.yield %n : f64
    }
    scf.yield %inner : f64
  }
  prog.store %live to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
