// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// A concatenation along a later axis is one loop nest over the axes before
// it, storing each part's row in turn: three strided columns stacked side by
// side are one loop of three stores, not three strided loops. Reshaped into
// the output, the stack is written in place (a reshape keeps the row-major
// order), with no copy through divisions.

// CHECK-LABEL: int columns(
// CHECK:         SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long i = 0; i < 100; ++i) {
// CHECK-NEXT:      int64_t [[R:v[0-9]+]] = i * 3;
// CHECK-NEXT:      int64_t [[R2:v[0-9]+]] = [[R]] + 2;
// CHECK-NEXT:      res[0][[[R]]] = arg[0][[[R2]]];
// CHECK-NEXT:      int64_t [[R1:v[0-9]+]] = [[R]] + 1;
// CHECK-NEXT:      res[0][[[R1]]] = arg[0][[[R]]];
// CHECK-NEXT:      res[0][[[R2]]] = arg[0][[[R1]]] * 2.0;
// CHECK-NEXT:    }
// CHECK-NOT:     for (
// CHECK:         return SCALY_SUCCESS;
expr.func @columns(%x: tensor<300xf64>) -> tensor<300xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.slice %x starts [2] steps [3] : tensor<300xf64> to tensor<100xf64>
  %b = expr.slice %x starts [0] steps [3] : tensor<300xf64> to tensor<100xf64>
  %c = expr.slice %x starts [1] steps [3] : tensor<300xf64> to tensor<100xf64>
  %two = expr.constant dense<2.0> : tensor<f64>
  %tb = expr.broadcast %two : tensor<f64> to tensor<100xf64>
  %c2 = expr.mul %c, %tb : tensor<100xf64>
  %a1 = expr.reshape %a : tensor<100xf64> to tensor<100x1xf64>
  %b1 = expr.reshape %b : tensor<100xf64> to tensor<100x1xf64>
  %c1 = expr.reshape %c2 : tensor<100xf64> to tensor<100x1xf64>
  %s = expr.concat %a1, %b1, %c1 {axis = 1 : i64} : (tensor<100x1xf64>, tensor<100x1xf64>, tensor<100x1xf64>) -> tensor<100x3xf64>
  %y = expr.reshape %s : tensor<100x3xf64> to tensor<300xf64>
  expr.return %y : tensor<300xf64>
}
