// RUN: scaly-opt %s -split-input-file --scaly-parallel-to-loops | FileCheck %s
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-parallel-to-loops))' | FileCheck %s
//
// Each scf.parallel nest becomes one scf.for per dimension, the first
// outermost, over i64 counters named by scaly.names; the body moves into the
// innermost loop with its casts to i64 replaced by the counters, and the
// index constants of the bounds go.

// CHECK-LABEL: prog.proc @copy(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     index
// CHECK:         scf.for %[[I:.*]] = %c0_i64 to %c3_i64 step %c1_i64  : i64 {
// CHECK:           scf.for %[[J:.*]] = %c2_i64 to %c8_i64 step %c2_i64{{.*}}  : i64 {
// CHECK:             %[[R:.*]] = arith.muli %[[I]], %c8_i64{{.*}}
// CHECK-NEXT:        %[[K:.*]] = arith.addi %[[R]], %[[J]]
// CHECK-NEXT:        %[[P:.*]] = prog.offset %[[X]][%[[K]]]
// CHECK-NEXT:        %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:        %[[Q:.*]] = prog.offset %[[Y]][%[[K]]]
// CHECK-NEXT:        prog.store %[[V]] to %[[Q]][0]
// CHECK-NEXT:      } {scaly.name = "j"}
// CHECK-NEXT:    } {scaly.name = "i"}
// CHECK-NOT:     scf.parallel
// CHECK:         prog.return
prog.proc @copy(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 24>, output_sizes = array<i64: 24>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c2) to (%c3, %c8) step (%c1, %c2) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c8_i64 = arith.constant 8 : i64
    %r = arith.muli %i64, %c8_i64 overflow<nsw> : i64
    %k = arith.addi %r, %j64 overflow<nsw> : i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %q = prog.offset %y[%k] : <f64> -> <f64>
    prog.store %v to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["i", "j"]}
  prog.return
}

// -----

// Nests inside nests and inside loops: the outer first, the inner moved
// with its body. A counter read as an index is the counter cast back.
// CHECK-LABEL: prog.proc @nested(
// CHECK:         scf.for %[[R:.*]] = {{.*}} : i64 {
// CHECK:           scf.for %[[I:.*]] = {{.*}} : i64 {
// CHECK:             scf.for %[[J:.*]] = {{.*}} : i64 {
// CHECK-NEXT:          %[[IX:.*]] = arith.index_cast %[[J]] : i64 to index
// CHECK-NEXT:          %[[Y:.*]] = arith.index_cast %[[IX]] : index to i32
// CHECK-NEXT:          prog.store %[[Y]] to
// CHECK-NEXT:        } {scaly.name = "j"}
// CHECK-NEXT:      } {scaly.name = "i"}
// CHECK-NEXT:    } {scaly.name = "r"}
prog.proc @nested(%y: !prog.ptr<i32>, %w: !prog.ptr<i32>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>, workspace = 0 : i64} {
  %c0_i64 = arith.constant 0 : i64
  %c2_i64 = arith.constant 2 : i64
  %c1_i64 = arith.constant 1 : i64
  scf.for %r = %c0_i64 to %c2_i64 step %c1_i64 : i64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
      scf.parallel (%j) = (%c0) to (%c2) step (%c1) {
        %y32 = arith.index_cast %j : index to i32
        prog.store %y32 to %y[0] : i32 into <i32>
        scf.reduce
      } {scaly.names = ["j"]}
      scf.reduce
    } {scaly.names = ["i"]}
  } {scaly.name = "r"}
  prog.return
}

// -----

// A nest without names generates unnamed loops (the C printer names them).
// CHECK-LABEL: prog.proc @unnamed(
// CHECK:         scf.for
// CHECK-NOT:       scaly.name
// CHECK:         prog.return
prog.proc @unnamed(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f64
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %i64 = arith.index_cast %i : index to i64
    %p = prog.offset %y[%i64] : <f64> -> <f64>
    prog.store %z to %p[0] : f64 into <f64>
    scf.reduce
  }
  prog.return
}
