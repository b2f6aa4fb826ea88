// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// Values that must be in memory spill to unplanned workspace windows
// (offset -1, not printed; size = element count): a computed loop operand,
// a blocked call's result that is computed on, a blocked call's computed
// operand. A window or output passed as a callee's input is viewed as const
// with a prog.offset; a result produced in an output feeds the next call
// from there (g(g(x)) without a copy).

// CHECK-LABEL: prog.proc @spill_loop(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK:         %[[M0:.*]] = arith.mulf
// CHECK:         %[[M1:.*]] = arith.mulf
// CHECK:         %[[M2:.*]] = arith.mulf
// CHECK-NEXT:    %[[WIN:.*]] = prog.window %[[W]] size 3 : <f64> -> <f64>
// CHECK-NEXT:    prog.store %[[M0]], %[[M1]], %[[M2]] to %[[WIN]][0] : f64, f64, f64 into <f64>
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[WI:.*]] = prog.offset %[[WIN]][%[[I]]] : <f64> -> <f64>
// CHECK-NEXT:      %[[YI:.*]] = prog.offset %[[Y]][%[[I]]] : <f64> -> <f64>
// CHECK-NEXT:      %[[E:.*]] = prog.load %[[WI]][0] : <f64> -> f64
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[E]] : f64
// CHECK-NEXT:      prog.store %[[S]] to %[[YI]][0] : f64 into <f64>
// CHECK-NEXT:    }
expr.func @spill_loop(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.mul %x, %x : tensor<3xf64>
  %1 = expr.loop 3 (%0) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%e: tensor<f64>):
    %s = expr.math sin %e : tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %1 : tensor<3xf64>
}

// -----

// CHECK-LABEL: prog.proc @call_result(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Z:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    %[[WIN:.*]] = prog.window %[[W]] size 2 : <f64> -> <f64>
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[WIN]], %[[W]])
// CHECK-NEXT:    %[[A:.*]] = prog.load %[[WIN]][0] : <f64> -> f64
// CHECK-NEXT:    %[[B:.*]] = prog.load %[[WIN]][1] : <f64> -> f64
// CHECK-NEXT:    %[[NA:.*]] = arith.negf %[[A]] : f64
// CHECK-NEXT:    %[[NB:.*]] = arith.negf %[[B]] : f64
// CHECK-NEXT:    prog.store %[[NA]], %[[NB]] to %[[Z]][0] : f64, f64 into <f64>
expr.func @call_result(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["z"]} {
  %0 = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.neg %0 : tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// CHECK-LABEL: prog.proc @call_operand(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK:         %[[M0:.*]] = arith.mulf
// CHECK:         %[[M1:.*]] = arith.mulf
// CHECK-NEXT:    %[[WIN:.*]] = prog.window %[[W]] size 2 : <f64> -> <f64>
// CHECK-NEXT:    prog.store %[[M0]], %[[M1]] to %[[WIN]][0] : f64, f64 into <f64>
// CHECK-NEXT:    %[[RO:.*]] = prog.offset %[[WIN]] : <f64> -> <const f64>
// CHECK-NEXT:    prog.call @h_raw(%[[RO]], %[[Y]], %[[W]])
expr.func @call_operand(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.mul %x, %x : tensor<2xf64>
  %1 = expr.call @h(%0) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @h(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.neg %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// CHECK-LABEL: prog.proc @g_raw(
// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[Z:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Y]], %[[W]])
// CHECK-NEXT:    %[[RO:.*]] = prog.offset %[[Y]] : <f64> -> <const f64>
// CHECK-NEXT:    prog.call @g_raw(%[[RO]], %[[Z]], %[[W]])
expr.func @main(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %0 = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.call @g(%0) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0, %1 : tensor<2xf64>, tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.neg %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}
