// RUN: not scaly-opt %s --scaly-roll-repeats="min-iterations=1" 2>&1 | FileCheck %s
// CHECK: scaly-roll-repeats: needs min-iterations >= 2, min-ops >= 1 and max-period >= 1, got 1, 512, 256
expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  expr.return %x : tensor<f64>
}
