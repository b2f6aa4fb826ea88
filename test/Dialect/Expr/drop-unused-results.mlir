// RUN: scaly-opt %s --split-input-file --scaly-drop-unused-results | FileCheck %s
//
// A result of a kept function that no call uses is removed from the
// function (return, type, res_names) and every call, with the work that fed
// only it, also inside loops; to a fixed point through callees. Entries keep
// their signature, so do functions a map or scan references, and nothing
// changes without a marked entry.

// CHECK-LABEL: expr.func @top(
// CHECK:         expr.loop 8
// CHECK:           %[[C:.*]] = expr.call @step(%{{.*}}, %{{.*}}) {block} : (tensor<f64>, tensor<f64>) -> tensor<f64>
// CHECK-NEXT:      expr.yield %[[C]] : tensor<f64>
// CHECK-LABEL: expr.func @step(
// CHECK-SAME:    -> tensor<f64> attributes {arg_names = ["s", "u"], block, res_names = ["sn"]}
// CHECK-NOT:     expr.math{{ +}}cos
// CHECK:         expr.call @inner(%{{.*}}) {block} : (tensor<f64>) -> tensor<f64>
// CHECK-NOT:     expr.math{{ +}}cos
// CHECK:         expr.return %{{.*}} : tensor<f64>
// CHECK-LABEL: expr.func @inner(
// CHECK-SAME:    -> tensor<f64>
// CHECK:         expr.math{{ +}}exp
// CHECK-NOT:     expr.math{{ +}}sin
expr.func @top(%s0: tensor<f64>, %us: tensor<8xf64>) -> tensor<f64> attributes {arg_names = ["s0", "us"], res_names = ["out"], entry} {
  %r = expr.loop 8 (%s0, %us) {carried = 1 : i64} : (tensor<f64>, tensor<8xf64>) -> tensor<f64> {
  ^bb0(%s: tensor<f64>, %u: tensor<f64>):
    %c:2 = expr.call @step(%s, %u) {block} : (tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    expr.yield %c#0 : tensor<f64>
  }
  expr.return %r : tensor<f64>
}
expr.func @step(%s: tensor<f64>, %u: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["s", "u"], res_names = ["sn", "y"], block} {
  %a = expr.add %s, %u : tensor<f64>
  %y = expr.math cos %a : tensor<f64>
  %i:2 = expr.call @inner(%a) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  %z = expr.mul %y, %i#1 : tensor<f64>
  %n = expr.add %a, %i#0 : tensor<f64>
  expr.return %n, %z : tensor<f64>, tensor<f64>
}
expr.func @inner(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["p", "q"], block} {
  %p = expr.math exp %x : tensor<f64>
  %q = expr.math sin %x : tensor<f64>
  expr.return %p, %q : tensor<f64>, tensor<f64>
}

// -----

// A result one call uses stays (another call not using it changes nothing);
// an entry keeps every result although its own caller drops one.
// CHECK-LABEL: expr.func @main(
// CHECK:         expr.call @pair(%{{.*}}) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
// CHECK:         expr.call @pair(%{{.*}}) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
// CHECK:         expr.call @other(%{{.*}}) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
// CHECK-LABEL: expr.func @pair(
// CHECK-SAME:    -> (tensor<f64>, tensor<f64>)
// CHECK-LABEL: expr.func @other(
// CHECK-SAME:    -> (tensor<f64>, tensor<f64>)
expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %a:2 = expr.call @pair(%x) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  %b:2 = expr.call @pair(%x) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  %c:2 = expr.call @other(%x) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  %s = expr.add %a#0, %b#1 : tensor<f64>
  %t = expr.add %s, %c#0 : tensor<f64>
  expr.return %t : tensor<f64>
}
expr.func @pair(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["p", "q"], block} {
  %p = expr.math exp %x : tensor<f64>
  %q = expr.math sin %x : tensor<f64>
  expr.return %p, %q : tensor<f64>, tensor<f64>
}
expr.func @other(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["p", "q"], block, entry} {
  %p = expr.math exp %x : tensor<f64>
  %q = expr.math sin %x : tensor<f64>
  expr.return %p, %q : tensor<f64>, tensor<f64>
}

// -----

// A function a map references keeps its results.
// CHECK-LABEL: expr.func @mapped(
// CHECK:         expr.map @pair2(%{{.*}}) count 4
// CHECK:         expr.call @pair2(%{{.*}}) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
// CHECK-LABEL: expr.func @pair2(
// CHECK-SAME:    -> (tensor<f64>, tensor<f64>)
expr.func @mapped(%xs: tensor<4xf64>, %x: tensor<f64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<f64>) attributes {arg_names = ["xs", "x"], res_names = ["a", "b", "c"], entry} {
  %m:2 = expr.map @pair2(%xs) count 4 : (tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  %c:2 = expr.call @pair2(%x) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  expr.return %m#0, %m#1, %c#0 : tensor<4xf64>, tensor<4xf64>, tensor<f64>
}
expr.func @pair2(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["p", "q"], block} {
  %p = expr.math exp %x : tensor<f64>
  %q = expr.math sin %x : tensor<f64>
  expr.return %p, %q : tensor<f64>, tensor<f64>
}

// -----

// Without a marked entry nothing changes.
// CHECK-LABEL: expr.func @unmarked(
// CHECK:         expr.call @pair3(%{{.*}}) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
expr.func @unmarked(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a:2 = expr.call @pair3(%x) {block} : (tensor<f64>) -> (tensor<f64>, tensor<f64>)
  expr.return %a#0 : tensor<f64>
}
expr.func @pair3(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["p", "q"], block} {
  %p = expr.math exp %x : tensor<f64>
  %q = expr.math sin %x : tensor<f64>
  expr.return %p, %q : tensor<f64>, tensor<f64>
}
