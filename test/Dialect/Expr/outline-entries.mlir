// RUN: scaly-opt %s --split-input-file --scaly-outline-entries | FileCheck %s
//
// Each entry of a module of several moves into a nested module of its own,
// with a copy of every function it reaches (a callee of a callee too), in
// the module's order. A reached entry is copied as a plain function. A
// function no entry reaches is left out. One entry: nothing changes.
// The largest module comes first (g's: it holds f's functions and g), each
// marked with its entry's index in the module.

// CHECK:       {{^}}module {
// CHECK-NEXT:  {{^  }}module attributes {scaly.entry_index = 1 : i64} {
// CHECK-NEXT:  {{^    }}expr.func @leaf(
// CHECK:       {{^    }}expr.func @mid(
// CHECK:       {{^    }}expr.func @f({{.*}}attributes {arg_names = ["x"], res_names = ["y"]} {
// CHECK:       {{^    }}expr.func @g({{.*}}attributes {arg_names = ["x"], entry, res_names = ["y"]} {
// CHECK:       {{^  }}module attributes {scaly.entry_index = 0 : i64} {
// CHECK-NEXT:  {{^    }}expr.func @leaf(
// CHECK:       {{^    }}expr.func @mid(
// CHECK:       {{^    }}expr.func @f({{.*}}attributes {arg_names = ["x"], entry, res_names = ["y"]} {
// CHECK-NOT:   expr.func @g
// CHECK-NOT:   expr.func @unused
expr.func @leaf(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.neg %x : tensor<f64>
  expr.return %n : tensor<f64>
}
expr.func @unused(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}
expr.func @mid(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.call @leaf(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %n : tensor<f64>
}
expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %n = expr.call @mid(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %n : tensor<f64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %n = expr.call @f(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %n : tensor<f64>
}

// -----

// CHECK:       module {
// CHECK-NEXT:    expr.func @one(
// CHECK-NOT:     module
// CHECK:         expr.func @helper(
expr.func @one(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %n = expr.call @helper(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %n : tensor<f64>
}
expr.func @helper(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.neg %x : tensor<f64>
  expr.return %n : tensor<f64>
}
