// RUN: scaly-opt %s --scaly-differentiate --split-input-file | FileCheck %s
//
// scaly-differentiate replaces expr.jvp / expr.vjp by calls of generated
// derivative functions built from each op's rules. Structure is kept: the
// derivative of a contraction is contractions, of a reduction a broadcast,
// of a map a map, of a call a call.

// Reverse mode: the primal is recomputed, then the rules run last op first.
// CHECK-LABEL: expr.func @f_vjp_11_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<f64>, %[[W:[^:]*]]: tensor<f64>) -> (tensor<3xf64>, tensor<f64>)
// CHECK-SAME:    arg_names = ["x", "y", "adj_out"], res_names = ["adj_x", "adj_y"]
// CHECK-DAG:     %[[S:.*]] = expr.math{{ +}}sin %[[X]]
// CHECK-DAG:     %[[B:.*]] = expr.broadcast %[[Y]] : tensor<f64> to tensor<3xf64>
// CHECK:         %[[WR:.*]] = expr.reshape %[[W]] : tensor<f64> to tensor<1xf64>
// CHECK:         %[[WB:.*]] = expr.broadcast %[[WR]] : tensor<1xf64> to tensor<3xf64>
// CHECK:         %[[DS:.*]] = expr.mul %[[WB]], %[[B]]
// CHECK:         %[[DB:.*]] = expr.mul %[[WB]], %[[S]]
// CHECK:         %[[DY:.*]] = expr.reduce{{ +}}sum %[[DB]] axes [0] : tensor<3xf64> to tensor<f64>
// CHECK:         %[[C:.*]] = expr.math{{ +}}cos %[[X]]
// CHECK:         %[[DX:.*]] = expr.mul %[[DS]], %[[C]]
// CHECK:         expr.return %[[DX]], %[[DY]]
// CHECK-LABEL: expr.func @grad(
// CHECK:         expr.call @f_vjp_11_1(
// CHECK-NOT:     expr.vjp
expr.func @f(%x: tensor<3xf64>, %y: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x", "y"], res_names = ["out"]} {
  %s = expr.math sin %x : tensor<3xf64>
  %b = expr.broadcast %y : tensor<f64> to tensor<3xf64>
  %m = expr.mul %s, %b : tensor<3xf64>
  %r = expr.reduce sum %m axes [0] : tensor<3xf64> to tensor<f64>
  expr.return %r : tensor<f64>
}
expr.func @grad(%x: tensor<3xf64>, %y: tensor<f64>) -> (tensor<3xf64>, tensor<f64>) attributes {arg_names = ["x", "y"], res_names = ["gx", "gy"], entry} {
  %one = expr.constant dense<1.0> : tensor<f64>
  %gx, %gy = expr.vjp @f(%x, %y, %one) wrt [true, true] of [true] : (tensor<3xf64>, tensor<f64>, tensor<f64>) -> (tensor<3xf64>, tensor<f64>)
  expr.return %gx, %gy : tensor<3xf64>, tensor<f64>
}

// -----

// Forward mode through a contraction: dC = dA B + A dB, two matmuls.
// CHECK-LABEL: expr.func @mm_jvp_11(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x5xf64>, %[[B:[^:]*]]: tensor<5x6xf64>, %[[DA:[^:]*]]: tensor<4x5xf64>, %[[DB:[^:]*]]: tensor<5x6xf64>)
// CHECK:         %[[L:.*]] = expr.matmul %[[DA]], %[[B]]
// CHECK:         %[[R:.*]] = expr.matmul %[[A]], %[[DB]]
// CHECK:         %[[S:.*]] = expr.add %[[L]], %[[R]]
// CHECK:         expr.return %[[S]]
expr.func @mm(%a: tensor<4x5xf64>, %b: tensor<5x6xf64>) -> tensor<4x6xf64> attributes {arg_names = ["a", "b"], res_names = ["c"]} {
  %c = expr.matmul %a, %b : tensor<4x5xf64>, tensor<5x6xf64> to tensor<4x6xf64>
  expr.return %c : tensor<4x6xf64>
}
expr.func @main(%a: tensor<4x5xf64>, %b: tensor<5x6xf64>, %da: tensor<4x5xf64>, %db: tensor<5x6xf64>) -> tensor<4x6xf64> attributes {arg_names = ["a", "b", "da", "db"], res_names = ["dc"], entry} {
  %dc = expr.jvp @mm(%a, %b, %da, %db) wrt [true, true] : (tensor<4x5xf64>, tensor<5x6xf64>, tensor<4x5xf64>, tensor<5x6xf64>) -> tensor<4x6xf64>
  expr.return %dc : tensor<4x6xf64>
}

