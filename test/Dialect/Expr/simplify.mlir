// RUN: scaly-opt %s --scaly-simplify | FileCheck %s
// RUN: scaly-opt %s --canonicalize | FileCheck %s
// RUN: scaly-opt %s --pass-pipeline='builtin.module(expr.func(scaly-simplify))' | FileCheck %s
//
// The folders of the expression ops (x*1, x+(-0), x-0, x/1, --x, constant
// folding of add/mul/sin/pow/neg/div, broadcast/gather/concat/reshape of
// constants, reshape of reshape, gather of gather, gather identity, identity
// cast/concat/broadcast) and their canonicalization patterns declared in ODS
// (x - (-y) -> x + y, x + (-y) -> x - y) run under both --scaly-simplify and
// --canonicalize.

// CHECK-LABEL: expr.func @mul_one(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>
// CHECK-NOT:     expr.mul
// CHECK:         expr.return %[[X]] : tensor<3xf64>
expr.func @mul_one(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %one = expr.constant dense<1.0> : tensor<3xf64>
  %0 = expr.mul %one, %x : tensor<3xf64>
  %1 = expr.mul %0, %one : tensor<3xf64>
  expr.return %1 : tensor<3xf64>
}

// x + (-0.0) and x - 0.0 are identities for every x (x + 0.0 is not, for
// x = -0.0: see add-zero-signed.mlir).
// CHECK-LABEL: expr.func @add_sub_div_identities(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>
// CHECK-NOT:     expr.add
// CHECK-NOT:     expr.sub
// CHECK-NOT:     expr.div
// CHECK:         expr.return %[[X]] : tensor<3xf64>
expr.func @add_sub_div_identities(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %nzero = expr.constant dense<-0.0> : tensor<3xf64>
  %zero = expr.constant dense<0.0> : tensor<3xf64>
  %one = expr.constant dense<1.0> : tensor<3xf64>
  %0 = expr.add %nzero, %x : tensor<3xf64>
  %1 = expr.add %0, %nzero : tensor<3xf64>
  %2 = expr.sub %1, %zero : tensor<3xf64>
  %3 = expr.div %2, %one : tensor<3xf64>
  expr.return %3 : tensor<3xf64>
}

// The non-identity constant operand of a sub or div is kept: 0 - x and 1 / x.
// CHECK-LABEL: expr.func @no_fold_zero_minus_x(
// CHECK:         expr.sub
// CHECK:         expr.div
expr.func @no_fold_zero_minus_x(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %zero = expr.constant dense<0.0> : tensor<3xf64>
  %one = expr.constant dense<1.0> : tensor<3xf64>
  %0 = expr.sub %zero, %x : tensor<3xf64>
  %1 = expr.div %one, %x : tensor<3xf64>
  expr.return %0, %1 : tensor<3xf64>, tensor<3xf64>
}

// CHECK-LABEL: expr.func @fold_add_mul(
// CHECK-NEXT:    %[[C:.*]] = expr.constant dense<[7.500000e-01, 1.250000e+00, 1.000000e+01]> : tensor<3xf64>
// CHECK-NEXT:    expr.return %[[C]] : tensor<3xf64>
expr.func @fold_add_mul() -> tensor<3xf64> attributes {arg_names = [], res_names = ["y"]} {
  %k1 = expr.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
  %k2 = expr.constant dense<[0.5, 0.5, 2.0]> : tensor<3xf64>
  %0 = expr.add %k1, %k2 : tensor<3xf64>
  %1 = expr.mul %0, %k2 : tensor<3xf64>
  expr.return %1 : tensor<3xf64>
}

// Folding f32 constants keeps f32 precision; the folded constant moves to the right.
// CHECK-LABEL: expr.func @fold_sin_f32(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2xf32>
// CHECK:         %[[C:.*]] = expr.constant dense<[0.000000e+00, 0.841470957]> : tensor<2xf32>
// CHECK-NOT:     expr.math
// CHECK:         %[[A:.*]] = expr.add %[[X]], %[[C]] : tensor<2xf32>
// CHECK:         expr.return %[[A]]
expr.func @fold_sin_f32(%x: tensor<2xf32>) -> tensor<2xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  %k = expr.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %s = expr.math sin %k : tensor<2xf32>
  %a = expr.add %s, %x : tensor<2xf32>
  expr.return %a : tensor<2xf32>
}

