// RUN: scaly-opt %s -split-input-file | scaly-opt -split-input-file | FileCheck %s --check-prefix=RT
// RUN: scaly-opt %s -split-input-file --mlir-print-op-generic | scaly-opt -split-input-file | FileCheck %s --check-prefix=RT
// RUN: scaly-opt %s -split-input-file --canonicalize | FileCheck %s --check-prefix=CANON
//
// The structured expr ops (broadcast with NumPy rules, slice with negative
// steps, transpose, reduce sum/prod/max/min over axes, batched matmul,
// concat along an axis) parse, print and parse back; their folders remove
// transpose of transpose (composed permutation), identity transposes and
// identity slices under --canonicalize.

// RT-LABEL: expr.func @structured(
// RT-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf64>, %[[R:[^:]*]]: tensor<3x1xf32>, %[[M:[^:]*]]: tensor<2x4x5xf64>, %[[I:[^:]*]]: tensor<6xi32>)
// RT:         %[[BC:.*]] = expr.broadcast %[[R]] : tensor<3x1xf32> to tensor<2x3x4xf32>
// RT:         %[[SL:.*]] = expr.slice %[[X]] starts [1, 2, 3] steps [-1, -2, -1] : tensor<2x3x4xf64> to tensor<2x2x4xf64>
// RT:         %[[TR:.*]] = expr.transpose %[[X]] [2, 0, 1] : tensor<2x3x4xf64> to tensor<4x2x3xf64>
// RT:         %[[SUM:.*]] = expr.reduce{{ +}}sum %[[X]] axes [0, 2] : tensor<2x3x4xf64> to tensor<3xf64>
// RT:         %[[PROD:.*]] = expr.reduce{{ +}}prod %[[I]] axes [0] : tensor<6xi32> to tensor<i32>
// RT:         %[[MAX:.*]] = expr.reduce{{ +}}max %[[TR]] axes [] : tensor<4x2x3xf64> to tensor<4x2x3xf64>
// RT:         %[[MIN:.*]] = expr.reduce{{ +}}min %[[X]] axes [0, 1, 2] : tensor<2x3x4xf64> to tensor<f64>
// RT:         %[[MM:.*]] = expr.matmul %[[X]], %[[M]] : tensor<2x3x4xf64>, tensor<2x4x5xf64> to tensor<2x3x5xf64>
// RT:         %[[CC:.*]] = expr.concat %[[X]], %[[SL]] {axis = 1 : i64} : (tensor<2x3x4xf64>, tensor<2x2x4xf64>) -> tensor<2x5x4xf64>
// RT:         expr.return %[[BC]], %[[SUM]], %[[PROD]], %[[MAX]], %[[MIN]], %[[MM]]
expr.func @structured(%x: tensor<2x3x4xf64>, %r: tensor<3x1xf32>, %m: tensor<2x4x5xf64>, %i: tensor<6xi32>) -> (tensor<2x3x4xf32>, tensor<3xf64>, tensor<i32>, tensor<4x2x3xf64>, tensor<f64>, tensor<2x3x5xf64>) attributes {arg_names = ["x", "r", "m", "i"], res_names = ["a", "b", "c", "d", "e", "f"]} {
  %bc = expr.broadcast %r : tensor<3x1xf32> to tensor<2x3x4xf32>
  %sl = expr.slice %x starts [1, 2, 3] steps [-1, -2, -1] : tensor<2x3x4xf64> to tensor<2x2x4xf64>
  %tr = expr.transpose %x [2, 0, 1] : tensor<2x3x4xf64> to tensor<4x2x3xf64>
  %sum = expr.reduce sum %x axes [0, 2] : tensor<2x3x4xf64> to tensor<3xf64>
  %prod = expr.reduce prod %i axes [0] : tensor<6xi32> to tensor<i32>
  %max = expr.reduce max %tr axes [] : tensor<4x2x3xf64> to tensor<4x2x3xf64>
  %min = expr.reduce min %x axes [0, 1, 2] : tensor<2x3x4xf64> to tensor<f64>
  %mm = expr.matmul %x, %m : tensor<2x3x4xf64>, tensor<2x4x5xf64> to tensor<2x3x5xf64>
  %cc = expr.concat %x, %sl {axis = 1 : i64} : (tensor<2x3x4xf64>, tensor<2x2x4xf64>) -> tensor<2x5x4xf64>
  expr.return %bc, %sum, %prod, %max, %min, %mm : tensor<2x3x4xf32>, tensor<3xf64>, tensor<i32>, tensor<4x2x3xf64>, tensor<f64>, tensor<2x3x5xf64>
}

