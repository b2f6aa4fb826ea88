// RUN: scaly-opt %s --split-input-file --canonicalize | FileCheck %s
// RUN: scaly-opt %s --split-input-file --scaly-simplify | FileCheck %s
//
// expr.loop's canonicalization pattern (hasCanonicalizer in ODS, also run by
// --scaly-simplify) drops dead results: a stacked result nobody uses, and a
// carried value whose final value is unused and which no kept result reads;
// then the body's work that fed only them, and sliced operands left unread.
// A used result stays, and so does a carried value a kept one's update reads.

// A scan whose stacked output is discarded: the loop keeps its state only;
// the cos that computed the output is gone, and so is the operand only it
// read.
// CHECK-LABEL: expr.func @discarded_output(
// CHECK:         %[[L:.*]] = expr.loop 100000{{ ?}}(%{{[^,]*}}) {carried = 1 : i64, name = "it"} : (tensor<2xf64>) -> tensor<2xf64> {
// CHECK-NOT:       expr.math{{ +}}cos
// CHECK:           expr.yield %{{.*}} : tensor<2xf64>
// CHECK:         expr.return %[[L]] : tensor<2xf64>
expr.func @discarded_output(%s0: tensor<2xf64>, %us: tensor<100000xf64>) -> tensor<2xf64> attributes {arg_names = ["s0", "us"], res_names = ["out"]} {
  %r:2 = expr.loop 100000 (%s0, %us) {carried = 1 : i64, name = "it"} : (tensor<2xf64>, tensor<100000xf64>) -> (tensor<2xf64>, tensor<100000xf64>) {
  ^bb0(%s: tensor<2xf64>, %u: tensor<f64>):
    %n = expr.math sin %s : tensor<2xf64>
    %a = expr.gather %s [0] : tensor<2xf64> to tensor<f64>
    %au = expr.mul %a, %u : tensor<f64>
    %y = expr.math cos %au : tensor<f64>
    expr.yield %n, %y : tensor<2xf64>, tensor<f64>
  }
  expr.return %r#0 : tensor<2xf64>
}

// -----

// Negative: every result used; nothing changes.
// CHECK-LABEL: expr.func @all_used(
// CHECK:         %[[L:.*]]:2 = expr.loop 8{{ ?}}(%{{.*}}, %{{.*}}) {carried = 1 : i64, name = "it"} : (tensor<f64>, tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) {
// CHECK:           expr.math{{ +}}cos
// CHECK:         expr.return %[[L]]#0, %[[L]]#1
expr.func @all_used(%s0: tensor<f64>, %us: tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) attributes {arg_names = ["s0", "us"], res_names = ["a", "b"]} {
  %r:2 = expr.loop 8 (%s0, %us) {carried = 1 : i64, name = "it"} : (tensor<f64>, tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) {
  ^bb0(%s: tensor<f64>, %u: tensor<f64>):
    %n = expr.add %s, %u : tensor<f64>
    %y = expr.math cos %s : tensor<f64>
    expr.yield %n, %y : tensor<f64>, tensor<f64>
  }
  expr.return %r#0, %r#1 : tensor<f64>, tensor<8xf64>
}

// -----

// Only the stacked output is used: the state's final value is not, but the
// output reads the state, so the state stays carried (its result unused).
// CHECK-LABEL: expr.func @state_read_by_output(
// CHECK:         %[[L:.*]]:2 = expr.loop 8{{ ?}}(%{{.*}}, %{{.*}}) {carried = 1 : i64, name = "it"}
// CHECK:           expr.math{{ +}}cos
// CHECK:         expr.return %[[L]]#1
expr.func @state_read_by_output(%s0: tensor<f64>, %us: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["s0", "us"], res_names = ["b"]} {
  %r:2 = expr.loop 8 (%s0, %us) {carried = 1 : i64, name = "it"} : (tensor<f64>, tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) {
  ^bb0(%s: tensor<f64>, %u: tensor<f64>):
    %n = expr.add %s, %u : tensor<f64>
    %y = expr.math cos %s : tensor<f64>
    expr.yield %n, %y : tensor<f64>, tensor<f64>
  }
  expr.return %r#1 : tensor<8xf64>
}

