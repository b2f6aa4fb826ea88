// RUN: scaly-opt %s -split-input-file --scaly-sum-in-blocks | FileCheck %s
//
// s = sum(x * x) over 20000 elements, as the lowering emits it: a nest writes
// x * x whole into a window of 20000, the helper sums it (marked
// scaly.sum_in_blocks). The pass computes and sums two blocks of 8192 in a
// loop carrying the total from zero, then the 3616 left over, in a window of
// one block.

// CHECK-LABEL: prog.proc @sumsq(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[WIN:.*]] = prog.window %[[W]] size 8192
// CHECK-NOT:     scf.parallel
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[TOTAL:.*]] = scf.for %[[B:.*]] = %c0_i64 to %c2_i64 step %c1_i64 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f64) : i64 {
// CHECK-NEXT:      %[[BLK:.*]] = arith.constant 8192 : i64
// CHECK-NEXT:      %[[FIRST:.*]] = arith.muli %[[B]], %[[BLK]] overflow<nsw> : i64
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c8192_i64{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT:        %[[K:.*]] = arith.addi %[[FIRST]], %[[I]] overflow<nsw> : i64
// CHECK-NEXT:        %[[P:.*]] = prog.offset %[[X]][%[[K]]]
// CHECK-NEXT:        %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:        %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f64
// CHECK-NEXT:        %[[Q:.*]] = prog.offset %[[WIN]][%[[I]]]
// CHECK-NEXT:        prog.store %[[SQ]] to %[[Q]][0]
// CHECK-NEXT:      } {scaly.name = "i"}
// CHECK-NEXT:      %[[VIEW:.*]] = prog.offset %[[WIN]] : <f64> -> <const f64>
// CHECK-NEXT:      %[[PART:.*]] = prog.reduce "sum" %[[VIEW]] count 8192 stride 1 : <const f64> -> f64
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addf %[[ACC]], %[[PART]] : f64
// CHECK-NEXT:      scf.yield %[[NEXT]] : f64
// CHECK-NEXT:    } {scaly.name = "block"}
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %c3616_i64{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT:      %[[REST:.*]] = arith.constant 16384 : i64
// CHECK-NEXT:      arith.addi %[[REST]], %[[J]] overflow<nsw> : i64
// CHECK:         } {scaly.name = "i"}
// CHECK:         %[[LAST:.*]] = prog.reduce "sum" %{{.*}} count 3616 stride 1
// CHECK-NEXT:    %[[ALL:.*]] = arith.addf %[[TOTAL]], %[[LAST]] : f64
// CHECK-NEXT:    prog.store %[[ALL]] to %[[S]][0]
// CHECK-NOT:     scaly.sum_in_blocks
prog.proc @sumsq(%x: !prog.ptr<const f64>, %s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "s", "w"], entry, input_sizes = array<i64: 20000>, output_sizes = array<i64: 1>, workspace = 0 : i64} {
  %win = prog.window %w size 20000 : <f64> -> <f64>
  %c0 = arith.constant 0 : index
  %c20000 = arith.constant 20000 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c20000) step (%c1) {
    %k = arith.index_cast %i : index to i64
    %p = prog.offset %x[%k] : <const f64> -> <const f64>
    %v = prog.load %p[0] : <const f64> -> f64
    %sq = arith.mulf %v, %v : f64
    %q = prog.offset %win[%k] : <f64> -> <f64>
    prog.store %sq to %q[0] : f64 into <f64>
    scf.reduce
  } {scaly.names = ["i"]}
  %view = prog.offset %win : <f64> -> <const f64>
  %sum = prog.reduce "sum" %view count 20000 stride 1 {scaly.sum_in_blocks} : <const f64> -> f64
  prog.store %sum to %s[0] : f64 into <f64>
  prog.return
}
