// RUN: scaly-opt %s --split-input-file --loop-invariant-code-motion | FileCheck %s
// RUN: scaly-opt %s --split-input-file --pass-pipeline='builtin.module(expr.func(loop-invariant-code-motion))' | FileCheck %s
//
// expr.loop is a LoopLikeOpInterface: MLIR's own loop-invariant code motion
// moves the pure ops of its body whose operands come from outside the body
// before the loop (constants too, unlike scaly-hoist-invariants, which keeps
// them where they print inline); what reads the iteration's slice or a
// carried value stays.

// CHECK-LABEL: expr.func @invariant_op(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<100xf64>, %[[P:[^:]*]]: tensor<f64>
// CHECK-DAG:     %[[C:.*]] = expr.constant dense<2.0
// CHECK-DAG:     %[[S:.*]] = expr.math{{ +}}sin %[[P]] : tensor<f64>
// CHECK:         expr.loop 100
// CHECK:         ^bb0(%[[XI:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[M:.*]] = expr.mul %[[XI]], %[[S]]
// CHECK-NEXT:      %[[A:.*]] = expr.add %[[M]], %[[C]]
// CHECK-NEXT:      expr.yield %[[A]]
expr.func @invariant_op(%x: tensor<100xf64>, %p: tensor<f64>) -> tensor<100xf64> attributes {arg_names = ["x", "p"], res_names = ["y"]} {
  %y = expr.loop 100 (%x) : (tensor<100xf64>) -> tensor<100xf64> {
  ^bb0(%xi: tensor<f64>):
    %c = expr.constant dense<2.0> : tensor<f64>
    %s = expr.math sin %p : tensor<f64>
    %m = expr.mul %xi, %s : tensor<f64>
    %a = expr.add %m, %c : tensor<f64>
    expr.yield %a : tensor<f64>
  }
  expr.return %y : tensor<100xf64>
}

// -----

// A carried value's update depends on the iteration: nothing moves.
// CHECK-LABEL: expr.func @carried(
// CHECK:         expr.loop 10
// CHECK-NEXT:    ^bb0(%[[S:.*]]: tensor<f64>, %[[U:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[T:.*]] = expr.math{{ +}}tanh %[[S]]
// CHECK-NEXT:      %[[N:.*]] = expr.add %[[T]], %[[U]]
// CHECK-NEXT:      expr.yield %[[N]]
expr.func @carried(%s0: tensor<f64>, %u: tensor<10xf64>) -> tensor<f64> attributes {arg_names = ["s0", "u"], res_names = ["s"]} {
  %s = expr.loop 10 (%s0, %u) {carried = 1 : i64} : (tensor<f64>, tensor<10xf64>) -> tensor<f64> {
  ^bb0(%si: tensor<f64>, %ui: tensor<f64>):
    %t = expr.math tanh %si : tensor<f64>
    %n = expr.add %t, %ui : tensor<f64>
    expr.yield %n : tensor<f64>
  }
  expr.return %s : tensor<f64>
}
