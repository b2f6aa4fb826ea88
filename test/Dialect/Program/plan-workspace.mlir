// RUN: scaly-opt %s --scaly-plan-workspace | FileCheck %s
//
// scaly-plan-workspace without windows of its own: a callee that needs no
// workspace is passed prog.null instead of w, every procedure's workspace
// stays 0, and a call whose workspace operand is not w (already planned) is
// left alone. Window placement is in plan-workspace-offsets.mlir.

// CHECK-LABEL: prog.proc @leaf_raw(
// CHECK-SAME:    workspace = 0 : i64
prog.proc @leaf_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  "prog.store"(%a, %a, %y) <{offset = 0 : i64}> : (f64, f64, !prog.ptr<f64>) -> ()
  prog.return
}

// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    workspace = 0 : i64
// CHECK-NEXT:    %[[N1:.*]] = prog.null : <f64>
// CHECK-NEXT:    prog.call @leaf_raw(%[[X]], %[[Y]], %[[N1]])
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[N2:.*]] = prog.null : <f64>
// CHECK-NEXT:      prog.call @leaf_raw(%[[X]], %[[Y]], %[[N2]])
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N3:.*]] = prog.null : <f64>
// CHECK-NEXT:    prog.call @leaf_raw(%[[X]], %[[Y]], %[[N3]])
// CHECK-NOT:     prog.null
// CHECK-NOT:     prog.window
// CHECK:         prog.return
prog.proc @main(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>, entry} {
  prog.call @leaf_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 3 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    prog.call @leaf_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  }
  %n = prog.null : !prog.ptr<f64>
  prog.call @leaf_raw(%x, %y, %n) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}

// An f32 procedure: the NULL workspace has the callee's pointer type.
// CHECK-LABEL: prog.proc @main32(
// CHECK:         prog.null : <f32>
// CHECK-NEXT:    prog.call @leaf32_raw
prog.proc @leaf32_raw(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.return
}
prog.proc @main32(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.call @leaf32_raw(%y, %w) : !prog.ptr<f32>, !prog.ptr<f32>
  prog.return
}
