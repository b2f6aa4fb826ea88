// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program -verify-diagnostics
// RUN: not scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program=entry=nothere 2>&1 | FileCheck %s --check-prefix=ENTRY
//
// scaly-lower-to-program refuses what earlier passes must remove (expr.map:
// scaly-map-to-loop; calls without the block hint: scaly-expand-calls) and
// what has no scalar form, naming the pass to run; a missing entry function
// is an error.

// ENTRY: error: entry function 'nothere' is not an expr.func of the module

expr.func @main(%zs: tensor<4xf64>) -> tensor<4xf64> attributes {arg_names = ["zs"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op must be turned into a loop first (run scaly-map-to-loop)}}
  %0 = expr.map @f(%zs) count 4 {block} : (tensor<4xf64>) -> tensor<4xf64>
  expr.return %0 : tensor<4xf64>
}
expr.func @f(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"], block} {
  expr.return %z : tensor<f64>
}

// -----

expr.func @main(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.call' op without the block hint must be expanded first (run scaly-expand-calls)}}
  %0 = expr.call @f(%z) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @f(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"]} {
  expr.return %z : tensor<f64>
}

// -----

// The call without the hint is inside a blocked callee.
expr.func @main(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"]} {
  %0 = expr.call @f(%z) {block} : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @f(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"], block} {
  // expected-error @+1 {{'expr.call' op without the block hint must be expanded first (run scaly-expand-calls)}}
  %0 = expr.call @g(%z) : (tensor<f64>) -> tensor<f64>
  expr.return %0 : tensor<f64>
}
expr.func @g(%z: tensor<f64>) -> tensor<f64> attributes {arg_names = ["z"], res_names = ["y"]} {
  expr.return %z : tensor<f64>
}

// -----

expr.func @main(%z: tensor<2xi32>) -> tensor<2xi32> attributes {arg_names = ["z"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.neg' op negation of integers is not lowered yet}}
  %0 = expr.neg %z : tensor<2xi32>
  expr.return %0 : tensor<2xi32>
}

// -----

expr.func @main(%z: tensor<2xi1>) -> tensor<2xi1> attributes {arg_names = ["z"], res_names = ["y"]} {
  // + on bools is "or" (NumPy); - has no meaning.
  // expected-error @+1 {{'expr.sub' op arithmetic on bool arrays is not defined}}
  %0 = expr.sub %z, %z : tensor<2xi1>
  expr.return %0 : tensor<2xi1>
}

// -----

// expected-error @+1 {{has no expr.func to lower}}
module {
}

// -----

// Entries whose workspaces differ in type cannot share a kept callee.
expr.func @a(%z: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["z"], res_names = ["y"], entry} {
  %0 = expr.call @shared(%z) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @b(%z: tensor<2xf64>) -> tensor<2xf32> attributes {arg_names = ["z"], res_names = ["y"], entry} {
  // expected-error @+1 {{'expr.call' op calls @shared from entries whose workspaces have different element types; export them from separate modules}}
  %0 = expr.call @shared(%z) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.cast %0 : tensor<2xf64> to tensor<2xf32>
  expr.return %1 : tensor<2xf32>
}
expr.func @shared(%z: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["z"], res_names = ["y"]} {
  expr.return %z : tensor<2xf64>
}

// -----

// A large reduction over several axes that are not the trailing ones is
// given a transpose by scaly-move-reduced-axes-last, which was not run here.
expr.func @middle(%x: tensor<5x4x5xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reduce' op reduces several axes that are not the trailing ones: run scaly-move-reduced-axes-last before scaly-lower-to-program}}
  %s = expr.reduce sum %x axes [0, 2] : tensor<5x4x5xf64> to tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
