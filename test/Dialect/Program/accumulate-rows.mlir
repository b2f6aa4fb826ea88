// RUN: scaly-opt %s -split-input-file --scaly-accumulate-rows | FileCheck %s
// RUN: scaly-opt %s -split-input-file --scaly-accumulate-rows="rows-per-pass=2" | FileCheck %s --check-prefix=TWO
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-accumulate-rows,scaly-parallel-to-loops))' | FileCheck %s --check-prefix=LOOPS
//
// y = x.sum(axis=0), x 7 x 80: a nest over y's elements, each summing its
// column in a row loop marked scaly.accumulate_rows. The pass moves the row
// loop out: one nest stores row 0 into y; a loop over rows 1-4 by 4 holds a
// nest that loads y[j], adds rows r, r+1, r+2, r+3 in order and stores it;
// a loop over rows 5-6 by 1, one row each.

// CHECK-LABEL: prog.proc @colsum(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         scf.parallel (%[[J:.*]]) = {{.*}} {
// CHECK-NEXT:      %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      %[[P:.*]] = prog.offset %[[X]][%[[J64]]]
// CHECK-NEXT:      %[[X0:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:      %[[Q:.*]] = prog.offset %[[Y]][%[[J64]]]
// CHECK-NEXT:      prog.store %[[X0]] to %[[Q]][0]
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    } {scaly.names = ["j"]}
// CHECK:         scf.for %[[R:.*]] = %c1_i64 to %c5_i64 step %c4_i64 : i64 {
// CHECK:           %[[R1:.*]] = arith.addi %[[R]], %c1_i64
// CHECK:           %[[R2:.*]] = arith.addi %[[R]], %c2_i64
// CHECK:           %[[R3:.*]] = arith.addi %[[R]], %c3_i64
// CHECK:           scf.parallel (%[[K:.*]]) = {{.*}} {
// CHECK-NEXT:        %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK:             arith.muli %[[R]], %c80_i64
// CHECK:             %[[A:.*]] = prog.load
// CHECK:             arith.muli %[[R1]], %c80_i64
// CHECK:             %[[B:.*]] = prog.load
// CHECK:             arith.muli %[[R2]], %c80_i64
// CHECK:             %[[C:.*]] = prog.load
// CHECK:             arith.muli %[[R3]], %c80_i64
// CHECK:             %[[D:.*]] = prog.load
// CHECK-NEXT:        %[[YP:.*]] = prog.offset %[[Y]][%[[K64]]]
// CHECK-NEXT:        %[[ACC:.*]] = prog.load %[[YP]][0]
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[ACC]], %[[A]]
// CHECK-NEXT:        %[[S2:.*]] = arith.addf %[[S1]], %[[B]]
// CHECK-NEXT:        %[[S3:.*]] = arith.addf %[[S2]], %[[C]]
// CHECK-NEXT:        %[[S4:.*]] = arith.addf %[[S3]], %[[D]]
// CHECK-NEXT:        %[[YQ:.*]] = prog.offset %[[Y]][%[[K64]]]
// CHECK-NEXT:        prog.store %[[S4]] to %[[YQ]][0]
// CHECK-NEXT:        scf.reduce
// CHECK-NEXT:      } {scaly.names = ["j"]}
// CHECK-NEXT:    } {scaly.name = "r"}
// CHECK:         scf.for %{{.*}} = %c5_i64{{.*}} to %c7_i64 step %c1_i64{{.*}} : i64 {
// CHECK:             arith.addf
// CHECK-NOT:         arith.addf
// CHECK:           } {scaly.names = ["j"]}
// CHECK-NEXT:    } {scaly.name = "r"}
// CHECK-NOT:     scaly.accumulate_rows
// CHECK:         prog.return
// TWO-LABEL: prog.proc @colsum(
// TWO:         scf.for %{{.*}} = %c1_i64 to %c7_i64 step %c2_i64
// TWO-COUNT-2:   arith.addf
// TWO-NOT:       arith.addf
// TWO:         prog.return
// LOOPS-LABEL: prog.proc @colsum(
// LOOPS-NOT:     scf.parallel
// LOOPS-COUNT-3: } {scaly.name = "j"}
// LOOPS-NOT:     scf.parallel
// LOOPS:         prog.return
prog.proc @colsum(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 560>, output_sizes = array<i64: 80>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c80 = arith.constant 80 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c80) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %p = prog.offset %x[%j64] : <const f64> -> <const f64>
    %x0 = prog.load %p[0] : <const f64> -> f64
    %c1_i64 = arith.constant 1 : i64
    %c7_i64 = arith.constant 7 : i64
    %s = scf.for %r = %c1_i64 to %c7_i64 step %c1_i64 iter_args(%acc = %x0) -> (f64) : i64 {
      %c80_i64 = arith.constant 80 : i64
      %m = arith.muli %r, %c80_i64 overflow<nsw> : i64
      %k = arith.addi %m, %j64 overflow<nsw> : i64
      %pk = prog.offset %x[%k] : <const f64> -> <const f64>
      %v = prog.load %pk[0] : <const f64> -> f64
      %n = arith.addf %acc, %v : f64
      scf.yield %n : f64
    } {scaly.accumulate_rows, scaly.name = "r"}
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %s to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["j"]}
  prog.return
}

// -----

// A maximum: each row's combination (NaN-propagating compare and select)
// is cloned per row in order, reading the accumulator the row before left.
// CHECK-LABEL: prog.proc @colmax(
// CHECK:         scf.for %{{.*}} step %c4_i64
// CHECK-COUNT-4:     arith.select
// CHECK:         scf.for %{{.*}} step %c1_i64
// CHECK-COUNT-1:     arith.select
// CHECK-NOT:         arith.select
// CHECK:         prog.return
prog.proc @colmax(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 560>, output_sizes = array<i64: 80>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c80 = arith.constant 80 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%j) = (%c0) to (%c80) step (%c1) {
    %j64 = arith.index_cast %j : index to i64
    %p = prog.offset %x[%j64] : <const f64> -> <const f64>
    %x0 = prog.load %p[0] : <const f64> -> f64
    %c1_i64 = arith.constant 1 : i64
    %c6_i64 = arith.constant 6 : i64
    %s = scf.for %r = %c1_i64 to %c6_i64 step %c1_i64 iter_args(%acc = %x0) -> (f64) : i64 {
      %c80_i64 = arith.constant 80 : i64
      %m = arith.muli %r, %c80_i64 overflow<nsw> : i64
      %k = arith.addi %m, %j64 overflow<nsw> : i64
      %pk = prog.offset %x[%k] : <const f64> -> <const f64>
      %v = prog.load %pk[0] : <const f64> -> f64
      %better = arith.cmpf oge, %acc, %v : f64
      %nan = arith.cmpf une, %acc, %acc : f64
      %keep = arith.ori %better, %nan : i1
      %n = arith.select %keep, %acc, %v : f64
      scf.yield %n : f64
    } {scaly.accumulate_rows, scaly.name = "r"}
    %q = prog.offset %y[%j64] : <f64> -> <f64>
    prog.store %s to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["j"]}
  prog.return
}
