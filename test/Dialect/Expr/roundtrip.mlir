// RUN: scaly-opt %s | scaly-opt | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// Every expr op parses, prints and parses back: func/return, call with and
// without the block hint, map, loop/yield, constant, elementwise arithmetic,
// math/math2, cmp, select, cast, and the structural ops, over f64, f32, i32,
// i64 and i1 element types.

// CHECK-LABEL: expr.func @main(
// CHECK-SAME:    %[[X:.*]]: tensor<3xf64>, %[[S:.*]]: tensor<f64>, %[[F:.*]]: tensor<2xf32>, %[[I:.*]]: tensor<4xi32>, %[[L:.*]]: tensor<i64>, %[[B:.*]]: tensor<2xi1>)
// CHECK-SAME:    -> (tensor<3xf64>, tensor<2xf32>)
// CHECK-SAME:    attributes {arg_names = ["x", "s", "f", "i", "l", "b"], res_names = ["y", "g"]}
// CHECK:         %[[C:.*]] = expr.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf64>
// CHECK:         %[[CI:.*]] = expr.constant dense<7> : tensor<4xi32>
// CHECK:         expr.constant dense<[true, false]> : tensor<2xi1>
// CHECK:         %[[ADD:.*]] = expr.add %[[X]], %[[C]] : tensor<3xf64>
// CHECK:         %[[SUB:.*]] = expr.sub %[[ADD]], %[[X]] : tensor<3xf64>
// CHECK:         %[[MUL:.*]] = expr.mul %[[SUB]], %[[ADD]] : tensor<3xf64>
// CHECK:         %[[DIV:.*]] = expr.div %[[MUL]], %[[C]] : tensor<3xf64>
// CHECK:         %[[NEG:.*]] = expr.neg %[[DIV]] : tensor<3xf64>
// CHECK:         %[[EXP:.*]] = expr.math{{ +}}exp %[[NEG]] : tensor<3xf64>
// CHECK:         %[[SQRT:.*]] = expr.math{{ +}}sqrt %[[EXP]] : tensor<3xf64>
// CHECK:         %[[ABS:.*]] = expr.math{{ +}}abs %[[SQRT]] : tensor<3xf64>
// CHECK:         %[[SIN:.*]] = expr.math{{ +}}sin %[[F]] : tensor<2xf32>
// CHECK:         %[[POW:.*]] = expr.math2{{ +}}pow %[[ABS]], %[[C]] : tensor<3xf64>
// CHECK:         %[[ATAN2:.*]] = expr.math2{{ +}}atan2 %[[SIN]], %[[F]] : tensor<2xf32>
// CHECK:         %[[IADD:.*]] = expr.add %[[I]], %[[CI]] : tensor<4xi32>
// CHECK:         %[[CMP:.*]] = expr.cmp{{ +}}lt %[[X]], %[[C]] : tensor<3xf64> -> tensor<3xi1>
// CHECK:         %[[SEL:.*]] = expr.select %[[CMP]], %[[POW]], %[[X]] : tensor<3xi1>, tensor<3xf64>
// CHECK:         expr.cmp{{ +}}ne %[[I]], %[[CI]] : tensor<4xi32> -> tensor<4xi1>
// CHECK:         %[[CAST:.*]] = expr.cast %[[IADD]] : tensor<4xi32> to tensor<4xf64>
// CHECK:         %[[CASTB:.*]] = expr.cast %[[B]] : tensor<2xi1> to tensor<2xf32>
// CHECK:         expr.broadcast %[[S]] : tensor<f64> to tensor<3xf64>
// CHECK:         %[[RS:.*]] = expr.reshape %[[CAST]] : tensor<4xf64> to tensor<2x2xf64>
// CHECK:         %[[G:.*]] = expr.gather %[[RS]] [3, 0] : tensor<2x2xf64> to tensor<2xf64>
// CHECK:         %[[CC:.*]] = expr.concat %[[G]], %[[S]] : (tensor<2xf64>, tensor<f64>) -> tensor<3xf64>
// CHECK:         %[[SUM:.*]] = expr.sum %[[CC]] : tensor<3xf64> to tensor<f64>
// CHECK:         expr.mul %[[L]], %[[L]] : tensor<i64>
// CHECK:         %[[R1:.*]] = expr.call @helper(%[[SEL]], %[[SUM]]) : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
// CHECK:         %[[R2:.*]] = expr.call @helper(%[[R1]], %[[SUM]]) {block} : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
// CHECK:         %[[XS:.*]] = expr.reshape %[[R2]] : tensor<3xf64> to tensor<3x1xf64>
// CHECK:         %[[MP:.*]] = expr.map @scale(%[[XS]], %[[R2]]) count 3 {block} : (tensor<3x1xf64>, tensor<3xf64>) -> tensor<3x1xf64>
// CHECK:         %[[LP:.*]] = expr.loop 3{{ ?}}(%[[MP]], %[[X]]) {name = "it_y"} : (tensor<3x1xf64>, tensor<3xf64>) -> tensor<3xf64> {
// CHECK-NEXT:    ^bb0(%[[ROW:.*]]: tensor<1xf64>, %[[V:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[T:.*]] = expr.gather %[[ROW]] [0] : tensor<1xf64> to tensor<f64>
// CHECK-NEXT:      %[[U:.*]] = expr.add %[[T]], %[[V]] : tensor<f64>
// CHECK-NEXT:      expr.yield %[[U]] : tensor<f64>
// CHECK-NEXT:    }
// CHECK:         %[[FS:.*]] = expr.add %[[ATAN2]], %[[CASTB]] : tensor<2xf32>
// CHECK:         expr.return %[[LP]], %[[FS]] : tensor<3xf64>, tensor<2xf32>

