// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s --check-prefix=LIMIT
//
// Arrays above scalarize-limit (64 by default) stay structured: an
// elementwise chain with broadcast constants fuses into one scf.for, a
// large sum calls the module's reduction helper (prog.reduce), a 32x32
// matrix product the matrix-product helper (prog.matmul). Below the limit
// a reduction is one scalar per element; with scalarize-limit=4 the same
// 6-element reduction becomes strided prog.reduce calls instead.

// CHECK-LABEL: prog.proc @chain(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c1000_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[P:.*]] = prog.offset %[[X]][%[[I]]] : <const f64> -> <const f64>
// CHECK-NEXT:      %[[V:.*]] = prog.load %[[P]][0] : <const f64> -> f64
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[C]], %[[V]] : f64
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[M]] : f64
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[S]], %[[C]] : f64
// CHECK-NEXT:      %[[Q:.*]] = prog.offset %[[Y]][%[[I]]] : <f64> -> <f64>
// CHECK-NEXT:      prog.store %[[A]] to %[[Q]][0] : f64 into <f64>
// CHECK-NEXT:    } {scaly.name = "i"}
// CHECK-NOT:     scf.for
// CHECK:         prog.return
// LIMIT-LABEL: prog.proc @chain(
// LIMIT-COUNT-1: scf.for
// LIMIT-NOT:     scf.for
// LIMIT:         prog.return
expr.func @chain(%x: tensor<1000xf64>) -> tensor<1000xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %c = expr.constant dense<2.0> : tensor<f64>
  %b = expr.broadcast %c : tensor<f64> to tensor<1000xf64>
  %0 = expr.mul %b, %x : tensor<1000xf64>
  %1 = expr.math sin %0 : tensor<1000xf64>
  %2 = expr.add %1, %b : tensor<1000xf64>
  expr.return %2 : tensor<1000xf64>
}

// -----

// CHECK-LABEL: prog.proc @total(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     prog.load
// CHECK:         %[[R:.*]] = prog.reduce "sum" %[[X]] count 1000 stride 1 : <const f64> -> f64
// CHECK-NEXT:    prog.store %[[R]] to %[[S]][0] : f64 into <f64>
// CHECK-NEXT:    prog.return
expr.func @total(%x: tensor<1000xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["s"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<1000xf64> to tensor<f64>
  expr.return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: prog.proc @mm(
// CHECK-SAME:    %[[A:[^:]*]]: !prog.ptr<const f64>, %[[B:[^:]*]]: !prog.ptr<const f64>, %[[C:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     prog.load
// CHECK-NOT:     scf.for
// CHECK:         prog.matmul %[[A]], %[[B]] into %[[C]] m 32 k 32 n 32 : <const f64>, <const f64>, <f64>
// CHECK-NEXT:    prog.return
expr.func @mm(%a: tensor<32x32xf64>, %b: tensor<32x32xf64>) -> tensor<32x32xf64> attributes {arg_names = ["a", "b"], res_names = ["c"]} {
  %0 = expr.matmul %a, %b : tensor<32x32xf64>, tensor<32x32xf64> to tensor<32x32xf64>
  expr.return %0 : tensor<32x32xf64>
}

// -----

// Six elements: scalarized by default, strided helper calls above a limit of 4.
// CHECK-LABEL: prog.proc @small(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     prog.reduce
// CHECK-DAG:     %[[X0:.*]] = prog.load %[[X]][0] : <const f64> -> f64
// CHECK-DAG:     %[[X3:.*]] = prog.load %[[X]][3] : <const f64> -> f64
// CHECK:         %[[S0:.*]] = arith.addf %[[X0]], %[[X3]] : f64
// CHECK:         prog.store %[[S0]], %{{.*}}, %{{.*}} to %[[Y]][0] : f64, f64, f64 into <f64>
// LIMIT-LABEL: prog.proc @small(
// LIMIT-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// LIMIT-NOT:     prog.load
// LIMIT:         %[[R0:.*]] = prog.reduce "sum" %[[X]] count 2 stride 3 : <const f64> -> f64
// LIMIT:         %[[X1:.*]] = prog.offset %[[X]] {bias = 1 : i64} : <const f64> -> <const f64>
// LIMIT-NEXT:    %[[R1:.*]] = prog.reduce "sum" %[[X1]] count 2 stride 3 : <const f64> -> f64
// LIMIT:         %[[X2:.*]] = prog.offset %[[X]] {bias = 2 : i64} : <const f64> -> <const f64>
// LIMIT-NEXT:    %[[R2:.*]] = prog.reduce "sum" %[[X2]] count 2 stride 3 : <const f64> -> f64
// LIMIT-NEXT:    prog.store %[[R0]], %[[R1]], %[[R2]] to %[[Y]][0] : f64, f64, f64 into <f64>
expr.func @small(%x: tensor<2x3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<2x3xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}
