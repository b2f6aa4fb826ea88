// RUN: scaly-opt %s --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-lower-to-program -verify-diagnostics
// RUN: scaly-opt %s --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// The lowering computes where they are read exactly the bodies of expr.fused
// ops; a scaly.fused mark outside one (scaly-form-fused-ops not run) is
// refused, naming the pass. With it, the chain is one nest.

// CHECK-LABEL: prog.proc @f(
// CHECK:         scf.parallel
// CHECK:           math.sin
// CHECK:           arith.addf
// CHECK-NOT:     scf.parallel
expr.func @f(%x: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %c = expr.constant dense<1.0> : tensor<8xf64>
  // expected-error @+1 {{'expr.math' op is marked scaly.fused but is not in an expr.fused: run scaly-form-fused-ops before scaly-lower-to-program}}
  %s = expr.math sin %x : tensor<8xf64>
  %y = expr.add %s, %c : tensor<8xf64>
  expr.return %y : tensor<8xf64>
}
