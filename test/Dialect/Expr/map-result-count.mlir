// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// XFAIL CANDIDATE (bug: expr.map accepts a result count that differs from
// its callee's). MapOp::verifySymbolUses compares result types with
// llvm::zip, which stops at the shorter list, and never compares the counts,
// so both maps below verify; scaly-map-to-loop then builds an expr.loop that
// fails its own verifier ("'expr.loop' op yields 1 values for 2 results" /
// "yields 1 values for 0 results"). The verifier should reject the map.

expr.func @f(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op}}
  %0, %1 = expr.map @g(%x) count 3 : (tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  expr.return %0 : tensor<3xf64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3xf64>) attributes {arg_names = ["x"], res_names = []} {
  // expected-error @+1 {{'expr.map' op}}
  expr.map @g(%x) count 3 : (tensor<3xf64>) -> ()
  expr.return
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}
