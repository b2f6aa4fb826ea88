// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program --scaly-accumulate-rows --scaly-parallel-to-loops | FileCheck %s
//
// The row-accumulation strategy (the lowering's nest, LoopStrategies.cpp,
// interchanged by scaly-accumulate-rows): a large reduction over one axis
// that is not the last, into a large result, copies the first row
// into the result and combines every later row into it with a contiguous
// inner loop, four rows per pass (in order: ((acc + x1) + x2) + ...), then
// the rows left over. Other reductions keep the strided helper calls.

// CHECK-LABEL: prog.proc @colsum(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     prog.reduce
// CHECK:         scf.for %[[J:.*]] = %c0_i64{{[_0-9]*}} to %c30_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[P:.*]] = prog.offset %[[X]][%[[J]]]
// CHECK-NEXT:      %[[V:.*]] = prog.load %[[P]][0]
// CHECK-NEXT:      %[[Q:.*]] = prog.offset %[[Y]][%[[J]]]
// CHECK-NEXT:      prog.store %[[V]] to %[[Q]][0]
// CHECK:         scf.for %[[R:.*]] = %c1_i64{{[_0-9]*}} to %c9_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:           scf.for %[[K:.*]] = %c0_i64{{[_0-9]*}} to %c30_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:             %[[A:.*]] = prog.load %{{.*}}[0] : <f64> -> f64
// CHECK-NEXT:        %[[S1:.*]] = arith.addf %[[A]], %{{.*}} : f64
// CHECK-NEXT:        %[[S2:.*]] = arith.addf %[[S1]], %{{.*}} : f64
// CHECK-NEXT:        %[[S3:.*]] = arith.addf %[[S2]], %{{.*}} : f64
// CHECK-NEXT:        %[[S4:.*]] = arith.addf %[[S3]], %{{.*}} : f64
// CHECK:             prog.store %[[S4]] to
// CHECK:         } {scaly.name = "r"}
// CHECK:         scf.for %{{.*}} = %c9_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c30_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:             arith.addf
// CHECK-NOT:         arith.addf
// CHECK:         prog.return
expr.func @colsum(%x: tensor<10x30xf64>) -> tensor<30xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<10x30xf64> to tensor<30xf64>
  expr.return %0 : tensor<30xf64>
}

// -----

// A middle axis of three: one loop over the leading axis around the rows; a
// fused operand (x*x) is computed where it is read; max combines with the
// NaN-propagating maximum.
// CHECK-LABEL: prog.proc @middle(
// CHECK-NOT:     prog.reduce
// CHECK:         scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c6_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:             arith.mulf
// CHECK:           scf.for %{{.*}} = %c1_i64{{[_0-9]*}} to %c5_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c6_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:               arith.cmpf oge
// CHECK:               arith.select
// CHECK:           scf.for %{{.*}} = %c5_i64{{[_0-9]*}} to %c7_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
expr.func @middle(%x: tensor<3x7x6xf64>) -> tensor<3x6xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.mul %x, %x : tensor<3x7x6xf64>
  %1 = expr.reduce max %0 axes [1] : tensor<3x7x6xf64> to tensor<3x6xf64>
  expr.return %1 : tensor<3x6xf64>
}

// -----

// Negative: the last axis is reduced by the contiguous helper.
// CHECK-LABEL: prog.proc @rowsum(
// CHECK:         prog.reduce "sum" %{{.*}} count 30 stride 1
expr.func @rowsum(%x: tensor<10x30xf64>) -> tensor<10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [1] : tensor<10x30xf64> to tensor<10xf64>
  expr.return %0 : tensor<10xf64>
}

// -----

// Negative: a small result (3 elements, below the limit of 4) stays strided
// helper calls, one per element.
// CHECK-LABEL: prog.proc @small_result(
// CHECK-COUNT-3: prog.reduce "sum" %{{.*}} count 20 stride 3
expr.func @small_result(%x: tensor<20x3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<20x3xf64> to tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}

// -----

// Negative: a trailing run of one element (a column N x 1) is a contiguous
// reduction already.
// CHECK-LABEL: prog.proc @column(
// CHECK:         prog.reduce "sum" %{{.*}} count 40 stride 1
expr.func @column(%x: tensor<40x1xf64>) -> tensor<1xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<40x1xf64> to tensor<1xf64>
  expr.return %0 : tensor<1xf64>
}
