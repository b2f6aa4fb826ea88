// RUN: scaly-translate --emit-c %s | FileCheck %s
// RUN: scaly-opt %s --scaly-lower | FileCheck %s --check-prefix=PLAN
//
// Regression test (was: procedures are not emitted callee-first).
// LowerToProgram collects the kept functions breadth-first from the entry
// (main_fn, b, a: main_fn calls @b before @a) and emits them reversed
// (a, b, main_fn), claiming "callees first". But @a also calls @b, so:
//  - C: a_raw is defined before b_raw, which it calls: "implicit
//    declaration of function 'b_raw'", then "static declaration of 'b_raw'
//    follows non-static declaration" (gcc error);
//  - PlanWorkspace, which relies on "procedures are defined before their
//    callers", plans a_raw while b_raw's workspace is still 0: a_raw passes
//    NULL to b_raw although b_raw spills into 64 bytes of w, and main_fn
//    passes NULL to a_raw (crash at run time).
// A post-order (topological) emission fixes both.

// CHECK:       static inline void b_raw(
// CHECK:       static inline void a_raw(
// CHECK:       int main_fn(

// PLAN-LABEL:  prog.proc @b_raw(
// PLAN-SAME:     workspace = 64 : i64
// PLAN-LABEL:  prog.proc @a_raw(
// PLAN-SAME:     workspace = 64 : i64
// PLAN:          %[[BW:.*]] = prog.window %{{.*}} size 8 {offset = 0 : i64}
// PLAN-NEXT:     prog.call @b_raw(%{{.*}}, %{{.*}}, %[[BW]])
// PLAN-LABEL:  prog.proc @main_fn(
// PLAN-SAME:     workspace = 64 : i64
// PLAN-NOT:      prog.null

expr.func @main_fn(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x"], res_names = ["p", "q"]} {
  %0 = expr.call @b(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.call @a(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0, %1 : tensor<2xf64>, tensor<2xf64>
}
expr.func @a(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.call @b(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
expr.func @b(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.mul %x, %x : tensor<2xf64>
  %1 = expr.loop 2 (%0) : (tensor<2xf64>) -> tensor<2xf64> {
  ^bb0(%e: tensor<f64>):
    %s = expr.math sin %e : tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %1 : tensor<2xf64>
}
