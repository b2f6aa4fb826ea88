// RUN: %python %S/Inputs/lsp_client.py scaly-lsp-server %s 28:17 | FileCheck %s
//
// scaly-lsp-server, as an editor drives it over JSON-RPC: the verifier's error
// of an expr op and an unknown op come back in textDocument/publishDiagnostics
// (one chunk per split marker), go-to-definition of a use of %a finds the op
// that defines it, and the server exits cleanly after shutdown and exit.

// CHECK: initialized definitionProvider=True
// CHECK: diagnostic [[@LINE+2]]:{{[0-9]+}} error: 'expr.gather' op index 4 is outside the operand's 4 elements
expr.func @f(%x: tensor<4xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.gather %x [4] : tensor<4xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

// CHECK: diagnostic [[@LINE+2]]:{{[0-9]+}} error: {{.*}}expr.bogus
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.bogus %x : tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

expr.func @h(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.mul %x, %x : tensor<f64>
  %b = expr.add %a, %a : tensor<f64>
  expr.return %b : tensor<f64>
}
// CHECK-NOT: diagnostic
// CHECK: definition 28:17 -> 27:3
// CHECK: exit status 0
