// RUN: scaly-opt %s -split-input-file --scaly-plan-placement="scalarize-limit=4" | FileCheck %s
// RUN: not scaly-opt %s -split-input-file --scaly-plan-placement="scalarize-limit=-1" 2>&1 | FileCheck %s --check-prefix=BAD
// The same nested on each function, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-plan-placement{scalarize-limit=4}))' | FileCheck %s
//
// scaly-plan-placement puts one #expr.place per result on each op: the
// output or yielded slice it is produced in (at an offset for a part of a
// leading-axis concatenation), else a workspace window when it may need
// memory, else registers.

// BAD: scaly-plan-placement: scalarize-limit must be at least 0, got -1

// Outputs, and the parts of a stack at their offsets: the calls write
// straight into y (no copy), the first at 0, the second from element 2 on;
// the reshape of a call result is the call's memory; a small elementwise
// value is registers even on its way to an output (its scalars are stored
// there); the stack itself is the output.
// CHECK-LABEL: expr.func @stacked(
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0 offset 2>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 1>]}
// CHECK:         expr.reshape {{.*}} {expr.place = [#expr.place<output 1>]}
// CHECK:         expr.neg {{.*}} {expr.place = [#expr.place<registers>]}
// CHECK:         expr.concat {{.*}} {expr.place = [#expr.place<output 0>]}
expr.func @stacked(%x: tensor<2xf64>) -> (tensor<6xf64>, tensor<1x2xf64>) attributes {arg_names = ["x"], res_names = ["y", "r"]} {
  %a = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %c = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %r = expr.reshape %c : tensor<2xf64> to tensor<1x2xf64>
  %n = expr.neg %x : tensor<2xf64>
  %s = expr.concat %a, %b, %n : (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<6xf64>
  expr.return %s, %r : tensor<6xf64>, tensor<1x2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// Nested stacks add their offsets; a part used twice is not placed in the
// stack (it is needed on its own): its call gets a workspace window.
// CHECK-LABEL: expr.func @nested(
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0 offset 2>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0 offset 4>]}
// CHECK:         expr.concat {{.*}} {expr.place = [#expr.place<output 0 offset 2>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<workspace>]}
// CHECK:         expr.concat {{.*}} {expr.place = [#expr.place<output 0>]}
expr.func @nested(%x: tensor<2xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %a = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %ab = expr.concat %a, %b : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  %c = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %c, %ab, %c : (tensor<2xf64>, tensor<4xf64>, tensor<2xf64>) -> tensor<8xf64>
  expr.return %s : tensor<8xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A loop's results are produced in the outputs; in its body, the stacked
// value goes into this iteration's slice (yield 1) and the large carried
// one into the window of its next value (yield 0; expr.next: workspace). A
// large value with two uses that ends nowhere is spilled to a workspace
// window; a value from the enclosing block is copied, never placed in the
// slice. The function records the limit the plans follow; a loop without
// carried values has no expr.next.
// CHECK-LABEL: expr.func @scan(
// CHECK-SAME:    expr.scalarize_limit = 4 : i64
// CHECK:         expr.loop 3{{.*}} {carried = 1 : i64, expr.next = [#expr.place<workspace>], expr.place = [#expr.place<output 0>, #expr.place<output 1>], name = "it"}
// CHECK:           expr.mul {{.*}} {expr.place = [#expr.place<workspace>]}
// CHECK:           expr.add {{.*}} {expr.place = [#expr.place<yield 0>]}
// CHECK:           expr.math {{ *}}sin {{.*}} {expr.place = [#expr.place<yield 1>]}
// CHECK:         expr.loop 3{{.*}} {expr.place = [#expr.place<output 2>]}
// CHECK-NEXT:      expr.yield %{{.*}} : tensor<8xf64>
expr.func @scan(%s0: tensor<8xf64>, %t: tensor<8xf64>) -> (tensor<8xf64>, tensor<3x8xf64>, tensor<3x8xf64>) attributes {arg_names = ["s0", "t"], res_names = ["s", "ys", "ts"]} {
  %r:2 = expr.loop 3 (%s0) {carried = 1 : i64, name = "it"} : (tensor<8xf64>) -> (tensor<8xf64>, tensor<3x8xf64>) {
  ^bb0(%s: tensor<8xf64>):
    %m = expr.mul %s, %s : tensor<8xf64>
    %n = expr.add %m, %m : tensor<8xf64>
    %y = expr.math sin %n : tensor<8xf64>
    expr.yield %n, %y : tensor<8xf64>, tensor<8xf64>
  }
  %ts = expr.loop 3 () : () -> tensor<3x8xf64> {
  ^bb0:
    expr.yield %t : tensor<8xf64>
  }
  expr.return %r#0, %r#1, %ts : tensor<8xf64>, tensor<3x8xf64>, tensor<3x8xf64>
}

// -----

// A small carried value is stored from its scalars: not placed in a window
// (registers, in expr.next and for the operand). A small matrix product of a
// large operand is a prog.matmul (workspace, its stale plan recomputed); a
// small reduction is registers.
// CHECK-LABEL: expr.func @small(
// CHECK:         expr.loop 3{{.*}} {carried = 1 : i64, expr.next = [#expr.place<registers>], expr.place = [#expr.place<output 0>]}
// CHECK:           expr.neg {{.*}} {expr.place = [#expr.place<registers>]}
// CHECK:         expr.matmul {{.*}} {expr.place = [#expr.place<workspace>]}
// CHECK:         expr.reduce {{.*}} {expr.place = [#expr.place<registers>]}
expr.func @small(%s0: tensor<2xf64>, %a: tensor<2x8xf64>, %b: tensor<8x1xf64>) -> (tensor<2xf64>, tensor<2x1xf64>, tensor<2xf64>) attributes {arg_names = ["s0", "a", "b"], res_names = ["s", "p", "r"]} {
  %r = expr.loop 3 (%s0) {carried = 1 : i64} : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%s: tensor<2xf64>):
    %n = expr.neg %s : tensor<2xf64>
    expr.yield %n : tensor<2xf64>
  }
  %p = expr.matmul %a, %b {expr.place = [#expr.place<registers>]} : tensor<2x8xf64>, tensor<8x1xf64> to tensor<2x1xf64>
  %np = expr.neg %p : tensor<2x1xf64>
  %q = expr.reduce sum %a axes [1] : tensor<2x8xf64> to tensor<2xf64>
  expr.return %r, %np, %q : tensor<2xf64>, tensor<2x1xf64>, tensor<2xf64>
}

// -----

// A small stack is its output only when every part is produced in its
// place (here two call results): then it is that memory, nothing copied.
// With a part that is scalars it is registers too, stored as one; its call
// part keeps its place.
// CHECK-LABEL: expr.func @small_stacks(
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 0 offset 2>]}
// CHECK:         expr.concat {{.*}} {expr.place = [#expr.place<output 0>]}
// CHECK:         expr.call @g({{.*}}) {block, expr.place = [#expr.place<output 1>]}
// CHECK:         expr.neg {{.*}} {expr.place = [#expr.place<registers>]}
// CHECK:         expr.concat {{.*}} {expr.place = [#expr.place<registers>]}
expr.func @small_stacks(%x: tensor<2xf64>) -> (tensor<4xf64>, tensor<4xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %a = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %b = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %s = expr.concat %a, %b : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  %c = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %n = expr.neg %x : tensor<2xf64>
  %t = expr.concat %c, %n : (tensor<2xf64>, tensor<2xf64>) -> tensor<4xf64>
  expr.return %s, %t : tensor<4xf64>, tensor<4xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
