// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program --scaly-tile-copies --scaly-parallel-to-loops | FileCheck %s
//
// Neither scaly-lower-to-program nor scaly-tile-copies decides a copy's
// blocks: without scaly-plan-loop-orders a transposed copy is the plain
// nest, and a plan written by hand is followed as written.

// No plan: one strided scalar read per element, no blocks.
// CHECK-LABEL: prog.proc @unplanned(
// CHECK-NOT:     step 4
// CHECK-NOT:     scaly.name = "b
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c6_i64{{[_0-9]*}} step %c1_i64
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64
// CHECK:         prog.return
expr.func @unplanned(%x: tensor<10x6xf64>) -> tensor<6x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x6xf64> to tensor<6x10xf64>
  %0 = expr.neg %t : tensor<6x10xf64>
  expr.return %0 : tensor<6x10xf64>
}

// -----

// A plan by hand, columns outermost: the block columns are the outer loop
// (0-8 by 4), the block rows the inner one; columns 8-9 and nothing else
// are left over.
// CHECK-LABEL: prog.proc @columns(
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64
// CHECK-COUNT-4:     prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64, f64, f64 into <f64>
// CHECK:           } {scaly.name = "i"}
// CHECK:         } {scaly.name = "j"}
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c1_i64
// CHECK:           scf.for %{{.*}} = %c8_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64
// CHECK-NOT:     scf.for
// CHECK:         prog.return
expr.func @columns(%x: tensor<10x8xf64>) -> tensor<8x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x8xf64> to tensor<8x10xf64>
  %0 = expr.neg %t {expr.copy_plan = {block = [4, 4], order = "columns", stores = "plain"}} : tensor<8x10xf64>
  expr.return %0 : tensor<8x10xf64>
}

// -----

// Tiles of 8 columns, blocks of 8 rows by 4 columns, plain stores: two
// tiles (0-16), then the 4 columns after them (16-20) in blocks, the rows
// 8-9 plain at the end.
// CHECK-LABEL: prog.proc @tiles(
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c16_i64{{[_0-9]*}} step %c8_i64
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c8_i64
// CHECK:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64
// CHECK-COUNT-8:       prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64, f64, f64 into <f64>
// CHECK:         } {scaly.name = "t"}
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c8_i64
// CHECK:           scf.for %{{.*}} = %c16_i64{{[_0-9]*}} to %c20_i64{{[_0-9]*}} step %c4_i64
// CHECK:         scf.for %{{.*}} = %c8_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64
expr.func @tiles(%x: tensor<20x10xf64>) -> tensor<10x20xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<20x10xf64> to tensor<10x20xf64>
  %0 = expr.neg %t {expr.copy_plan = {block = [8, 4], order = "tiles", stores = "plain", tile = 8}} : tensor<10x20xf64>
  expr.return %0 : tensor<10x20xf64>
}
