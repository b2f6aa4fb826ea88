// RUN: scaly-opt %s --split-input-file --scaly-hoist-invariants | FileCheck %s
// RUN: scaly-opt %s --split-input-file --pass-pipeline='builtin.module(expr.func(scaly-hoist-invariants))' | FileCheck %s
//
// Work an expr.loop repeats identically in every iteration moves before the
// loop; work that depends on the iteration (its block arguments, carried
// values) stays; constants stay where they are.

// CHECK-LABEL: expr.func @invariant_op(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<100xf64>, %[[P:[^:]*]]: tensor<f64>
// CHECK:         %[[S:.*]] = expr.math{{ +}}sin %[[P]] : tensor<f64>
// CHECK:         expr.loop 100
// CHECK:         ^bb0(%[[XI:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[C:.*]] = expr.constant dense<2.0
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

// Loop fission: the inner loop's work on %x (invariant in the outer loop)
// becomes a loop of its own, computed once before the outer loop; the inner
// loop reads its results as slices. The seed-dependent work stays.
// CHECK-LABEL: expr.func @sweeps(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<100xf64>, %[[SEEDS:[^:]*]]: tensor<3x100xf64>
// CHECK:         %[[PRE:.*]] = expr.loop 100{{ ?}}(%[[X]]) {{.*}}: (tensor<100xf64>) -> tensor<100xf64> {
// CHECK-NEXT:    ^bb0(%[[XI:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[COS:.*]] = expr.math{{ +}}cos %[[XI]]
// CHECK-NEXT:      expr.yield %[[COS]]
// CHECK:         expr.loop 3{{ ?}}(%[[SEEDS]])
// CHECK:           expr.loop 100{{ ?}}(%{{[^,]*}}, %[[PRE]]) :
// CHECK-NOT:         expr.math
// CHECK:             expr.mul
// CHECK:         expr.return
expr.func @sweeps(%x: tensor<100xf64>, %seeds: tensor<3x100xf64>) -> tensor<3x100xf64> attributes {arg_names = ["x", "seeds"], res_names = ["j"]} {
  %j = expr.loop 3 (%seeds) : (tensor<3x100xf64>) -> tensor<3x100xf64> {
  ^bb0(%seed: tensor<100xf64>):
    %col = expr.loop 100 (%seed, %x) : (tensor<100xf64>, tensor<100xf64>) -> tensor<100xf64> {
    ^bb0(%t: tensor<f64>, %xi: tensor<f64>):
      %c = expr.math cos %xi : tensor<f64>
      %d = expr.mul %t, %c : tensor<f64>
      expr.yield %d : tensor<f64>
    }
    expr.yield %col : tensor<100xf64>
  }
  expr.return %j : tensor<3x100xf64>
}

// -----

// Nothing moves when everything depends on the iteration: a carried value
// (a scan's state) is never invariant, even if its initial value is.
// CHECK-LABEL: expr.func @carried(
// CHECK:         expr.loop 10
// CHECK-NEXT:    ^bb0(%[[S:.*]]: tensor<f64>, %[[U:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[SIN:.*]] = expr.math{{ +}}sin %[[S]]
// CHECK-NEXT:      %[[N:.*]] = expr.add %[[SIN]], %[[U]]
expr.func @carried(%s0: tensor<f64>, %us: tensor<10xf64>) -> tensor<f64> attributes {arg_names = ["s0", "us"], res_names = ["s"]} {
  %s = expr.loop 10 (%s0, %us) {carried = 1 : i64} : (tensor<f64>, tensor<10xf64>) -> tensor<f64> {
  ^bb0(%si: tensor<f64>, %u: tensor<f64>):
    %sin = expr.math sin %si : tensor<f64>
    %n = expr.add %sin, %u : tensor<f64>
    expr.yield %n : tensor<f64>
  }
  expr.return %s : tensor<f64>
}