// CHECK-LABEL: expr.func @fold_neg_sqrt_div_pow(
// CHECK-DAG:     %[[D:.*]] = expr.constant dense<-1.41421356237309{{[0-9]*}}> : tensor<f64>
// CHECK-DAG:     %[[P:.*]] = expr.constant dense<4.000000e+00> : tensor<3xf64>
// CHECK-NOT:     expr.math
// CHECK-NOT:     expr.neg
// CHECK-NOT:     expr.div
// CHECK-NOT:     expr.broadcast
// CHECK:         expr.return %[[D]], %[[P]]
expr.func @fold_neg_sqrt_div_pow() -> (tensor<f64>, tensor<3xf64>) attributes {arg_names = [], res_names = ["d", "p"]} {
  %h = expr.constant dense<2.0> : tensor<f64>
  %n = expr.neg %h : tensor<f64>
  %sq = expr.math sqrt %h : tensor<f64>
  %d = expr.div %n, %sq : tensor<f64>
  %b = expr.broadcast %h : tensor<f64> to tensor<3xf64>
  %p = expr.math2 pow %b, %b : tensor<3xf64>
  expr.return %d, %p : tensor<f64>, tensor<3xf64>
}

// CHECK-LABEL: expr.func @fold_structure_of_constants(
// CHECK-DAG:     %[[G:.*]] = expr.constant dense<[4.000000e+00, 2.000000e+00]> : tensor<2xf64>
// CHECK-DAG:     %[[CC:.*]] = expr.constant dense<[4.000000e+00, 2.000000e+00, 5.000000e-01, 5.000000e-01]> : tensor<4xf64>
// CHECK-DAG:     %[[RS:.*]] = expr.constant dense<{{\[\[}}4.000000e+00, 2.000000e+00], [5.000000e-01, 5.000000e-01]]> : tensor<2x2xf64>
// CHECK-NOT:     expr.gather
// CHECK-NOT:     expr.concat
// CHECK-NOT:     expr.reshape
// CHECK:         expr.return %[[G]], %[[CC]], %[[RS]]
expr.func @fold_structure_of_constants() -> (tensor<2xf64>, tensor<4xf64>, tensor<2x2xf64>) attributes {arg_names = [], res_names = ["g", "c", "r"]} {
  %h = expr.constant dense<0.5> : tensor<f64>
  %c = expr.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
  %g = expr.gather %c [3, 1] : tensor<4xf64> to tensor<2xf64>
  %cc = expr.concat %g, %h, %h : (tensor<2xf64>, tensor<f64>, tensor<f64>) -> tensor<4xf64>
  %rs = expr.reshape %cc : tensor<4xf64> to tensor<2x2xf64>
  expr.return %g, %cc, %rs : tensor<2xf64>, tensor<4xf64>, tensor<2x2xf64>
}

// CHECK-LABEL: expr.func @neg_neg(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>
// CHECK-NOT:     expr.neg
// CHECK:         expr.return %[[X]] : tensor<3xf64>
expr.func @neg_neg(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.neg %x : tensor<3xf64>
  %1 = expr.neg %0 : tensor<3xf64>
  expr.return %1 : tensor<3xf64>
}

