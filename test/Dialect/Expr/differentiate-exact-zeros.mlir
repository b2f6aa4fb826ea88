// RUN: scaly-opt %s --scaly-differentiate --split-input-file | FileCheck %s
//
// expr.jvp / expr.vjp with `exact_zeros` (the compressed sweeps of Jacobians
// and Hessians, issue 33): each product of a tangent or cotangent with a
// partial is an expr.mul / expr.div with `exact_zeros`, so a zero seed times
// an infinite or NaN partial stays zero. The function, and the callee
// derivatives it asks for, are named with `_exact`; without the attribute
// the products are plain.

// CHECK-LABEL: expr.func @f_jvp_10(
// CHECK:         expr.mul %{{.*}}, %{{.*}} : tensor<3xf64>
// CHECK-NOT:     exact_zeros
// CHECK:         expr.return
// CHECK-LABEL: expr.func @f_jvp_10_exact(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<3xf64>, %[[T:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[C:.*]] = expr.math{{ +}}cos %[[X]]
// CHECK:         %[[DS:.*]] = expr.mul %[[T]], %[[C]] {exact_zeros}
// CHECK:         %[[DM:.*]] = expr.mul %[[DS]], %[[Y]] {exact_zeros}
// CHECK:         %[[DQ:.*]] = expr.div %[[DM]], %[[Y]] {exact_zeros}
// CHECK:         expr.return %[[DQ]]
expr.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x", "y"], res_names = ["out"]} {
  %s = expr.math sin %x : tensor<3xf64>
  %m = expr.mul %s, %y : tensor<3xf64>
  %q = expr.div %m, %y : tensor<3xf64>
  expr.return %q : tensor<3xf64>
}
expr.func @sweep(%x: tensor<3xf64>, %y: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {arg_names = ["x", "y", "t"], res_names = ["d", "e"], entry} {
  %d = expr.jvp @f(%x, %y, %t) wrt [true, false] {exact_zeros} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %e = expr.jvp @f(%x, %y, %t) wrt [true, false] : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  expr.return %d, %e : tensor<3xf64>, tensor<3xf64>
}

// -----

// A product with a finite constant without zeros is exact already: plain.
// A called function's derivative is made in the caller's mode.
// CHECK-LABEL: expr.func @inner_vjp_1_1_exact(
// CHECK:         expr.mul %{{.*}}, %{{.*}} : tensor<2xf64>
// CHECK:         expr.mul %{{.*}}, %{{.*}} {exact_zeros} : tensor<2xf64>
// CHECK-LABEL: expr.func @g_vjp_1_1_exact(
// CHECK:         expr.call @inner_vjp_1_1_exact(
expr.func @inner(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %c = expr.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %e = expr.math exp %x : tensor<2xf64>
  %m = expr.mul %e, %c : tensor<2xf64>
  expr.return %m : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %y = expr.call @inner(%x) : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %y : tensor<2xf64>
}
expr.func @rows(%x: tensor<2xf64>, %w: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x", "w"], res_names = ["r"], entry} {
  %r = expr.vjp @g(%x, %w) wrt [true] of [true] {exact_zeros} : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  expr.return %r : tensor<2xf64>
}

// -----

// A matrix product with a constant that has zeros: the terms are summed with
// lin's non-finite elements set to zero; where a non-finite element meets a
// nonzero of the constant (a product of 0/1 indicators), the plain product.
// CHECK-LABEL: expr.func @lin_jvp_1_exact(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x1xf64>, %[[T:[^:]*]]: tensor<2x1xf64>)
// CHECK-DAG:     %[[A:.*]] = expr.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 2.000000e+00]]>
// CHECK-DAG:     %[[BAD:.*]] = expr.cmp{{ +}}ne
// CHECK-DAG:     %[[CLEAN:.*]] = expr.select %[[BAD]], %{{.*}}, %[[T]]
// CHECK-DAG:     %[[FIN:.*]] = expr.matmul %[[A]], %[[CLEAN]]
// CHECK-DAG:     %[[POISON:.*]] = expr.matmul %{{.*}}, %{{.*}} : tensor<2x2xf64>, tensor<2x1xf64>
// CHECK-DAG:     %[[PLAIN:.*]] = expr.matmul %[[A]], %[[T]]
// CHECK:         %[[HIT:.*]] = expr.cmp{{ +}}gt %[[POISON]]
// CHECK:         %[[R:.*]] = expr.select %[[HIT]], %[[PLAIN]], %[[FIN]]
// CHECK:         expr.return %[[R]]
expr.func @lin(%x: tensor<2x1xf64>) -> tensor<2x1xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.constant dense<[[1.0, 0.0], [0.0, 2.0]]> : tensor<2x2xf64>
  %y = expr.matmul %a, %x : tensor<2x2xf64>, tensor<2x1xf64> to tensor<2x1xf64>
  expr.return %y : tensor<2x1xf64>
}
expr.func @lin_sweep(%x: tensor<2x1xf64>, %t: tensor<2x1xf64>) -> tensor<2x1xf64> attributes {arg_names = ["x", "t"], res_names = ["d"], entry} {
  %d = expr.jvp @lin(%x, %t) wrt [true] {exact_zeros} : (tensor<2x1xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
  expr.return %d : tensor<2x1xf64>
}
