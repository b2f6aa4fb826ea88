// RUN: scaly-opt %s -split-input-file --scaly-tile-copies | FileCheck %s
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-tile-copies,scaly-parallel-to-loops))' | FileCheck %s --check-prefix=LOOPS
//
// A nest carrying a copy plan (scaly.copy_plan) is written in register
// blocks: here y = -x.T with y 6 x 10 and x 10 x 6, blocks of 4 x 4 rows
// outermost. Each element of a block is cloned from the nest's body with
// the counters at its row and column and named b<row><column>; each block
// row is one store of 4 values; columns 8-9 and rows 4-5 are left over as
// plain loops (the body cloned whole).

// CHECK-LABEL: prog.proc @rows(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     scf.parallel
// CHECK:         scf.for %[[BI:.*]] = %c0_i64{{.*}} to %c4_i64{{.*}} step %c4_i64{{.*}} : i64 {
// CHECK:           scf.for %[[BJ:.*]] = %c0_i64{{.*}} to %c8_i64{{.*}} step %c4_i64{{.*}} : i64 {
// CHECK:             arith.negf {{.*}} {scaly.name = "b00"}
// CHECK:             arith.negf {{.*}} {scaly.name = "b10"}
// CHECK:             arith.negf {{.*}} {scaly.name = "b33"}
// CHECK-COUNT-4:     prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64, f64, f64 into <f64>
// CHECK:           } {scaly.name = "j"}
// CHECK:         } {scaly.name = "i"}
// CHECK:         scf.for {{.*}} = %c0_i64{{.*}} to %c4_i64{{.*}} step %c1_i64
// CHECK:           scf.for {{.*}} = %c8_i64{{.*}} to %c10_i64{{.*}} step %c1_i64
// CHECK:             prog.store %{{.*}} to %{{.*}}[0] : f64 into <f64>
// CHECK:         scf.for {{.*}} = %c4_i64{{.*}} to %c6_i64{{.*}} step %c1_i64
// CHECK:           scf.for {{.*}} = %c0_i64{{.*}} to %c10_i64{{.*}} step %c1_i64
// CHECK:             prog.store %{{.*}} to %{{.*}}[0] : f64 into <f64>
// CHECK-NOT:     scf.parallel
// CHECK:         prog.return
// LOOPS-LABEL: prog.proc @rows(
// LOOPS-NOT:     scf.parallel
// LOOPS:         prog.return
prog.proc @rows(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 60>, output_sizes = array<i64: 60>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c10) step (%c1, %c1) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c6_i64 = arith.constant 6 : i64
    %s = arith.muli %j64, %c6_i64 overflow<nsw> : i64
    %k = arith.addi %s, %i64 overflow<nsw> : i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %n = arith.negf %v : f64
    %c10_i64 = arith.constant 10 : i64
    %r = arith.muli %i64, %c10_i64 overflow<nsw> : i64
    %o = arith.addi %r, %j64 overflow<nsw> : i64
    %q = prog.offset %y[%o] : <f64> -> <f64>
    prog.store %n to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, scaly.names = ["i", "j"]}
  prog.return
}

// -----

// Streamed lines (rows of 8 doubles, one 64-byte line each): the blocks
// under a run-time test that y is 64-byte aligned, the plan's `unaligned`
// nest (tiles of 8 columns, element-aligned streaming) in the other branch.
// A value read at a fixed place (the scale s) is loaded once per block.
// CHECK-LABEL: prog.proc @lines(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[A:.*]] = prog.is_aligned %[[Y]], 64
// CHECK-NEXT:    scf.if %[[A]] {
// CHECK:           scf.for {{.*}} step %c8_i64
// CHECK:             scf.for {{.*}} step %c8_i64
// CHECK-COUNT-1:       prog.load %[[S]][0]
// CHECK-NOT:           prog.load %[[S]][0]
// CHECK-COUNT-8:       prog.store {{.*}} {streaming}
// CHECK:         } else {
// CHECK:           scf.for {{.*}} step %c8_i64
// CHECK-COUNT-4:       prog.store {{.*}} {element_aligned, streaming}
// CHECK:           } {scaly.name = "t"}
// CHECK-NEXT:    }
// CHECK-NOT:     scf.parallel
prog.proc @lines(%x: !prog.ptr<const f64>, %sc: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "y", "w"], entry, input_sizes = array<i64: 64, 1>, output_sizes = array<i64: 64>, workspace = 0 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %i64 = arith.index_cast %i : index to i64
    %j64 = arith.index_cast %j : index to i64
    %c8_i64 = arith.constant 8 : i64
    %s = arith.muli %j64, %c8_i64 overflow<nsw> : i64
    %k = arith.addi %s, %i64 overflow<nsw> : i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %f = prog.load %sc[0] : <const f64> -> f64
    %n = arith.mulf %v, %f : f64
    %r = arith.muli %i64, %c8_i64 overflow<nsw> : i64
    %o = arith.addi %r, %j64 overflow<nsw> : i64
    %q = prog.offset %y[%o] : <f64> -> <f64>
    prog.store %n to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 8 : i64}}, scaly.names = ["i", "j"]}
  prog.return
}