// CHECK-LABEL: expr.func @sub_add_of_neg(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<3xf64>
// CHECK-NOT:     expr.neg
// CHECK:         %[[A:.*]] = expr.add %[[X]], %[[Y]] : tensor<3xf64>
// CHECK:         %[[S:.*]] = expr.sub %[[X]], %[[Y]] : tensor<3xf64>
// CHECK:         expr.return %[[A]], %[[S]]
expr.func @sub_add_of_neg(%x: tensor<3xf64>, %y: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {arg_names = ["x", "y"], res_names = ["a", "s"]} {
  %n = expr.neg %y : tensor<3xf64>
  %a = expr.sub %x, %n : tensor<3xf64>
  %s = expr.add %x, %n : tensor<3xf64>
  expr.return %a, %s : tensor<3xf64>, tensor<3xf64>
}

// Negated left operands stay: (-y) - x has no form with one op fewer.
// CHECK-LABEL: expr.func @neg_on_the_left(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<3xf64>
// CHECK:         %[[N:.*]] = expr.neg %[[Y]] : tensor<3xf64>
// CHECK:         %[[S:.*]] = expr.sub %[[N]], %[[X]] : tensor<3xf64>
// CHECK:         expr.return %[[S]]
expr.func @neg_on_the_left(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x", "y"], res_names = ["s"]} {
  %n = expr.neg %y : tensor<3xf64>
  %s = expr.sub %n, %x : tensor<3xf64>
  expr.return %s : tensor<3xf64>
}

// CHECK-LABEL: expr.func @reshape_of_reshape(
// CHECK-SAME:    %[[M:[^:]*]]: tensor<2x3xf64>
// CHECK-NEXT:    %[[R:.*]] = expr.reshape %[[M]] : tensor<2x3xf64> to tensor<6xf64>
// CHECK-NEXT:    expr.return %[[R]], %[[M]] : tensor<6xf64>, tensor<2x3xf64>
expr.func @reshape_of_reshape(%m: tensor<2x3xf64>) -> (tensor<6xf64>, tensor<2x3xf64>) attributes {arg_names = ["m"], res_names = ["flat", "same"]} {
  %0 = expr.reshape %m : tensor<2x3xf64> to tensor<3x2xf64>
  %1 = expr.reshape %0 : tensor<3x2xf64> to tensor<6xf64>
  %2 = expr.reshape %0 : tensor<3x2xf64> to tensor<2x3xf64>
  expr.return %1, %2 : tensor<6xf64>, tensor<2x3xf64>
}

// Reversal then every second element composes into one gather; the identity
// gather on top disappears.
// CHECK-LABEL: expr.func @gather_of_gather(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<6xf64>
// CHECK-NEXT:    %[[G:.*]] = expr.gather %[[X]] [5, 3, 1] : tensor<6xf64> to tensor<3xf64>
// CHECK-NEXT:    expr.return %[[G]] : tensor<3xf64>
expr.func @gather_of_gather(%x: tensor<6xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.gather %x [5, 4, 3, 2, 1, 0] : tensor<6xf64> to tensor<6xf64>
  %1 = expr.gather %0 [0, 2, 4] : tensor<6xf64> to tensor<3xf64>
  %2 = expr.gather %1 [0, 1, 2] : tensor<3xf64> to tensor<3xf64>
  expr.return %2 : tensor<3xf64>
}

// An identity index list over another shape is not the identity.
// CHECK-LABEL: expr.func @gather_identity_needs_same_type(
// CHECK:         expr.gather %{{.*}} [0, 1, 2, 3] : tensor<2x2xf64> to tensor<4xf64>
expr.func @gather_identity_needs_same_type(%x: tensor<2x2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.gather %x [0, 1, 2, 3] : tensor<2x2xf64> to tensor<4xf64>
  expr.return %0 : tensor<4xf64>
}

// CHECK-LABEL: expr.func @identity_cast_concat_broadcast(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<f64>
// CHECK-NEXT:    expr.return %[[S]] : tensor<f64>
expr.func @identity_cast_concat_broadcast(%s: tensor<f64>) -> tensor<f64> attributes {arg_names = ["s"], res_names = ["y"]} {
  %0 = expr.cast %s : tensor<f64> to tensor<f64>
  %1 = expr.concat %0 : (tensor<f64>) -> tensor<f64>
  %2 = expr.broadcast %1 : tensor<f64> to tensor<f64>
  expr.return %2 : tensor<f64>
}
