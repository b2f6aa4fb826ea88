// RUN: scaly-opt %s -split-input-file --scaly-split-callee-stores | FileCheck %s
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-split-callee-stores))' | FileCheck %s
//
// scaly-split-callee-stores: a called procedure's stores of several floats
// become one store per element (at consecutive offsets); the entry's
// stores, integer stores and streaming stores stay as they are.

// CHECK-LABEL: prog.proc @step_raw(
// CHECK:         prog.store %[[A:.*]] to %[[Y:.*]][2] : f64 into <f64>
// CHECK-NEXT:    prog.store %[[B:.*]] to %[[Y]][3] : f64 into <f64>
// CHECK-NEXT:    prog.store %[[A]] to %[[Y]][4] : f64 into <f64>
// CHECK:         prog.store %{{.*}}, %{{.*}} to %[[N:.*]][6] : i64, i64 into <i64>
// CHECK-NEXT:    prog.store {{.*}} to %[[Y]][8] {streaming} : f64, f64, f64, f64 into <f64>
// CHECK-LABEL: prog.proc @run(
// CHECK:         prog.store %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64 into <f64>
prog.proc @step_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %n: !prog.ptr<i64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "n", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 12, 8>} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = arith.mulf %a, %a : f64
  prog.store %a, %b, %a to %y[2] : f64, f64, f64 into !prog.ptr<f64>
  %i = arith.constant 3 : i64
  prog.store %i, %i to %n[6] : i64, i64 into !prog.ptr<i64>
  prog.store %a, %b, %a, %b to %y[8] {streaming} : f64, f64, f64, f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @run(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 2>, entry} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  prog.store %a, %a to %y[0] : f64, f64 into !prog.ptr<f64>
  prog.return
}
