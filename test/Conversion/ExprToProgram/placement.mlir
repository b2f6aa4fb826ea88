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
// window; the stack, planned into registers, is the two calls' scalars,
// stored into y.
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
  %s = expr.concat %a, %b {expr.place = [#expr.place<registers>]} : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A loop planned into output 0 and the call in its body into its yielded
// slice (yield 0): the call writes row r of d.
// CHECK-LABEL: prog.proc @rows(
// CHECK-SAME:    %[[M:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[R:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[MR:.*]] = prog.offset %[[M]][%[[R]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[DR:.*]] = prog.offset %[[D]][%[[R]]] {scale = 2 : i64}
// CHECK-NEXT:      prog.call @g_raw(%[[MR]], %[[DR]], %[[W]])
// CHECK-NEXT:    } {scaly.name = "row"}
// CHECK-NEXT:    prog.return
expr.func @rows(%m: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {arg_names = ["m"], res_names = ["d"]} {
  %0 = expr.loop 3 (%m) {name = "row", expr.place = [#expr.place<output 0>]} : (tensor<3x2xf64>) -> tensor<3x2xf64> {
  ^bb0(%r: tensor<2xf64>):
    %a = expr.call @g(%r) {block, expr.place = [#expr.place<yield 0>]} : (tensor<2xf64>) -> tensor<2xf64>
    expr.yield %a : tensor<2xf64>
  }
  expr.return %0 : tensor<3x2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// Both planned into the workspace: the loop's stacked result is a window,
// the call writes a window of its own, copied into the row's slice, and the
// stacked window is copied into d at the end.
// CHECK-LABEL: prog.proc @rows(
// CHECK-SAME:    %[[M:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    %[[ALL:.*]] = prog.window %[[W]] size 6
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[R:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[MR:.*]] = prog.offset %[[M]][%[[R]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[AR:.*]] = prog.offset %[[ALL]][%[[R]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[ROW:.*]] = prog.window %[[W]] size 2
// CHECK-NEXT:      prog.call @g_raw(%[[MR]], %[[ROW]], %[[W]])
// CHECK:           prog.store {{.*}} to %[[AR]][0] : f64, f64 into <f64>
// CHECK-NEXT:    } {scaly.name = "row"}
// CHECK:         prog.store {{.*}} to %[[D]][0] : f64, f64, f64, f64, f64, f64 into <f64>
// CHECK-NEXT:    prog.return
expr.func @rows(%m: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {arg_names = ["m"], res_names = ["d"]} {
  %0 = expr.loop 3 (%m) {name = "row", expr.place = [#expr.place<workspace>]} : (tensor<3x2xf64>) -> tensor<3x2xf64> {
  ^bb0(%r: tensor<2xf64>):
    %a = expr.call @g(%r) {block, expr.place = [#expr.place<workspace>]} : (tensor<2xf64>) -> tensor<2xf64>
    expr.yield %a : tensor<2xf64>
  }
  expr.return %0 : tensor<3x2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x {expr.place = [#expr.place<registers>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A small value planned into its output rather than registers is computed
// by a loop straight into it: the plan, not the size, decides.
// CHECK-LABEL: prog.proc @looped(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           arith.negf
// CHECK-NEXT:      %[[YI:.*]] = prog.offset %[[Y]][%[[I]]]
// CHECK-NEXT:      prog.store %{{.*}} to %[[YI]][0]
// CHECK-NEXT:    } {scaly.name = "i"}
// CHECK-NEXT:    prog.return
expr.func @looped(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.neg %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