// CHECK-LABEL: expr.func @helper(
// CHECK-SAME:    attributes {arg_names = ["a", "k"], block, res_names = ["r"]}
// CHECK:         expr.broadcast
// CHECK:         expr.mul
// CHECK:         expr.return

// CHECK-LABEL: expr.func @scale(
// CHECK-SAME:    %{{.*}}: tensor<1xf64>, %{{.*}}: tensor<f64>) -> tensor<1xf64>
// CHECK-NOT:     block
// CHECK:         expr.reshape %{{.*}} : tensor<f64> to tensor<1xf64>

// CHECK-LABEL: expr.func @empty()
// CHECK-SAME:    attributes {arg_names = [], res_names = []}
// CHECK-NEXT:    expr.return{{$}}

module {
  expr.func @main(%x: tensor<3xf64>, %s: tensor<f64>, %f: tensor<2xf32>, %i: tensor<4xi32>, %l: tensor<i64>, %b: tensor<2xi1>) -> (tensor<3xf64>, tensor<2xf32>) attributes {arg_names = ["x", "s", "f", "i", "l", "b"], res_names = ["y", "g"]} {
    %c = expr.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf64>
    %ci = expr.constant dense<7> : tensor<4xi32>
    %cb = expr.constant dense<[true, false]> : tensor<2xi1>
    %a = expr.add %x, %c : tensor<3xf64>
    %sb = expr.sub %a, %x : tensor<3xf64>
    %m = expr.mul %sb, %a : tensor<3xf64>
    %d = expr.div %m, %c : tensor<3xf64>
    %n = expr.neg %d : tensor<3xf64>
    %e = expr.math exp %n : tensor<3xf64>
    %q = expr.math sqrt %e : tensor<3xf64>
    %ab = expr.math abs %q : tensor<3xf64>
    %sn = expr.math sin %f : tensor<2xf32>
    %p = expr.math2 pow %ab, %c : tensor<3xf64>
    %at = expr.math2 atan2 %sn, %f : tensor<2xf32>
    %ii = expr.add %i, %ci : tensor<4xi32>
    %cmp = expr.cmp lt %x, %c : tensor<3xf64> -> tensor<3xi1>
    %sel = expr.select %cmp, %p, %x : tensor<3xi1>, tensor<3xf64>
    %cmpi = expr.cmp ne %i, %ci : tensor<4xi32> -> tensor<4xi1>
    %cast = expr.cast %ii : tensor<4xi32> to tensor<4xf64>
    %castb = expr.cast %b : tensor<2xi1> to tensor<2xf32>
    %bc = expr.broadcast %s : tensor<f64> to tensor<3xf64>
    %rs = expr.reshape %cast : tensor<4xf64> to tensor<2x2xf64>
    %g = expr.gather %rs [3, 0] : tensor<2x2xf64> to tensor<2xf64>
    %cc = expr.concat %g, %s : (tensor<2xf64>, tensor<f64>) -> tensor<3xf64>
    %sum = expr.sum %cc : tensor<3xf64> to tensor<f64>
    %li = expr.mul %l, %l : tensor<i64>
    %r1 = expr.call @helper(%sel, %sum) : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %r2 = expr.call @helper(%r1, %sum) {block} : (tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %xs = expr.reshape %r2 : tensor<3xf64> to tensor<3x1xf64>
    %mp = expr.map @scale(%xs, %r2) count 3 {block} : (tensor<3x1xf64>, tensor<3xf64>) -> tensor<3x1xf64>
    %lp = expr.loop 3 (%mp, %x) {name = "it_y"} : (tensor<3x1xf64>, tensor<3xf64>) -> tensor<3xf64> {
    ^bb0(%row: tensor<1xf64>, %v: tensor<f64>):
      %t = expr.gather %row [0] : tensor<1xf64> to tensor<f64>
      %u = expr.add %t, %v : tensor<f64>
      expr.yield %u : tensor<f64>
    }
    %fs = expr.add %at, %castb : tensor<2xf32>
    expr.return %lp, %fs : tensor<3xf64>, tensor<2xf32>
  }
  expr.func @helper(%a: tensor<3xf64>, %k: tensor<f64>) -> tensor<3xf64> attributes {arg_names = ["a", "k"], res_names = ["r"], block} {
    %b = expr.broadcast %k : tensor<f64> to tensor<3xf64>
    %r = expr.mul %a, %b : tensor<3xf64>
    expr.return %r : tensor<3xf64>
  }
  expr.func @scale(%row: tensor<1xf64>, %k: tensor<f64>) -> tensor<1xf64> attributes {arg_names = ["row", "k"], res_names = ["out"]} {
    %r = expr.reshape %k : tensor<f64> to tensor<1xf64>
    %m = expr.mul %row, %r : tensor<1xf64>
    expr.return %m : tensor<1xf64>
  }
  expr.func @empty() attributes {arg_names = [], res_names = []} {
    expr.return
  }
}
