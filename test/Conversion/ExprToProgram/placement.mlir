// RUN: scaly-opt %s -split-input-file --scaly-lower-to-program | FileCheck %s
//
// scaly-lower-to-program puts values where expr.place says (plans written
// here by hand; scaly-plan-placement's own are in
// test/Dialect/Expr/plan-placement.mlir). Two calls planned into output 0,
// the second from element 2 on: each writes its part of y, the stack is y
// itself, nothing is copied.
// CHECK-LABEL: prog.proc @stacked(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Y]], %[[W]])
// CHECK-NEXT:    %[[Y2:.*]] = prog.offset %[[Y]] {bias = 2 : i64} : <f64> -> <f64>
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Y2]], %[[W]])
// CHECK-NEXT:    prog.return
expr.func @stacked(%x: tensor<2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.call @g(%x) {block, expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block, expr.place = [#expr.place<output 0 offset 2>]} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %a, %b {expr.place = [#expr.place<output 0>]} : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// The same with the second call planned into the workspace: it writes a
// window, and the stack is copied into y from both.
// CHECK-LABEL: prog.proc @stacked(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Y]], %[[W]])
// CHECK-NEXT:    %[[WIN:.*]] = prog.window %[[W]] size 2
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[WIN]], %[[W]])
// CHECK:         prog.store {{.*}} to %[[Y]][0] : f64, f64, f64, f64 into <f64>
// CHECK-NEXT:    prog.return
expr.func @stacked(%x: tensor<2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.call @g(%x) {block, expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block, expr.place = [#expr.place<workspace>]} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %a, %b {expr.place = [#expr.place<output 0>]} : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
