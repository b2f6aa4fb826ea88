// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Regression test: expr.map must have as many results as its callee has
// outputs. (The verifier once compared result types with llvm::zip only,
// which stops at the shorter list, so both maps below verified and
// scaly-map-to-loop built an invalid expr.loop.)

expr.func @f(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  // expected-error @+1 {{'expr.map' op has 2 results but @g returns 1}}
  %0, %1 = expr.map @g(%x) count 3 : (tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  expr.return %0 : tensor<3xf64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}

// -----

expr.func @f(%x: tensor<3xf64>) attributes {arg_names = ["x"], res_names = []} {
  // expected-error @+1 {{'expr.map' op has 0 results but @g returns 1}}
  expr.map @g(%x) count 3 : (tensor<3xf64>) -> ()
  expr.return
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<f64>
}
