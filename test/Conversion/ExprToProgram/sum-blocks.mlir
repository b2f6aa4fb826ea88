// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-form-fused-ops --scaly-lower-to-program --scaly-sum-in-blocks --scaly-parallel-to-loops | FileCheck %s
//
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s --check-prefix=LOWER
//
// A float sum of every element of a value computed where it is read, larger
// than one block of 8192 (NumPy's buffer, and the sum helper's block): the
// lowering writes the value whole into a window with one nest and marks the
// helper's sum of it scaly.sum_in_blocks (LOWER); scaly-sum-in-blocks then
// computes each block into one window of 8192 elements and sums it there,
// the block sums added in order to a total that starts at zero (the helper's
// own order, so the same result), then the rest. The workspace holds one
// block, not the whole operand.

// LOWER-LABEL: prog.proc @dot(
// LOWER:         %[[WIN:.*]] = prog.window %{{.*}} size 20000
// LOWER:         scf.parallel
// LOWER:           arith.mulf
// LOWER:         } {scaly.names = ["i"]}
// LOWER-NEXT:    %[[VIEW:.*]] = prog.offset %[[WIN]] : <f64> -> <const f64>
// LOWER-NEXT:    prog.reduce "sum" %[[VIEW]] count 20000 stride 1 {scaly.sum_in_blocks}

// CHECK-LABEL: prog.proc @dot(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[WIN:.*]] = prog.window %[[W]] size 8192
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         %[[TOTAL:.*]] = scf.for %[[B:.*]] = %{{.*}} to %c2_i64 step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f64)
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c8192_i64{{[_0-9]*}} step
// CHECK:             arith.mulf
// CHECK:             prog.store %{{.*}} to %{{.*}}[0]
// CHECK:           } {scaly.name = "i"}
// CHECK:           %[[S:.*]] = prog.reduce "sum" %{{.*}} count 8192 stride 1
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addf %[[ACC]], %[[S]] : f64
// CHECK-NEXT:      scf.yield %[[NEXT]] : f64
// CHECK:         } {scaly.name = "block"}
// CHECK:         scf.for %{{.*}} = %{{.*}} to %c3616_i64 step
// CHECK:         %[[R:.*]] = prog.reduce "sum" %{{.*}} count 3616 stride 1
// CHECK-NEXT:    %[[ALL:.*]] = arith.addf %[[TOTAL]], %[[R]] : f64
// CHECK-NEXT:    prog.store %[[ALL]] to %[[D]][0]
expr.func @dot(%x: tensor<20000xf64>, %y: tensor<20000xf64>) -> tensor<f64> attributes {arg_names = ["x", "y"], res_names = ["d"]} {
  %p = expr.mul %x, %y : tensor<20000xf64>
  %d = expr.reduce sum %p axes [0] : tensor<20000xf64> to tensor<f64>
  expr.return %d : tensor<f64>
}

// -----

// Whole blocks only (2 x 8192, matrix-shaped): no rest.
// CHECK-LABEL: prog.proc @squares(
// CHECK:         prog.window %{{.*}} size 8192
// CHECK:         scf.for {{.*}} iter_args
// CHECK:           prog.reduce "sum" %{{.*}} count 8192 stride 1
// CHECK:         } {scaly.name = "block"}
// CHECK-NOT:     prog.reduce
// CHECK:         prog.return
expr.func @squares(%x: tensor<128x128xf64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["s"]} {
  %p = expr.mul %x, %x : tensor<128x128xf64>
  %s = expr.reduce sum %p axes [0, 1] : tensor<128x128xf64> to tensor<f64>
  expr.return %s : tensor<f64>
}

// -----

// One block or less, a sum kept per row, an integer sum, a maximum: the
// operand is stored whole and summed by one helper call (no block loop).
// CHECK-LABEL: prog.proc @not_blocked(
// CHECK-NOT:     scaly.name = "block"
// CHECK:         prog.window %{{.*}} size 8192
// CHECK:         prog.reduce "sum" %{{.*}} count 8192 stride 1
// CHECK:         prog.window %{{.*}} size 20000
// CHECK:         prog.reduce "sum" %{{.*}} count 10000 stride 1
// CHECK:         prog.window %{{.*}} size 20000
// CHECK:         prog.reduce "sum" %{{.*}} count 20000 stride 1
// CHECK:         prog.window %{{.*}} size 20000
// CHECK:         prog.reduce "max" %{{.*}} count 20000 stride 1
// CHECK-NOT:     scaly.name = "block"
expr.func @not_blocked(%x: tensor<8192xf64>, %m: tensor<2x10000xf64>, %k: tensor<20000xi64>, %y: tensor<20000xf64>) -> (tensor<f64>, tensor<2xf64>, tensor<i64>, tensor<f64>) attributes {arg_names = ["x", "m", "k", "y"], res_names = ["a", "b", "c", "d"]} {
  %p = expr.mul %x, %x : tensor<8192xf64>
  %a = expr.reduce sum %p axes [0] : tensor<8192xf64> to tensor<f64>
  %q = expr.mul %m, %m : tensor<2x10000xf64>
  %b = expr.reduce sum %q axes [1] : tensor<2x10000xf64> to tensor<2xf64>
  %r = expr.add %k, %k : tensor<20000xi64>
  %c = expr.reduce sum %r axes [0] : tensor<20000xi64> to tensor<i64>
  %n = expr.neg %y : tensor<20000xf64>
  %d = expr.reduce max %n axes [0] : tensor<20000xf64> to tensor<f64>
  expr.return %a, %b, %c, %d : tensor<f64>, tensor<2xf64>, tensor<i64>, tensor<f64>
}