// -----

// transpose(transpose(x, [2, 0, 1]), [2, 0, 1]) is transpose(x, [1, 2, 0]).
// CANON-LABEL: expr.func @transpose_twice(
// CANON-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf64>
// CANON-NEXT:    %[[T:.*]] = expr.transpose %[[X]] [1, 2, 0] : tensor<2x3x4xf64> to tensor<3x4x2xf64>
// CANON-NEXT:    expr.return %[[T]] : tensor<3x4x2xf64>
// RT-LABEL: expr.func @transpose_twice(
// RT-COUNT-2: expr.transpose
expr.func @transpose_twice(%x: tensor<2x3x4xf64>) -> tensor<3x4x2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.transpose %x [2, 0, 1] : tensor<2x3x4xf64> to tensor<4x2x3xf64>
  %1 = expr.transpose %0 [2, 0, 1] : tensor<4x2x3xf64> to tensor<3x4x2xf64>
  expr.return %1 : tensor<3x4x2xf64>
}

// -----

// A transpose and its inverse, and an identity transpose, leave x.
// CANON-LABEL: expr.func @transpose_identity(
// CANON-SAME:    %[[X:[^:]*]]: tensor<2x3xf64>
// CANON-NOT:     expr.transpose
// CANON:         expr.return %[[X]], %[[X]] : tensor<2x3xf64>, tensor<2x3xf64>
expr.func @transpose_identity(%x: tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %0 = expr.transpose %x [1, 0] : tensor<2x3xf64> to tensor<3x2xf64>
  %1 = expr.transpose %0 [1, 0] : tensor<3x2xf64> to tensor<2x3xf64>
  %2 = expr.transpose %x [0, 1] : tensor<2x3xf64> to tensor<2x3xf64>
  expr.return %1, %2 : tensor<2x3xf64>, tensor<2x3xf64>
}

// -----

// A slice of the whole array with unit steps is the array; a reversing or
// shorter slice stays.
// CANON-LABEL: expr.func @slice_identity(
// CANON-SAME:    %[[X:[^:]*]]: tensor<4x3xf64>
// CANON-NEXT:    %[[R:.*]] = expr.slice %[[X]] starts [3, 0] steps [-1, 1] : tensor<4x3xf64> to tensor<4x3xf64>
// CANON-NEXT:    %[[S:.*]] = expr.slice %[[X]] starts [0, 0] steps [1, 1] : tensor<4x3xf64> to tensor<3x3xf64>
// CANON-NEXT:    expr.return %[[X]], %[[R]], %[[S]]
expr.func @slice_identity(%x: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>, tensor<3x3xf64>) attributes {arg_names = ["x"], res_names = ["a", "b", "c"]} {
  %0 = expr.slice %x starts [0, 0] steps [1, 1] : tensor<4x3xf64> to tensor<4x3xf64>
  %1 = expr.slice %x starts [3, 0] steps [-1, 1] : tensor<4x3xf64> to tensor<4x3xf64>
  %2 = expr.slice %x starts [0, 0] steps [1, 1] : tensor<4x3xf64> to tensor<3x3xf64>
  expr.return %0, %1, %2 : tensor<4x3xf64>, tensor<4x3xf64>, tensor<3x3xf64>
}
