// RUN: scaly-opt %s -split-input-file --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s
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
expr.func @stacked(%x: tensor<2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  %a = expr.call @g(%x) {block, expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block, expr.place = [#expr.place<output 0 offset 2>]} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %a, %b {expr.place = [#expr.place<output 0>]} : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
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
expr.func @stacked(%x: tensor<2xf64>) -> tensor<4xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  %a = expr.call @g(%x) {block, expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block, expr.place = [#expr.place<workspace>]} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %a, %b {expr.place = [#expr.place<registers>]} : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s : tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
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
expr.func @rows(%m: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {arg_names = ["m"], res_names = ["d"], expr.scalarize_limit = 64} {
  %0 = expr.loop 3 (%m) {name = "row", expr.place = [#expr.place<output 0>]} : (tensor<3x2xf64>) -> tensor<3x2xf64> {
  ^bb0(%r: tensor<2xf64>):
    %a = expr.call @g(%r) {block, expr.place = [#expr.place<yield 0>]} : (tensor<2xf64>) -> tensor<2xf64>
    expr.yield %a : tensor<2xf64>
  }
  expr.return %0 : tensor<3x2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
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
expr.func @rows(%m: tensor<3x2xf64>) -> tensor<3x2xf64> attributes {arg_names = ["m"], res_names = ["d"], expr.scalarize_limit = 64} {
  %0 = expr.loop 3 (%m) {name = "row", expr.place = [#expr.place<workspace>]} : (tensor<3x2xf64>) -> tensor<3x2xf64> {
  ^bb0(%r: tensor<2xf64>):
    %a = expr.call @g(%r) {block, expr.place = [#expr.place<workspace>]} : (tensor<2xf64>) -> tensor<2xf64>
    expr.yield %a : tensor<2xf64>
  }
  expr.return %0 : tensor<3x2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block, expr.scalarize_limit = 64} {
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
expr.func @looped(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], expr.scalarize_limit = 64} {
  %0 = expr.neg %x {expr.place = [#expr.place<output 0>]} : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// expr.next decides where a carried value's next value is built, not its
// size: a small one planned into the workspace is built in a window of its
// own (here from scalars) and copied over the carried memory at the end of
// the body.
// CHECK-LABEL: prog.proc @small_next_in_window(
// CHECK-SAME:    %[[S0:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK:         prog.store %{{.*}}, %{{.*}} to %[[S]][0] : f64, f64 into <f64>
// CHECK-NEXT:    %[[NEXT:.*]] = prog.window %[[W]] size 2
// CHECK:         scf.for
// CHECK:           arith.negf
// CHECK:           arith.negf
// CHECK-NEXT:      prog.store %{{.*}}, %{{.*}} to %[[NEXT]][0] : f64, f64 into <f64>
// CHECK:           scf.for
// CHECK:             prog.load
// CHECK:             prog.store %{{.*}} to %{{.*}}[0] : f64 into <f64>
// CHECK-NEXT:      } {scaly.name = "i"}
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.return
expr.func @small_next_in_window(%s0: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["s0"], res_names = ["s"], expr.scalarize_limit = 64} {
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<workspace>], expr.place = [#expr.place<output 0>]} : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%s: tensor<2xf64>):
    %n = expr.neg %s {expr.place = [#expr.place<registers>]} : tensor<2xf64>
    expr.yield %n : tensor<2xf64>
  }
  expr.return %r : tensor<2xf64>
}

// -----

// A large next value planned into registers is read element by element, all
// before the one store over the carried memory: no window for it. The
// function's limit (4, recorded by scaly-plan-placement; the lowering has no
// option of its own) makes the 6 elements large: the initial value is
// copied by a loop, and the negation planned into the workspace is a loop
// into a window.
// CHECK-LABEL: prog.proc @large_next_in_registers(
// CHECK-SAME:    %[[S0:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK:         scf.for
// CHECK:           prog.load
// CHECK:           prog.store %{{.*}} to %{{.*}}[0] : f64 into <f64>
// CHECK-NEXT:    } {scaly.name = "i"}
// CHECK:         scf.for
// CHECK-NEXT:      prog.offset %[[S]] : <f64> -> <const f64>
// CHECK-NEXT:      %[[NEG:.*]] = prog.window %[[W]] size 6
// CHECK:           scf.for
// CHECK:             arith.negf
// CHECK:           } {scaly.name = "i"}
// CHECK-COUNT-6:   prog.load %[[NEG]]
// CHECK-NEXT:      prog.store {{.*}} to %[[S]][0] : f64, f64, f64, f64, f64, f64 into <f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.return
expr.func @large_next_in_registers(%s0: tensor<6xf64>) -> tensor<6xf64> attributes {arg_names = ["s0"], res_names = ["s"], expr.scalarize_limit = 4} {
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<registers>], expr.place = [#expr.place<output 0>]} : (tensor<6xf64>) -> tensor<6xf64> {
  ^bb0(%s: tensor<6xf64>):
    %n = expr.neg %s {expr.place = [#expr.place<workspace>]} : tensor<6xf64>
    expr.yield %n : tensor<6xf64>
  }
  expr.return %r : tensor<6xf64>
}

// -----

// The same function with the default limit recorded (64): the initial value
// is copied element by element.
// CHECK-LABEL: prog.proc @large_next_in_registers(
// CHECK-SAME:    %[[S0:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-COUNT-6: prog.load %[[S0]]
// CHECK-NEXT:    prog.store {{.*}} to %[[S]][0] : f64, f64, f64, f64, f64, f64 into <f64>
// CHECK-NOT:     prog.load %[[S0]]
// CHECK:         scf.for
expr.func @large_next_in_registers(%s0: tensor<6xf64>) -> tensor<6xf64> attributes {arg_names = ["s0"], res_names = ["s"], expr.scalarize_limit = 64} {
  %r = expr.loop 3 (%s0) {carried = 1 : i64, expr.next = [#expr.place<registers>], expr.place = [#expr.place<output 0>]} : (tensor<6xf64>) -> tensor<6xf64> {
  ^bb0(%s: tensor<6xf64>):
    %n = expr.neg %s {expr.place = [#expr.place<workspace>]} : tensor<6xf64>
    expr.yield %n : tensor<6xf64>
  }
  expr.return %r : tensor<6xf64>
}
