// RUN: scaly-opt %s --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// expr.mul / expr.div with `exact_zeros` (the tangent products of compressed
// Jacobian sweeps, issue 33) lower to the plain op and a select of zero
// where a factor (the numerator) is zero, in the same scalar code, so the
// loops they are in stay fused. Without the attribute, the plain op alone.

// CHECK-LABEL: prog.proc @f(
// CHECK:         %[[T:.*]] = prog.load %arg0[0]
// CHECK:         %[[P:.*]] = prog.load %arg1[0]
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[PZ:.*]] = arith.cmpf oeq, %[[P]], %[[Z]]
// CHECK-DAG:     %[[TZ:.*]] = arith.cmpf oeq, %[[T]], %[[Z]]
// CHECK:         %[[ANY:.*]] = arith.ori %[[TZ]], %[[PZ]]
// CHECK:         %[[M:.*]] = arith.mulf %[[T]], %[[P]]
// CHECK:         %[[EM:.*]] = arith.select %[[ANY]], %[[Z]], %[[M]]
// CHECK:         %[[Z2:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[Q:.*]] = arith.divf %[[T]], %[[P]]
// CHECK:         %[[TZ2:.*]] = arith.cmpf oeq, %[[T]], %[[Z2]]
// CHECK:         %[[EQ:.*]] = arith.select %[[TZ2]], %[[Z2]], %[[Q]]
// CHECK:         %[[PM:.*]] = arith.mulf %[[T]], %[[P]]
// CHECK-NOT:     arith.select
// CHECK:         prog.store %[[EM]], %[[EQ]], %[[PM]] to %arg2[0]
expr.func @f(%t: tensor<1xf64>, %p: tensor<1xf64>) -> tensor<3xf64> attributes {arg_names = ["t", "p"], res_names = ["r"], entry} {
  %m = expr.mul %t, %p {exact_zeros} : tensor<1xf64>
  %q = expr.div %t, %p {exact_zeros} : tensor<1xf64>
  %n = expr.mul %t, %p : tensor<1xf64>
  %r = expr.concat %m, %q, %n {axis = 0 : i64} : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> tensor<3xf64>
  expr.return %r : tensor<3xf64>
}
