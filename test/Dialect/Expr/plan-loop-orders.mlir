// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" | FileCheck %s
// RUN: not scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" 2>&1 | FileCheck %s --check-prefix=NOPLACE
// RUN: not scaly-opt %s --scaly-plan-loop-orders="scalarize-limit=-2" 2>&1 | FileCheck %s --check-prefix=BAD
// The same nested on each function, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-plan-fusion{scalarize-limit=4},scaly-plan-placement{scalarize-limit=4},scaly-plan-loop-orders{scalarize-limit=4}))' | FileCheck %s
// RUN: not scaly-opt %s --pass-pipeline='builtin.module(expr.func(scaly-plan-loop-orders{scalarize-limit=-2}))' 2>&1 | FileCheck %s --check-prefix=BAD
//
// "rows": a reduction over one axis that is not the last, into a large
// result; not the last axis's, nor one into a small result.

// CHECK-LABEL: expr.func @reductions(
// CHECK:         expr.reduce sum %{{.*}} axes [0] {expr.place = [#expr.place<output 0>], scaly.loop_order = "rows"} : tensor<8x8xf64> to tensor<8xf64>
// CHECK:         expr.reduce sum %{{.*}} axes [1] {expr.place = [#expr.place<output 1>]} : tensor<8x8xf64> to tensor<8xf64>
// CHECK:         expr.reduce sum %{{.*}} axes [0] {expr.place = [#expr.place<registers>]} : tensor<8x2xf64> to tensor<2xf64>
expr.func @reductions(%x: tensor<8x8xf64>, %y: tensor<8x2xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<2xf64>) attributes {arg_names = ["x", "y"], res_names = ["a", "b", "c"]} {
  %a = expr.reduce sum %x axes [0] : tensor<8x8xf64> to tensor<8xf64>
  %b = expr.reduce sum %x axes [1] : tensor<8x8xf64> to tensor<8xf64>
  %c = expr.reduce sum %y axes [0] : tensor<8x2xf64> to tensor<2xf64>
  expr.return %a, %b, %c : tensor<8xf64>, tensor<8xf64>, tensor<2xf64>
}

// -----

// A transposed copy's plan depends on where its result goes: without
// scaly-plan-placement's expr.place first, the pass refuses it (the copy
// plans are tested in plan-loop-orders-copies.mlir).
// CHECK-LABEL: expr.func @transposes(
// CHECK:         expr.transpose %{{.*}} [1, 0] {expr.place = [#expr.place<workspace>], scaly.fused}
// CHECK:         expr.add %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, expr.place = [#expr.place<output 0>], scaly.fused}
// NOPLACE: error: scaly-plan-loop-orders: a transposed copy needs scaly-plan-placement's expr.place first (where its result goes decides its stores)
expr.func @transposes(%x: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["x"], res_names = ["a"]} {
  %t = expr.transpose %x [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
  %a = expr.add %t, %x : tensor<8x8xf64>
  expr.return %a : tensor<8x8xf64>
}

// BAD: scaly-plan-loop-orders: scalarize-limit must be at least 0, got -2
