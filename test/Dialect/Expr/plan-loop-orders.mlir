// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" | FileCheck %s
// RUN: not scaly-opt %s --scaly-plan-loop-orders="scalarize-limit=-2" 2>&1 | FileCheck %s --check-prefix=BAD
//
// "rows": a reduction over one axis that is not the last, into a large
// result; not the last axis's, nor one into a small result. "blocks": a
// large float value computed with arithmetic through a transpose that moves
// the last axis (the transpose itself too, when it is stored); not through
// a libm call, not a transpose that keeps the last axis, not with a last
// axis under 4, not on integers.

// CHECK-LABEL: expr.func @reductions(
// CHECK:         expr.reduce sum %{{.*}} axes [0] {scaly.loop_order = "rows"} : tensor<8x8xf64> to tensor<8xf64>
// CHECK:         expr.reduce sum %{{.*}} axes [1] : tensor<8x8xf64> to tensor<8xf64>
// CHECK:         expr.reduce sum %{{.*}} axes [0] : tensor<8x2xf64> to tensor<2xf64>
expr.func @reductions(%x: tensor<8x8xf64>, %y: tensor<8x2xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<2xf64>) attributes {arg_names = ["x", "y"], res_names = ["a", "b", "c"]} {
  %a = expr.reduce sum %x axes [0] : tensor<8x8xf64> to tensor<8xf64>
  %b = expr.reduce sum %x axes [1] : tensor<8x8xf64> to tensor<8xf64>
  %c = expr.reduce sum %y axes [0] : tensor<8x2xf64> to tensor<2xf64>
  expr.return %a, %b, %c : tensor<8xf64>, tensor<8xf64>, tensor<2xf64>
}

// -----

// CHECK-LABEL: expr.func @transposes(
// CHECK:         expr.transpose %{{.*}} [1, 0] {scaly.fused, scaly.loop_order = "blocks"}
// CHECK:         expr.add {{.*}} {scaly.fused, scaly.loop_order = "blocks"}
// CHECK:         %[[T2:.*]] = expr.transpose %{{.*}} [1, 0] {scaly.fused, scaly.loop_order = "blocks"}
// CHECK:         expr.math sin %[[T2]] {scaly.fused} :
// CHECK:         expr.transpose %{{.*}} [1, 0, 2] {scaly.fused} :
// CHECK:         expr.transpose %{{.*}} [1, 0] {scaly.fused} : tensor<3x8xf64> to tensor<8x3xf64>
// CHECK:         expr.transpose %{{.*}} [1, 0] {scaly.fused} : tensor<8x8xi64> to tensor<8x8xi64>
expr.func @transposes(%x: tensor<8x8xf64>, %z: tensor<2x4x4xf64>, %n: tensor<3x8xf64>, %k: tensor<8x8xi64>) -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<4x2x4xf64>, tensor<8x3xf64>, tensor<8x8xi64>) attributes {arg_names = ["x", "z", "n", "k"], res_names = ["a", "b", "c", "d", "e"]} {
  %t = expr.transpose %x [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
  %a = expr.add %t, %x : tensor<8x8xf64>
  %t2 = expr.transpose %x [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
  %b = expr.math sin %t2 : tensor<8x8xf64>
  %c = expr.transpose %z [1, 0, 2] : tensor<2x4x4xf64> to tensor<4x2x4xf64>
  %d = expr.transpose %n [1, 0] : tensor<3x8xf64> to tensor<8x3xf64>
  %e = expr.transpose %k [1, 0] : tensor<8x8xi64> to tensor<8x8xi64>
  expr.return %a, %b, %c, %d, %e : tensor<8x8xf64>, tensor<8x8xf64>, tensor<4x2x4xf64>, tensor<8x3xf64>, tensor<8x8xi64>
}

// -----

// Reading a row of the operand through a view (a contiguous slice, then a
// reshape: both read its storage) is reading memory: still blocks.
// CHECK-LABEL: expr.func @row_view(
// CHECK:         expr.add {{.*}} {scaly.fused, scaly.loop_order = "blocks"}
expr.func @row_view(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
  %r = expr.slice %x starts [0, 0] steps [1, 1] : tensor<8x8xf64> to tensor<1x8xf64>
  %v = expr.reshape %r : tensor<1x8xf64> to tensor<8xf64>
  %b = expr.broadcast %v : tensor<8xf64> to tensor<8x8xf64>
  %y = expr.add %t, %b : tensor<8x8xf64>
  expr.return %y : tensor<8x8xf64>
}

// BAD: scaly-plan-loop-orders: scalarize-limit must be at least 0, got -2
