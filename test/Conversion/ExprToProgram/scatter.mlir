// RUN: scaly-opt %s --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program --scaly-parallel-to-loops --split-input-file | FileCheck %s
//
// expr.scatter lowered: small, its elements (zeros and the placed values);
// large, one loop filling the result with zeros, then the values written at
// their positions: one store each when they are few, else one loop over a
// table of the positions (as long as the values, not as the result), the
// values computed in that loop.

// CHECK-LABEL: prog.proc @small(
// CHECK-SAME:    %[[V:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>
// CHECK-DAG:     %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-DAG:     %[[V0:.*]] = prog.load %[[V]][0]
// CHECK-DAG:     %[[V1:.*]] = prog.load %[[V]][1]
// CHECK:         prog.store %[[V1]], %[[Z]], %[[Z]], %[[Z]], %[[V0]], %[[Z]] to %[[D]][0]
// CHECK-NOT:     scf.for
// CHECK-NOT:     prog.table
expr.func @small(%v: tensor<2xf64>) -> tensor<2x3xf64> attributes {arg_names = ["v"], res_names = ["d"], entry} {
  %d = expr.scatter %v [4, 0] : tensor<2xf64> to tensor<2x3xf64>
  expr.return %d : tensor<2x3xf64>
}

// -----

// CHECK-LABEL: prog.proc @few(
// CHECK-SAME:    %[[V:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c400_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:           %[[DI:.*]] = prog.offset %[[D]][%[[I]]]
// CHECK:           prog.store %[[Z]] to %[[DI]][0]
// CHECK:         }
// CHECK-NOT:     prog.table
// CHECK:         %[[V0:.*]] = prog.load %[[V]][0]
// CHECK:         prog.store %[[V0]] to %[[D]][399]
// CHECK:         %[[V1:.*]] = prog.load %[[V]][1]
// CHECK:         prog.store %[[V1]] to %[[D]][21]
// CHECK-NEXT:    prog.return
expr.func @few(%v: tensor<2xf64>) -> tensor<20x20xf64> attributes {arg_names = ["v"], res_names = ["d"], entry} {
  %d = expr.scatter %v [399, 21] : tensor<2xf64> to tensor<20x20xf64>
  expr.return %d : tensor<20x20xf64>
}

// -----

// The diagonal of sin(x): positions evenly spaced, computed from the loop
// counter (no table), sin computed in the loop that writes them (nothing of
// 10,000 elements but the zero fill).
// CHECK-LABEL: prog.proc @diagonal(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c10000_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           prog.store
// CHECK:         }
// CHECK-NOT:     prog.table
// CHECK:         scf.for %[[K:.*]] = %c0_i64{{[_0-9]*}} to %c100_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           %[[XK:.*]] = prog.offset %[[X]][%[[K]]]
// CHECK:           %[[XV:.*]] = prog.load %[[XK]][0]
// CHECK:           %[[S:.*]] = math.sin %[[XV]]
// CHECK:           %[[C:.*]] = arith.constant 101 : i64
// CHECK:           %[[P:.*]] = arith.muli %[[K]], %[[C]] overflow<nsw> : i64
// CHECK:           %[[DP:.*]] = prog.offset %[[D]][%[[P]]]
// CHECK:           prog.store %[[S]] to %[[DP]][0]
// CHECK:         }
expr.func @diagonal(%x: tensor<100xf64>) -> tensor<100x100xf64> attributes {arg_names = ["x"], res_names = ["d"], entry} {
  %s = expr.math sin %x : tensor<100xf64>
  %d = expr.scatter %s [0, 101, 202, 303, 404, 505, 606, 707, 808, 909, 1010, 1111, 1212, 1313, 1414, 1515, 1616, 1717, 1818, 1919, 2020, 2121, 2222, 2323, 2424, 2525, 2626, 2727, 2828, 2929, 3030, 3131, 3232, 3333, 3434, 3535, 3636, 3737, 3838, 3939, 4040, 4141, 4242, 4343, 4444, 4545, 4646, 4747, 4848, 4949, 5050, 5151, 5252, 5353, 5454, 5555, 5656, 5757, 5858, 5959, 6060, 6161, 6262, 6363, 6464, 6565, 6666, 6767, 6868, 6969, 7070, 7171, 7272, 7373, 7474, 7575, 7676, 7777, 7878, 7979, 8080, 8181, 8282, 8383, 8484, 8585, 8686, 8787, 8888, 8989, 9090, 9191, 9292, 9393, 9494, 9595, 9696, 9797, 9898, 9999] : tensor<100xf64> to tensor<100x100xf64>
  expr.return %d : tensor<100x100xf64>
}

// -----

// Positions not evenly spaced: a table of 100 of them (as long as the
// values, not as the result's 10,000 elements).
// CHECK-LABEL: prog.proc @uneven(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c10000_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           prog.store
// CHECK:         }
// CHECK:         %[[T:.*]] = prog.table dense<[0, 101, 202, {{.*}}, 9898, 9998]> : tensor<100xi64> : <const i64>
// CHECK:         scf.for %[[K:.*]] = %c0_i64{{[_0-9]*}} to %c100_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           %[[XK:.*]] = prog.offset %[[X]][%[[K]]]
// CHECK:           %[[XV:.*]] = prog.load %[[XK]][0]
// CHECK:           %[[TK:.*]] = prog.offset %[[T]][%[[K]]]
// CHECK:           %[[P:.*]] = prog.load %[[TK]][0] : <const i64> -> i64
// CHECK:           %[[DP:.*]] = prog.offset %[[D]][%[[P]]]
// CHECK:           prog.store %[[XV]] to %[[DP]][0]
// CHECK:         }
// CHECK-NOT:     tensor<10000xi64>
expr.func @uneven(%x: tensor<100xf64>) -> tensor<100x100xf64> attributes {arg_names = ["x"], res_names = ["d"], entry} {
  %d = expr.scatter %x [0, 101, 202, 303, 404, 505, 606, 707, 808, 909, 1010, 1111, 1212, 1313, 1414, 1515, 1616, 1717, 1818, 1919, 2020, 2121, 2222, 2323, 2424, 2525, 2626, 2727, 2828, 2929, 3030, 3131, 3232, 3333, 3434, 3535, 3636, 3737, 3838, 3939, 4040, 4141, 4242, 4343, 4444, 4545, 4646, 4747, 4848, 4949, 5050, 5151, 5252, 5353, 5454, 5555, 5656, 5757, 5858, 5959, 6060, 6161, 6262, 6363, 6464, 6565, 6666, 6767, 6868, 6969, 7070, 7171, 7272, 7373, 7474, 7575, 7676, 7777, 7878, 7979, 8080, 8181, 8282, 8383, 8484, 8585, 8686, 8787, 8888, 8989, 9090, 9191, 9292, 9393, 9494, 9595, 9696, 9797, 9898, 9998] : tensor<100xf64> to tensor<100x100xf64>
  expr.return %d : tensor<100x100xf64>
}
