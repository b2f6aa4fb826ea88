// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
// RUN: scaly-opt %s | scaly-opt | FileCheck %s
//
// prog.for with 0, 1 and 2 loop-carried values (iter_args) parses and
// prints, in the custom and the generic form. Without carried values the
// printed form is the one of a plain counted loop (no yield); with them the
// yield is printed with its values. `step 1` is not printed, other steps
// are; the counter's name stays an attribute after the body.

// CHECK-LABEL: prog.proc @carried(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK:         prog.for %[[I:.*]] = 0 to 4 {
// CHECK-NEXT:      prog.store %[[ONE]] to %[[Y]][0] : f64 into <f64>
// CHECK-NEXT:    } {name = "i"}
// CHECK:         %[[SUM:.*]] = prog.for %[[J:.*]] = 0 to 8 step 2 iter_args(%[[S:.*]] = %[[ZERO]]) -> (f64) {
// CHECK-NEXT:      %[[XP:.*]] = prog.offset %[[X]][%[[J]]] : <const f64> -> <const f64>
// CHECK-NEXT:      %[[V:.*]] = prog.load %[[XP]][0] : <const f64> -> f64
// CHECK-NEXT:      %[[S2:.*]] = arith.addf %[[S]], %[[V]] : f64
// CHECK-NEXT:      prog.yield %[[S2]] : f64
// CHECK-NEXT:    }
// CHECK:         %[[FIB:.*]]:2 = prog.for %[[K:.*]] = 0 to 10 iter_args(%[[A:.*]] = %[[ZERO]], %[[B:.*]] = %[[ONE]]) -> (f64, f64) {
// CHECK-NEXT:      %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK-NEXT:      prog.yield %[[B]], %[[AB]] : f64, f64
// CHECK-NEXT:    } {name = "k"}
// CHECK:         %[[SW:.*]]:2 = prog.for %{{.*}} = 0 to 3 iter_args(%[[P:.*]] = %[[SUM]], %[[Q:.*]] = %[[FIB]]#1) -> (f64, f64) {
// CHECK-NEXT:      prog.yield %[[Q]], %[[P]] : f64, f64
// CHECK-NEXT:    }
// CHECK:         prog.store %[[SUM]], %[[FIB]]#0, %[[SW]]#1 to %[[Y]][1] : f64, f64, f64 into <f64>
prog.proc @carried(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 8>, output_sizes = array<i64: 4>} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  prog.for %i = 0 to 4 {
    prog.store %one to %y[0] : f64 into !prog.ptr<f64>
  } {name = "i"}
  %sum = prog.for %j = 0 to 8 step 2 iter_args(%s = %zero) -> f64 {
    %xp = prog.offset %x[%j] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xp[0] : !prog.ptr<const f64> -> f64
    %s2 = arith.addf %s, %v : f64
    prog.yield %s2 : f64
  }
  %a, %b = prog.for %k = 0 to 10 step 1 iter_args(%p = %zero, %q = %one) -> (f64, f64) {
    %n = arith.addf %p, %q : f64
    prog.yield %q, %n : f64, f64
  } {name = "k"}
  %u:2 = prog.for %m = 0 to 3 iter_args(%p = %sum, %q = %b) -> (f64, f64) {
    prog.yield %q, %p : f64, f64
  }
  prog.store %sum, %a, %u#1 to %y[1] : f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// Carried values of every value type: integers, bools and lane vectors; a
// loop nested in a loop with carried values reads the outer ones.
// CHECK-LABEL: prog.proc @types(
// CHECK:         %[[R:.*]]:3 = prog.for %{{.*}} = 0 to 4 iter_args(%[[N:.*]] = %{{.*}}, %[[F:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}) -> (i64, i1, vector<4xf64>) {
// CHECK:           %[[IN:.*]] = prog.for %{{.*}} = 0 to 2 iter_args(%[[M:.*]] = %[[N]]) -> (i64) {
// CHECK:             prog.yield %{{.*}} : i64
// CHECK-NEXT:      }
// CHECK:           prog.yield %[[IN]], %{{.*}}, %{{.*}} : i64, i1, vector<4xf64>
prog.proc @types(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 4>} {
  %c0 = arith.constant 0 : i64
  %t = arith.constant true
  %z = arith.constant 0.0 : f64
  %zv = vector.broadcast %z : f64 to vector<4xf64>
  %r:3 = prog.for %i = 0 to 4 iter_args(%n = %c0, %f = %t, %l = %zv) -> (i64, i1, vector<4xf64>) {
    %inner = prog.for %j = 0 to 2 iter_args(%m = %n) -> (i64) {
      %m2 = arith.addi %m, %j : i64
      prog.yield %m2 : i64
    }
    %nf = arith.xori %f, %t : i1
    %l2 = arith.addf %l, %l : vector<4xf64>
    prog.yield %inner, %nf, %l2 : i64, i1, vector<4xf64>
  }
  prog.store %r#2 to %y[0] : vector<4xf64> into !prog.ptr<f64>
  prog.return
}
