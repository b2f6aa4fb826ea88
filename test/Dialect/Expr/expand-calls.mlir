// RUN: scaly-opt %s --scaly-expand-calls | FileCheck %s
// RUN: scaly-opt %s --scaly-expand-calls | FileCheck %s --check-prefix=ERASED
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
// CHECK-NEXT:    %[[MP:.*]] = expr.map @mapped(%[[X]]) count 2
// CHECK-NEXT:    expr.return %[[M2]], %[[K]], %[[L]], %[[MP]]
expr.func @main(%x: tensor<2xf64>, %s: tensor<f64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x", "s"], res_names = ["a", "b", "c", "d"]} {
  %0 = expr.call @outer(%x, %s) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %1 = expr.call @kept(%0) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %2 = expr.loop 2 (%x) : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%e: tensor<f64>):
    %n = expr.call @negate(%e) : (tensor<f64>) -> tensor<f64>
    expr.yield %n : tensor<f64>
  }
  %3 = expr.map @mapped(%x) count 2 : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0, %1, %2, %3 : tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
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

// Referenced by an expr.map of @main: kept. A function only a removed
// function referenced through a map is erased with it.
// CHECK-LABEL: expr.func @mapped(
expr.func @unused_mapper(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.map @only_mapped_from_unused(%x) count 2 : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @only_mapped_from_unused(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}
expr.func @mapped(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// Exactly these three functions are left.
// ERASED-NOT:    expr.func @{{outer|inner|negate|unused|only_from_unused|unused_mapper|only_mapped_from_unused}}(
// ERASED:        expr.func @main(
// ERASED-NOT:    expr.func @{{outer|inner|negate|unused|only_from_unused|unused_mapper|only_mapped_from_unused}}(
// ERASED:        expr.func @kept(
// ERASED-NOT:    expr.func @{{outer|inner|negate|unused|only_from_unused|unused_mapper|only_mapped_from_unused}}(
// ERASED:        expr.func @mapped(
// ERASED-NOT:    expr.func