// -----

// Reverse mode through a map is a map of the step's reverse function; an
// operand passed whole to every iteration gets the sum over iterations.
// CHECK-LABEL: expr.func @step_vjp_11_1(
// CHECK-LABEL: expr.func @rollout_vjp_11_1(
// CHECK:         %[[M:.*]]:2 = expr.map @step_vjp_11_1({{.*}}) count 100 {mapped = array<i1: true, false, true>}
// CHECK:         %[[P:.*]] = expr.reduce{{ +}}sum %[[M]]#1 axes [0] : tensor<100xf64> to tensor<f64>
// CHECK:         expr.return %[[M]]#0, %[[P]]
expr.func @step(%x: tensor<f64>, %p: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x", "p"], res_names = ["y"]} {
  %y = expr.mul %x, %p : tensor<f64>
  expr.return %y : tensor<f64>
}
expr.func @rollout(%xs: tensor<100xf64>, %p: tensor<f64>) -> tensor<100xf64> attributes {arg_names = ["xs", "p"], res_names = ["ys"]} {
  %ys = expr.map @step(%xs, %p) count 100 {mapped = array<i1: true, false>} : (tensor<100xf64>, tensor<f64>) -> tensor<100xf64>
  expr.return %ys : tensor<100xf64>
}
expr.func @main(%xs: tensor<100xf64>, %p: tensor<f64>, %w: tensor<100xf64>) -> (tensor<100xf64>, tensor<f64>) attributes {arg_names = ["xs", "p", "w"], res_names = ["gx", "gp"], entry} {
  %gx, %gp = expr.vjp @rollout(%xs, %p, %w) wrt [true, true] of [true] : (tensor<100xf64>, tensor<f64>, tensor<100xf64>) -> (tensor<100xf64>, tensor<f64>)
  expr.return %gx, %gp : tensor<100xf64>, tensor<f64>
}

// -----

// The reverse of a strided slice is a strided insertion built from
// reshapes, concats with zeros and slices (no scatter, no per-element list).
// CHECK-LABEL: expr.func @pick_vjp_1_1(
// CHECK-NOT:     expr.gather
// CHECK:         expr.concat
// CHECK:         expr.return {{.*}} : tensor<10xf64>
expr.func @pick(%x: tensor<10xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %y = expr.slice %x starts [1] steps [2] : tensor<10xf64> to tensor<4xf64>
  expr.return %y : tensor<4xf64>
}
expr.func @main(%x: tensor<10xf64>, %w: tensor<4xf64>) -> tensor<10xf64> attributes {arg_names = ["x", "w"], res_names = ["g"], entry} {
  %g = expr.vjp @pick(%x, %w) wrt [true] of [true] : (tensor<10xf64>, tensor<4xf64>) -> tensor<10xf64>
  expr.return %g : tensor<10xf64>
}

// -----

// Derivatives of derivatives: the inner vjp is eliminated before its
// function is differentiated again (forward over reverse).
// CHECK-LABEL: expr.func @sq_vjp_1_1(
// CHECK-LABEL: expr.func @g_jvp_1(
// CHECK:         expr.call @sq_vjp_1_1_jvp_10(
// CHECK-NOT:     expr.vjp
// CHECK-NOT:     expr.jvp
expr.func @sq(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %y = expr.math sin %x : tensor<f64>
  expr.return %y : tensor<f64>
}
expr.func @g(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["dy"]} {
  %one = expr.constant dense<1.0> : tensor<f64>
  %d = expr.vjp @sq(%x, %one) wrt [true] of [true] : (tensor<f64>, tensor<f64>) -> tensor<f64>
  expr.return %d : tensor<f64>
}
expr.func @main(%x: tensor<f64>, %t: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x", "t"], res_names = ["h"], entry} {
  %h = expr.jvp @g(%x, %t) wrt [true] : (tensor<f64>, tensor<f64>) -> tensor<f64>
  expr.return %h : tensor<f64>
}

