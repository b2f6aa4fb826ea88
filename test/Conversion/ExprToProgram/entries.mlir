// RUN: scaly-opt %s --scaly-lower | FileCheck %s
//
// Several entries: every expr.func marked `entry` becomes an entry procedure,
// callees first; an entry that another entry calls with the block hint also
// gets a `<name>_raw` procedure. Unmarked functions nobody calls are dropped.

// CHECK-LABEL: prog.proc @step_raw(
// CHECK-LABEL: prog.proc @roll(
// CHECK-SAME:    entry
// CHECK:         prog.call @step_raw
// CHECK-LABEL: prog.proc @step(
// CHECK-SAME:    entry
// CHECK-LABEL: prog.proc @energy(
// CHECK-SAME:    entry
// CHECK-NOT:     prog.proc @unused
expr.func @roll(%z: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["z"], res_names = ["zn"], entry} {
  %0 = expr.call @step(%z) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @step(%z: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["z"], res_names = ["zn"], entry} {
  %0 = expr.add %z, %z : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @unused(%z: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["z"], res_names = ["zn"]} {
  expr.return %z : tensor<2xf64>
}
expr.func @energy(%x: tensor<3xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["e"], entry} {
  %0 = expr.reduce sum %x axes [0] : tensor<3xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}