// -----

// Three carried values: the result of %b is used; %b's update reads %a, so
// %a stays although its final value is unused; %c (read by nobody kept) and
// the sliced operand only it read are dropped, with the sin on it.
// CHECK-LABEL: expr.func @carried_chain(
// CHECK-SAME:    %[[A0:[^:]*]]: tensor<f64>, %[[B0:[^:]*]]: tensor<f64>, %[[C0:[^:]*]]: tensor<f64>, %[[US:[^:]*]]: tensor<8xf64>, %[[VS:[^:]*]]: tensor<8xf64>
// CHECK:         %[[L:.*]]:2 = expr.loop 8{{ ?}}(%[[A0]], %[[B0]], %[[US]]) {carried = 2 : i64} : (tensor<f64>, tensor<f64>, tensor<8xf64>) -> (tensor<f64>, tensor<f64>) {
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<f64>, %[[B:.*]]: tensor<f64>, %[[U:.*]]: tensor<f64>):
// CHECK-NOT:       expr.math{{ +}}sin
// CHECK:           %[[AN:.*]] = expr.mul %[[A]], %[[U]]
// CHECK:           %[[BN:.*]] = expr.add %[[B]], %[[A]]
// CHECK:           expr.yield %[[AN]], %[[BN]] : tensor<f64>, tensor<f64>
// CHECK:         expr.return %[[L]]#1
expr.func @carried_chain(%a0: tensor<f64>, %b0: tensor<f64>, %c0: tensor<f64>, %us: tensor<8xf64>, %vs: tensor<8xf64>) -> tensor<f64> attributes {arg_names = ["a0", "b0", "c0", "us", "vs"], res_names = ["b"]} {
  %r:4 = expr.loop 8 (%a0, %b0, %c0, %us, %vs) {carried = 3 : i64} : (tensor<f64>, tensor<f64>, tensor<f64>, tensor<8xf64>, tensor<8xf64>) -> (tensor<f64>, tensor<f64>, tensor<f64>, tensor<8xf64>) {
  ^bb0(%a: tensor<f64>, %b: tensor<f64>, %c: tensor<f64>, %u: tensor<f64>, %v: tensor<f64>):
    %an = expr.mul %a, %u : tensor<f64>
    %bn = expr.add %b, %a : tensor<f64>
    %sv = expr.math sin %v : tensor<f64>
    %cn = expr.add %c, %sv : tensor<f64>
    %w = expr.mul %c, %b : tensor<f64>
    expr.yield %an, %bn, %cn, %w : tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>
  }
  expr.return %r#1 : tensor<f64>
}

// -----

// A carried value read only by its own update and by a dropped output goes,
// though it reads a kept one: dependence runs from kept to read, not back.
// The loop with no carried value left has no carried attribute.
// CHECK-LABEL: expr.func @drop_reader(
// CHECK:         %[[L:.*]] = expr.loop 8{{ ?}}(%{{.*}}) : (tensor<8xf64>) -> tensor<8xf64> {
// CHECK-NEXT:    ^bb0(%[[U:.*]]: tensor<f64>):
// CHECK-NEXT:      %[[Y:.*]] = expr.math{{ +}}exp %[[U]]
// CHECK-NEXT:      expr.yield %[[Y]] : tensor<f64>
// CHECK:         expr.return %[[L]]
expr.func @drop_reader(%s0: tensor<f64>, %us: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["s0", "us"], res_names = ["y"]} {
  %r:3 = expr.loop 8 (%s0, %us) {carried = 1 : i64} : (tensor<f64>, tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>, tensor<8xf64>) {
  ^bb0(%s: tensor<f64>, %u: tensor<f64>):
    %y = expr.math exp %u : tensor<f64>
    %n = expr.add %s, %y : tensor<f64>
    %z = expr.mul %s, %u : tensor<f64>
    expr.yield %n, %y, %z : tensor<f64>, tensor<f64>, tensor<f64>
  }
  expr.return %r#1 : tensor<8xf64>
}
