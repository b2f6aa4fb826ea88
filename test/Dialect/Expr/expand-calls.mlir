// RUN: scaly-opt %s --scaly-expand-calls | FileCheck %s
//
// scaly-expand-calls inlines every expr.call without the block hint (also the
// calls a copied body brings in, and calls inside loop bodies and inside kept
// functions), keeps calls with {block}, and erases every function but the
// first (the entry) that is no longer referenced.

// CHECK-LABEL: expr.func @main(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2xf64>, %[[S:[^:]*]]: tensor<f64>
// CHECK-NEXT:    %[[B:.*]] = expr.broadcast %[[S]] : tensor<f64> to tensor<2xf64>
// CHECK-NEXT:    %[[M1:.*]] = expr.mul %[[X]], %[[B]] : tensor<2xf64>
// CHECK-NEXT:    %[[M2:.*]] = expr.mul %[[M1]], %[[B]] : tensor<2xf64>
// CHECK-NEXT:    %[[K:.*]] = expr.call @kept(%[[M2]]) {block} : (tensor<2xf64>) -> tensor<2xf64>
// CHECK-NEXT:    %[[L:.*]] = expr.loop 2
// CHECK-NEXT:    ^bb0(%[[E:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[N:.*]] = expr.neg %[[E]] : tensor<f64>
// CHECK-NEXT:      expr.yield %[[N]] : tensor<f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    expr.return %[[M2]], %[[K]], %[[L]]
expr.func @main(%x: tensor<2xf64>, %s: tensor<f64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x", "s"], res_names = ["a", "b", "c"]} {
  %0 = expr.call @outer(%x, %s) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %1 = expr.call @kept(%0) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %2 = expr.loop 2 (%x) : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%e: tensor<f64>):
    %n = expr.call @negate(%e) : (tensor<f64>) -> tensor<f64>
    expr.yield %n : tensor<f64>
  }
  expr.return %0, %1, %2 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
}

// @outer calls @inner twice; both copies are expanded into @main.
expr.func @outer(%x: tensor<2xf64>, %s: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["x", "s"], res_names = ["y"]} {
  %b = expr.broadcast %s : tensor<f64> to tensor<2xf64>
  %0 = expr.call @inner(%x, %b) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.call @inner(%0, %b) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}

expr.func @inner(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x", "y"], res_names = ["z"]} {
  %0 = expr.mul %x, %y : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

expr.func @negate(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.neg %x : tensor<f64>
  expr.return %0 : tensor<f64>
}

// The kept function survives; the call without the hint inside it is expanded.
// CHECK-LABEL: expr.func @kept(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2xf64>
// CHECK-SAME:    block
// CHECK-NEXT:    %[[M:.*]] = expr.mul %[[X]], %[[X]] : tensor<2xf64>
// CHECK-NEXT:    expr.return %[[M]]
expr.func @kept(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.call @inner(%x, %x) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// Only referenced by a function that is erased: erased as well.
expr.func @unused(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @only_from_unused(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @only_from_unused(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<2xf64>
}

// Still referenced by an expr.map: kept.
// CHECK-LABEL: expr.func @mapper(
// CHECK:         expr.map @mapped
// CHECK-LABEL: expr.func @mapped(
expr.func @mapper(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.map @mapped(%x) count 2 : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @mapped(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// CHECK-NOT:     @outer
// CHECK-NOT:     @inner
// CHECK-NOT:     @negate
// CHECK-NOT:     @unused
// CHECK-NOT:     @only_from_unused
