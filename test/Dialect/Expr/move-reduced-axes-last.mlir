// RUN: scaly-opt %s -split-input-file --scaly-plan-placement="scalarize-limit=4" --scaly-move-reduced-axes-last | FileCheck %s
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-move-reduced-axes-last --scaly-form-fused-ops --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s --check-prefix=LOWER
// RUN: not scaly-opt %s -split-input-file --scaly-move-reduced-axes-last 2>&1 | FileCheck %s --check-prefix=UNPLANNED
//
// A large reduction over several axes that are not the trailing ones reduces
// a transpose with them moved last (kept axes first, reduced axes in order),
// planned into a workspace window (stored, not marked); the reduction then
// reduces its trailing axes. One axis (a strided run), trailing axes and
// small operands are left alone.

// UNPLANNED: error: 'expr.func' op has no scalarize limit (expr.scalarize_limit): run scaly-plan-placement before scaly-move-reduced-axes-last

// CHECK-LABEL: expr.func @middle(
// CHECK:         %[[T:.*]] = expr.transpose %arg0 [1, 0, 2] {expr.place = [#expr.place<workspace>]} : tensor<3x4x5xf64> to tensor<4x3x5xf64>
// CHECK-NEXT:    expr.reduce sum %[[T]] axes [1, 2] {{.*}}: tensor<4x3x5xf64> to tensor<4xf64>
// The copy with the reduced axes last, by one nest in the transposed order,
// then one contiguous sum of 15 per result element (4: scalars).
// LOWER-LABEL: prog.proc @middle(
// LOWER:         %[[W:.*]] = prog.window
// LOWER:         scf.for %{{.*}} = %c0_i64 to %c4_i64
// LOWER:           scf.for %{{.*}} = %c0_i64{{.*}} to %c3_i64
// LOWER:             scf.for %{{.*}} = %c0_i64{{.*}} to %c5_i64
// LOWER:               prog.store {{.*}} to %{{.*}}[0]
// LOWER-COUNT-4: prog.reduce "sum" %{{.*}} count 15 stride 1
// LOWER-NEXT:    prog.store
// LOWER-NEXT:    prog.return
expr.func @middle(%x: tensor<3x4x5xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %s = expr.reduce sum %x axes [0, 2] : tensor<3x4x5xf64> to tensor<4xf64>
  expr.return %s : tensor<4xf64>
}

// -----

// Negative: trailing axes, one axis, and a small operand keep their form.
// CHECK-LABEL: expr.func @kept(
// CHECK-NOT:     expr.transpose
// CHECK:         expr.reduce sum %arg0 axes [1, 2]
// CHECK-NEXT:    expr.reduce sum %arg0 axes [0] {
// CHECK-NEXT:    expr.reduce sum %arg1 axes [0, 2]
// CHECK-NOT:     expr.transpose
expr.func @kept(%x: tensor<3x4x5xf64>, %s: tensor<2x1x2xf64>) -> (tensor<3xf64>, tensor<4x5xf64>, tensor<1xf64>) attributes {arg_names = ["x", "s"], res_names = ["a", "b", "c"]} {
  %a = expr.reduce sum %x axes [1, 2] : tensor<3x4x5xf64> to tensor<3xf64>
  %b = expr.reduce sum %x axes [0] : tensor<3x4x5xf64> to tensor<4x5xf64>
  %c = expr.reduce sum %s axes [0, 2] : tensor<2x1x2xf64> to tensor<1xf64>
  expr.return %a, %b, %c : tensor<3xf64>, tensor<4x5xf64>, tensor<1xf64>
}

// -----

// Kept and reduced axes interleaved (rank 4, axes [0, 2]), a maximum, and a
// reduction in a loop body: each reduces a transpose with the kept axes
// first; a marked operand is left to scaly-form-fused-ops (a group the
// transpose's nest reads).
// CHECK-LABEL: expr.func @interleaved(
// CHECK:         %[[T:.*]] = expr.transpose %arg0 [1, 3, 0, 2] {{.*}}: tensor<3x4x5x6xf64> to tensor<4x6x3x5xf64>
// CHECK-NEXT:    expr.reduce max %[[T]] axes [2, 3] {{.*}}: tensor<4x6x3x5xf64> to tensor<4x6xf64>
// CHECK:         expr.loop 2
// CHECK:           %[[N:.*]] = expr.neg
// CHECK-NEXT:      %[[L:.*]] = expr.transpose %[[N]] [1, 0, 2]
// CHECK-NEXT:      expr.reduce sum %[[L]] axes [1, 2]
// LOWER-LABEL: prog.proc @interleaved(
// LOWER:         prog.reduce "max" %{{.*}} count 15 stride 1
// LOWER:         scf.for
// LOWER:           arith.negf
// LOWER:           prog.reduce "sum" %{{.*}} count 15 stride 1
expr.func @interleaved(%x: tensor<3x4x5x6xf64>, %s: tensor<2x3x4x5xf64>) -> (tensor<4x6xf64>, tensor<2x4xf64>) attributes {arg_names = ["x", "s"], res_names = ["m", "r"]} {
  %m = expr.reduce max %x axes [0, 2] : tensor<3x4x5x6xf64> to tensor<4x6xf64>
  %r = expr.loop 2 (%s) : (tensor<2x3x4x5xf64>) -> tensor<2x4xf64> {
  ^bb0(%slice: tensor<3x4x5xf64>):
    %n = expr.neg %slice : tensor<3x4x5xf64>
    %t = expr.reduce sum %n axes [0, 2] : tensor<3x4x5xf64> to tensor<4xf64>
    expr.yield %t : tensor<4xf64>
  }
  expr.return %m, %r : tensor<4x6xf64>, tensor<2x4xf64>
}