// -----

// Reverse mode through a select: the cotangent of the taken branch is zero
// where the branch is not taken, and stays zero through the branch's rules
// (the product with sqrt's derivative, NaN at x < 0, is selected again), as
// forward mode selects after multiplying.
// CHECK-LABEL: expr.func @guarded_vjp_1_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[W:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[C:.*]] = expr.cmp{{ +}}gt %[[X]]
// CHECK:         %[[S:.*]] = expr.math{{ +}}sqrt %[[X]]
// CHECK:         %[[WT:.*]] = expr.select %[[C]], %[[W]], %{{.*}} : tensor<3xi1>, tensor<3xf64>
// CHECK:         %[[D:.*]] = expr.div %{{.*}}, %[[S]]
// CHECK:         %[[P:.*]] = expr.mul %[[WT]], %[[D]]
// CHECK:         %[[R:.*]] = expr.select %[[C]], %[[P]], %{{.*}} : tensor<3xi1>, tensor<3xf64>
// CHECK:         expr.return %[[R]]
expr.func @guarded(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %zero = expr.constant dense<0.0> : tensor<3xf64>
  %c = expr.cmp gt %x, %zero : tensor<3xf64> -> tensor<3xi1>
  %s = expr.math sqrt %x : tensor<3xf64>
  %y = expr.select %c, %s, %zero : tensor<3xi1>, tensor<3xf64>
  expr.return %y : tensor<3xf64>
}
expr.func @grad_guarded(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x", "w"], res_names = ["gx"], entry} {
  %gx = expr.vjp @guarded(%x, %w) wrt [true] of [true] : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  expr.return %gx : tensor<3xf64>
}

// -----

// Reverse mode through a product over an axis: each element's partial is the
// product of the elements before it times the product of those after it, two
// scans of one running-product step along that axis (moved to the front), so
// it is exact with zeros to every order: no division, no select on zeros.
// CHECK-LABEL: expr.func @rowprod_vjp_1_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf64>, %[[W:[^:]*]]: tensor<3xf64>)
// CHECK-NOT:     expr.div
// CHECK-NOT:     expr.select
// CHECK:         %[[T:.*]] = expr.transpose %[[X]] [1, 0] : tensor<3x4xf64> to tensor<4x3xf64>
// CHECK:         %[[R:.*]] = expr.slice %[[T]] starts [3, 0] steps [-1, 1]
// CHECK:         %[[AFTER:.*]]:2 = expr.scan @[[STEP:rowprod_vjp_1_1_running_prod]](%{{.*}}, %[[R]]) count 4
// CHECK:         %[[A:.*]] = expr.slice %[[AFTER]]#1 starts [3, 0] steps [-1, 1]
// CHECK:         %[[BEFORE:.*]]:2 = expr.scan @[[STEP]](%{{.*}}, %[[T]]) count 4
// CHECK:         %[[O:.*]] = expr.mul %[[BEFORE]]#1, %[[A]] : tensor<4x3xf64>
// CHECK:         %[[OT:.*]] = expr.transpose %[[O]] [1, 0] : tensor<4x3xf64> to tensor<3x4xf64>
// CHECK:         expr.mul %{{.*}}, %[[OT]]
// CHECK-LABEL: expr.func @rowprod_vjp_1_1_running_prod(
// CHECK-SAME:    %[[P:[^:]*]]: tensor<3xf64>, %[[E:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[N:.*]] = expr.mul %[[P]], %[[E]]
// CHECK:         expr.return %[[N]], %[[P]]
expr.func @rowprod(%x: tensor<3x4xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %r = expr.reduce prod %x axes [1] : tensor<3x4xf64> to tensor<3xf64>
  expr.return %r : tensor<3xf64>
}
expr.func @grad_rowprod(%x: tensor<3x4xf64>, %w: tensor<3xf64>) -> tensor<3x4xf64> attributes {arg_names = ["x", "w"], res_names = ["g"], entry} {
  %g = expr.vjp @rowprod(%x, %w) wrt [true] of [true] : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  expr.return %g : tensor<3x4xf64>
}
