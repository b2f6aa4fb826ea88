// RUN: not scaly-opt %s -split-input-file --scaly-expand-calls 2>&1 | FileCheck %s
//
// scaly-expand-calls refuses to expand recursion (direct, through the
// entry, and between two other functions) instead of looping.

// CHECK: error: 'expr.call' op is recursive and cannot be expanded
// CHECK-NEXT: expr.call @main(%x)
expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @main(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

// CHECK: error: 'expr.call' op is recursive and cannot be expanded
expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @f(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.neg %x : tensor<f64>
  %1 = expr.call @main(%0) : (tensor<f64>) -> tensor<f64>
  expr.return %1 : tensor<f64>
}

// -----

// CHECK: error: 'expr.call' op is recursive and cannot be expanded
expr.func @main(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @f(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @g(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @f(%x) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

// A recursive call with the block hint is not expanded, so it is no error
// here; the split after it still runs.
// CHECK-NOT: error
// CHECK: expr.func @blocked
// CHECK: expr.call @blocked(%{{.*}}) {block}
expr.func @blocked(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.call @blocked(%x) {block} : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
