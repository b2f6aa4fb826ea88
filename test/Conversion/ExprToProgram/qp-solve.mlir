// RUN: scaly-opt %s --scaly-lower | FileCheck %s
//
// A QP solve lowers to a call of its solver wrapper, declared once with
// prog.extern: the data in memory (an empty operand, here A and b, is a null
// pointer), the results written in place.

// CHECK:       prog.extern @scaly_qp_0123456789abcdef :
// CHECK-SAME:    (!prog.ptr<const f64>, {{.*}}, !prog.ptr<f64>, !prog.ptr<f64>) -> ()
// CHECK-LABEL: prog.proc @solve(
// CHECK:         prog.null : <const f64>
// CHECK:         prog.call_extern @scaly_qp_0123456789abcdef(
expr.func @solve(%c: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["c"], res_names = ["x"], entry} {
  %P = expr.constant dense<[4.0, 1.0, 2.0]> : tensor<3xf64>
  %none = expr.constant dense<> : tensor<0xf64>
  %G = expr.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %lo = expr.constant dense<[-1.0e20]> : tensor<1xf64>
  %hi = expr.constant dense<[1.0]> : tensor<1xf64>
  %xl = expr.constant dense<[0.0, 0.0]> : tensor<2xf64>
  %xu = expr.constant dense<[1.0e20, 1.0e20]> : tensor<2xf64>
  %x, %y, %z, %zb = expr.qp_solve(%P, %c, %none, %none, %G, %lo, %hi, %xl, %xu) {
      P_colptr = array<i64: 0, 1, 3>, P_rowind = array<i64: 0, 0, 1>,
      A_colptr = array<i64: 0, 0, 0>, A_rowind = array<i64>,
      G_colptr = array<i64: 0, 1, 2>, G_rowind = array<i64: 0, 0>,
      name = "scaly_qp_0123456789abcdef"}
      : tensor<3xf64>, tensor<2xf64>, tensor<0xf64>, tensor<0xf64>, tensor<2xf64>,
        tensor<1xf64>, tensor<1xf64>, tensor<2xf64>, tensor<2xf64>
      -> tensor<2xf64>, tensor<0xf64>, tensor<1xf64>, tensor<2xf64>
  expr.return %x : tensor<2xf64>
}
