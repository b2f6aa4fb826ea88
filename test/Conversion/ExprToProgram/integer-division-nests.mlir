// RUN: scaly-opt %s -split-input-file --scaly-lower | FileCheck %s
//
// Integer division (arith.divsi: no memory effect, but it may trap, so it is
// not Pure) in the element of a row accumulation and of a transposed copy:
// the loop passes on nests take it like any op that only computes.

// CHECK-LABEL: prog.proc @rows(
// CHECK:         scf.for {{.*}} step %c4_i64
// CHECK-COUNT-4:     arith.divsi
// CHECK:         } {scaly.name = "r"}
// CHECK-NOT:     scf.parallel
expr.func @rows(%x: tensor<30x80xi64>, %z: tensor<30x80xi64>) -> tensor<80xi64> attributes {arg_names = ["x", "z"], res_names = ["y"]} {
  %d = expr.div %x, %z : tensor<30x80xi64>
  %0 = expr.reduce sum %d axes [0] : tensor<30x80xi64> to tensor<80xi64>
  expr.return %0 : tensor<80xi64>
}

// -----

// CHECK-LABEL: prog.proc @copy(
// CHECK:         arith.divsi {{.*}}
// CHECK:         arith.sitofp {{.*}} {scaly.name = "b00"}
// CHECK-NOT:     scf.parallel
expr.func @copy(%x: tensor<40x30xi64>, %z: tensor<30x40xi64>) -> tensor<30x40xf64> attributes {arg_names = ["x", "z"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<40x30xi64> to tensor<30x40xi64>
  %d = expr.div %t, %z : tensor<30x40xi64>
  %0 = expr.cast %d : tensor<30x40xi64> to tensor<30x40xf64>
  expr.return %0 : tensor<30x40xf64>
}
