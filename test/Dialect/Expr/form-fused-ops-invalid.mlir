// RUN: scaly-opt %s -split-input-file --scaly-form-fused-ops -verify-diagnostics
//
// A scaly.fused mark on an op that cannot be computed where it is read
// (written by hand: scaly-plan-fusion never puts one there) is an error.

expr.func @f(%x: tensor<4x8xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.reduce' op is marked scaly.fused but cannot be computed where it is read (only elementwise ops, views, concatenations and gathers can)}}
  %r = expr.reduce sum %x axes [1] {scaly.fused} : tensor<4x8xf64> to tensor<4xf64>
  expr.return %r : tensor<4xf64>
}
