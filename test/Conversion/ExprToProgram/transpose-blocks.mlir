// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program --scaly-tile-copies --scaly-parallel-to-loops | FileCheck %s
//
// Register blocks: scaly-plan-loop-orders plans a float result computed
// with arithmetic only through a transpose that moves the last axis
// (expr.copy_plan, plan-loop-orders-copies.mlir), the lowering hands the
// plan to the nest writing it, and scaly-tile-copies writes it in 4 x 4
// blocks of its last two axes, each
// element computed into a named value (scaly.name, printed as a C variable
// before the stores), each block row one store of four consecutive values;
// the leftover columns and rows are plain loops. Results with libm calls,
// integer results and transposes that keep the last axis get no plan and
// keep the plain nest (as does any value without a plan:
// transpose-unplanned.mlir).

// 6 x 10 result: one block row (rows 0-3), two block columns (0-7); columns
// 8-9 of rows 0-3 and rows 4-5 are plain loops.
// CHECK-LABEL: prog.proc @tplus(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      scf.for %[[J:.*]] = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:             arith.addf %{{.*}}, %{{.*}} {scaly.name = "b00"} : f64
// CHECK:             arith.addf %{{.*}}, %{{.*}} {scaly.name = "b33"} : f64
// CHECK:             prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64, f64, f64 into <f64>
// CHECK-COUNT-3:     prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64, f64, f64 into <f64>
// CHECK:           } {scaly.name = "j"}
// CHECK:         } {scaly.name = "i"}
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      scf.for %{{.*}} = %c8_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:         scf.for %{{.*}} = %c4_i64{{[_0-9]*}} to %c6_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
expr.func @tplus(%x: tensor<10x6xf64>) -> tensor<6x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x6xf64> to tensor<6x10xf64>
  %c = expr.constant dense<1.0> : tensor<6x10xf64>
  %0 = expr.add %t, %c : tensor<6x10xf64>
  expr.return %0 : tensor<6x10xf64>
}

// -----

// Three axes: a loop over the leading one around the blocks.
// CHECK-LABEL: prog.proc @batched(
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:        arith.constant {{.*}} : i64
// CHECK-NEXT:        arith.constant {{.*}} : i64
// CHECK-NEXT:        arith.constant {{.*}} : i64
// CHECK-NEXT:        scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
expr.func @batched(%x: tensor<3x4x8xf64>) -> tensor<3x8x4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [0, 2, 1] : tensor<3x4x8xf64> to tensor<3x8x4xf64>
  %0 = expr.mul %t, %t : tensor<3x8x4xf64>
  expr.return %0 : tensor<3x8x4xf64>
}

// -----

// Negative: a libm call keeps the plain nest (no block, no named values).
// CHECK-LABEL: prog.proc @with_sin(
// CHECK-NOT:     step 4
// CHECK-NOT:     scaly.name
// CHECK:         math.sin
expr.func @with_sin(%x: tensor<10x6xf64>) -> tensor<6x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x6xf64> to tensor<6x10xf64>
  %0 = expr.math sin %t : tensor<6x10xf64>
  expr.return %0 : tensor<6x10xf64>
}

// -----

// Negative: an integer result keeps the plain nest.
// CHECK-LABEL: prog.proc @ints(
// CHECK-NOT:     step 4
expr.func @ints(%x: tensor<10x6xi64>) -> tensor<6x10xi64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x6xi64> to tensor<6x10xi64>
  %0 = expr.add %t, %t : tensor<6x10xi64>
  expr.return %0 : tensor<6x10xi64>
}

// -----

// Negative: a transpose that keeps the last axis reads rows contiguously.
// CHECK-LABEL: prog.proc @keeps_last(
// CHECK-NOT:     step 4
expr.func @keeps_last(%x: tensor<4x3x8xf64>) -> tensor<3x4x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0, 2] : tensor<4x3x8xf64> to tensor<3x4x8xf64>
  %0 = expr.neg %t : tensor<3x4x8xf64>
  expr.return %0 : tensor<3x4x8xf64>
}

// -----

// A transpose that a matrix product also reads is stored once, in blocks
// (the product needs it in memory; that copy is the strided read); the
// elementwise result then reads the copy contiguously and keeps the plain
// nest. Both carry a plan (the plan follows the fusion marks); the lowering
// checks the plan's premise when it writes %y, finds the transpose stored by
// now, and lowers the plain nest.
// CHECK-LABEL: prog.proc @shared(
// CHECK:         scaly.name = "b00"
// CHECK:         prog.matmul
// CHECK-NOT:     scaly.name = "b00"
// CHECK:         prog.return
expr.func @shared(%x: tensor<16x12xf64>, %w: tensor<16x8xf64>, %v: tensor<16xf64>) -> (tensor<12x16xf64>, tensor<12x8xf64>) attributes {arg_names = ["x", "w", "v"], res_names = ["y", "m"]} {
  %t = expr.transpose %x [1, 0] : tensor<16x12xf64> to tensor<12x16xf64>
  %m = expr.matmul %t, %w : tensor<12x16xf64>, tensor<16x8xf64> to tensor<12x8xf64>
  %b = expr.broadcast %v : tensor<16xf64> to tensor<12x16xf64>
  %y = expr.mul %t, %b : tensor<12x16xf64>
  expr.return %y, %m : tensor<12x16xf64>, tensor<12x8xf64>
}
