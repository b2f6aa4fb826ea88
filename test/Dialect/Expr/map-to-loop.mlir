// RUN: scaly-opt %s --scaly-map-to-loop | FileCheck %s
//
// expr.map becomes an expr.loop over the same operands whose body calls the
// mapped function on one slice of each operand and yields its results. The
// map's block hint stays on the call; the loop is named it_<output> when the
// enclosing function has one output, plain "it" otherwise.

// CHECK-LABEL: expr.func @rollout(
// CHECK-SAME:    %[[ZS:[^:]*]]: tensor<20xf64>, %[[US:[^:]*]]: tensor<10xf64>
// CHECK-NOT:     expr.map
// CHECK:         %[[Z:.*]] = expr.reshape %[[ZS]] : tensor<20xf64> to tensor<10x2xf64>
// CHECK:         %[[L:.*]] = expr.loop 10{{ ?}}(%[[Z]], %[[US]]) {name = "it_zn"} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64> {
// CHECK-NEXT:    ^bb0(%[[ZI:.*]]: tensor<2xf64>, %[[UI:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[C:.*]] = expr.call @euler(%[[ZI]], %[[UI]]) {block} : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
// CHECK-NEXT:      expr.yield %[[C]] : tensor<2xf64>
// CHECK-NEXT:    }
// CHECK:         %[[R:.*]] = expr.reshape %[[L]] : tensor<10x2xf64> to tensor<20xf64>
// CHECK:         expr.return %[[R]]
expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64> attributes {arg_names = ["zs", "us"], res_names = ["zn"]} {
  %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>
  %1 = expr.map @euler(%0, %us) count 10 {block} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>
  %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>
  expr.return %2 : tensor<20xf64>
}

// The mapped function itself is left alone.
// CHECK-LABEL: expr.func @euler(
// CHECK-SAME:    block
// CHECK:         expr.math{{ +}}sin
expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"], block} {
  %c = expr.constant dense<0.1> : tensor<f64>
  %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>
  %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>
  %s = expr.math sin %u : tensor<f64>
  %a = expr.mul %c, %s : tensor<f64>
  %b = expr.add %z0, %a : tensor<f64>
  %r = expr.concat %b, %z1 : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
  expr.return %r : tensor<2xf64>
}

// Without the hint the call has no block attribute; several results are all
// yielded; two outputs give the plain counter name.
// CHECK-LABEL: expr.func @two_results(
// CHECK:         %[[L:.*]]:2 = expr.loop 4{{ ?}}(%{{.*}}, %{{.*}}) {name = "it"} : (tensor<4x2xf64>, tensor<4xf32>) -> (tensor<4x2xf64>, tensor<4xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2xf64>, %[[K:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[C:.*]]:2 = expr.call @pair(%[[X]], %[[K]]) : (tensor<2xf64>, tensor<f32>) -> (tensor<2xf64>, tensor<f32>)
// CHECK-NEXT:      expr.yield %[[C]]#0, %[[C]]#1 : tensor<2xf64>, tensor<f32>
// CHECK-NEXT:    }
// CHECK-NEXT:    expr.return %[[L]]#0, %[[L]]#1
expr.func @two_results(%xs: tensor<4x2xf64>, %k: tensor<4xf32>) -> (tensor<4x2xf64>, tensor<4xf32>) attributes {arg_names = ["xs", "k"], res_names = ["a", "b"]} {
  %0, %1 = expr.map @pair(%xs, %k) count 4 : (tensor<4x2xf64>, tensor<4xf32>) -> (tensor<4x2xf64>, tensor<4xf32>)
  expr.return %0, %1 : tensor<4x2xf64>, tensor<4xf32>
}

expr.func @pair(%x: tensor<2xf64>, %k: tensor<f32>) -> (tensor<2xf64>, tensor<f32>) attributes {arg_names = ["x", "k"], res_names = ["p", "q"]} {
  expr.return %x, %k : tensor<2xf64>, tensor<f32>
}

// A mapped function that itself maps: both maps are rewritten, each loop
// named after the output of the function it is in.
// CHECK-LABEL: expr.func @grid(
// CHECK:         expr.loop 2{{ ?}}(%{{.*}}) {name = "it_g"}
// CHECK:           expr.call @rows(%{{.*}}) {block} : (tensor<3xf64>) -> tensor<3xf64>
// CHECK-LABEL: expr.func @rows(
// CHECK:         expr.loop 3{{ ?}}(%{{.*}}) {name = "it_r"}
// CHECK:           expr.call @neg1(%{{.*}}) : (tensor<f64>) -> tensor<f64>
// CHECK-NOT:     expr.map
expr.func @grid(%m: tensor<2x3xf64>) -> tensor<2x3xf64> attributes {arg_names = ["m"], res_names = ["g"]} {
  %0 = expr.map @rows(%m) count 2 {block} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  expr.return %0 : tensor<2x3xf64>
}
expr.func @rows(%r: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["row"], res_names = ["r"]} {
  %0 = expr.map @neg1(%r) count 3 : (tensor<3xf64>) -> tensor<3xf64>
  expr.return %0 : tensor<3xf64>
}
expr.func @neg1(%s: tensor<f64>) -> tensor<f64> attributes {arg_names = ["s"], res_names = ["n"]} {
  %0 = expr.neg %s : tensor<f64>
  expr.return %0 : tensor<f64>
}
