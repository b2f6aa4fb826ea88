// RUN: scaly-opt %s --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s
//
// A large constant that is not a splat is read from a table (prog.table),
// not stored element by element; a large gather reads its source position
// from a table of indices inside the loop, fused with its consumer.

// CHECK-LABEL: prog.proc @lookup(
// CHECK:         %[[C:.*]] = prog.table dense<[0.000000e+00, 1.000000e+00, {{.*}}, 5.000000e-01]> : tensor<100xf64> : <const f64>
// CHECK-NOT:     prog.store
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c100_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           %[[T:.*]] = prog.table dense<[99, 98, {{.*}}, 1, 1]> : tensor<100xi64> : <const i64>
// CHECK:           %[[TI:.*]] = prog.offset %[[T]][%[[I]]]
// CHECK:           %[[K:.*]] = prog.load %[[TI]][0] : <const i64> -> i64
// CHECK:           %[[XK:.*]] = prog.offset %arg0[%[[K]]]
// CHECK:           %[[X:.*]] = prog.load %[[XK]][0]
// CHECK:           %[[CI:.*]] = prog.offset %[[C]][%[[I]]]
// CHECK:           %[[V:.*]] = prog.load %[[CI]][0]
// CHECK:           arith.mulf %[[X]], %[[V]]
// CHECK:           prog.store
// CHECK:         }
expr.func @lookup(%x: tensor<100xf64>) -> tensor<100xf64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %c = expr.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 0.5]> : tensor<100xf64>
  %g = expr.gather %x [99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 1] : tensor<100xf64> to tensor<100xf64>
  %y = expr.mul %g, %c : tensor<100xf64>
  expr.return %y : tensor<100xf64>
}
