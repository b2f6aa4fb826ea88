// RUN: scaly-opt %s -split-input-file --scaly-plan-workspace | FileCheck %s
//
// scaly-plan-workspace places each unplanned prog.window of w at a byte
// offset that is a multiple of 64 (padding counted, windows inside loops
// too), passes a callee that needs workspace a window of its byte total
// (in the callee's element type) placed after the caller's own windows and
// prog.null to a callee that needs none, and sets `workspace` (bytes) to own
// windows plus the largest callee need. A void* (none) workspace holds
// windows of any element type. Windows here are stored to at the end of their
// procedure, so their lifetimes overlap and none shares bytes (the last test
// shows sharing).

// CHECK-LABEL: prog.proc @leaf_raw(
// CHECK-SAME:    workspace = 0 : i64
// CHECK-LABEL: prog.proc @mid_raw(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    workspace = 256 : i64
// CHECK-NEXT:    prog.window %[[W]] size 3 {offset = 0 : i64} : <f64> -> <f64>
// CHECK-NEXT:    prog.window %[[W]] size 8 {offset = 64 : i64} : <f64> -> <f64>
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      prog.window %[[W]] size 9 {offset = 128 : i64} : <f64> -> <f64>
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[N:.*]] = prog.null : <f64>
// CHECK-NEXT:    prog.call @leaf_raw(%[[X]], %[[Y]], %[[N]])
// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    workspace = 320 : i64
// CHECK-NEXT:    prog.window %[[W]] size 1 {offset = 0 : i64} : <f64> -> <f64>
// CHECK-NEXT:    %[[CW:.*]] = prog.window %[[W]] size 32 {offset = 64 : i64} : <f64> -> <f64>
// CHECK-NEXT:    prog.call @mid_raw(%[[X]], %[[Y]], %[[CW]])
// CHECK-NEXT:    %[[N:.*]] = prog.null : <f64>
// CHECK-NEXT:    prog.call @leaf_raw(%[[X]], %[[Y]], %[[N]])
prog.proc @leaf_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  prog.return
}
prog.proc @mid_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  %a = prog.window %w size 3 : !prog.ptr<f64> -> !prog.ptr<f64>
  %b = prog.window %w size 8 : !prog.ptr<f64> -> !prog.ptr<f64>
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 2 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %c = prog.window %w size 9 : !prog.ptr<f64> -> !prog.ptr<f64>
  }
  prog.call @leaf_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  %z = arith.constant 0.0 : f64
  prog.store %z to %a[0] : f64 into !prog.ptr<f64>
  prog.store %z to %b[0] : f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @main(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>, entry} {
  %a = prog.window %w size 1 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.call @mid_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  prog.call @leaf_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  %z = arith.constant 0.0 : f64
  prog.store %z to %a[0] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

// f32: 16 elements per 64 bytes; two callees, the caller needs the larger.
// CHECK-LABEL: prog.proc @leaf32_raw(
// CHECK-SAME:    workspace = 128 : i64
// CHECK-NEXT:    prog.window %{{[^ ]*}} size 17 {offset = 0 : i64} : <f32> -> <f32>
// CHECK-LABEL: prog.proc @small32_raw(
// CHECK-SAME:    workspace = 64 : i64
// CHECK-LABEL: prog.proc @main32(
// CHECK-SAME:    %[[Y:[^:]*]]: !prog.ptr<f32>, %[[W:[^:]*]]: !prog.ptr<f32>)
// CHECK-SAME:    workspace = 256 : i64
// CHECK-NEXT:    prog.window %[[W]] size 3 {offset = 0 : i64} : <f32> -> <f32>
// CHECK-NEXT:    prog.window %[[W]] size 16 {offset = 64 : i64} : <f32> -> <f32>
// CHECK-NEXT:    %[[CW:.*]] = prog.window %[[W]] size 32 {offset = 128 : i64} : <f32> -> <f32>
// CHECK-NEXT:    prog.call @leaf32_raw(%[[Y]], %[[CW]])
// CHECK-NEXT:    %[[SW:.*]] = prog.window %[[W]] size 16 {offset = 128 : i64} : <f32> -> <f32>
// CHECK-NEXT:    prog.call @small32_raw(%[[Y]], %[[SW]])
prog.proc @leaf32_raw(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %a = prog.window %w size 17 : !prog.ptr<f32> -> !prog.ptr<f32>
  prog.return
}
prog.proc @small32_raw(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %a = prog.window %w size 1 : !prog.ptr<f32> -> !prog.ptr<f32>
  prog.return
}
prog.proc @main32(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  %a = prog.window %w size 3 : !prog.ptr<f32> -> !prog.ptr<f32>
  %b = prog.window %w size 16 : !prog.ptr<f32> -> !prog.ptr<f32>
  prog.call @leaf32_raw(%y, %w) : !prog.ptr<f32>, !prog.ptr<f32>
  prog.call @small32_raw(%y, %w) : !prog.ptr<f32>, !prog.ptr<f32>
  %z = arith.constant 0.0 : f32
  prog.store %z to %a[0] : f32 into !prog.ptr<f32>
  prog.store %z to %b[0] : f32 into !prog.ptr<f32>
  prog.return
}

// -----

// A void* workspace holds windows of any element type, each at 64 bytes:
// 3 x f64 (24 bytes), 1 x i1 (1 byte, stored as uint8_t), 20 x i32 (80 bytes).
// CHECK-LABEL: prog.proc @mixed(
// CHECK-SAME:    workspace = 256 : i64
// CHECK-NEXT:    size 3 {offset = 0 : i64} : <none> -> <f64>
// CHECK-NEXT:    size 1 {offset = 64 : i64} : <none> -> <i1>
// CHECK-NEXT:    size 20 {offset = 128 : i64} : <none> -> <i32>
prog.proc @mixed(%y: !prog.ptr<f64>, %w: !prog.ptr<none>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %a = prog.window %w size 3 : !prog.ptr<none> -> !prog.ptr<f64>
  %b = prog.window %w size 1 : !prog.ptr<none> -> !prog.ptr<i1>
  %c = prog.window %w size 20 : !prog.ptr<none> -> !prog.ptr<i32>
  %z = arith.constant 0.0 : f64
  %t = arith.constant true
  %k = arith.constant 0 : i32
  prog.store %z to %a[0] : f64 into !prog.ptr<f64>
  prog.store %t to %b[0] : i1 into !prog.ptr<i1>
  prog.store %k to %c[0] : i32 into !prog.ptr<i32>
  prog.return
}

// -----

// Lifetimes: %a is dead once %b is defined (its last use comes first), so %b
// takes %a's bytes; %c, of another size, gets its own. In @loop_live, %d is
// read in every iteration, so it is live for the whole loop and %e, defined
// inside it, cannot take its bytes.
// CHECK-LABEL: prog.proc @reuse(
// CHECK-SAME:    workspace = 192 : i64
// CHECK:         prog.window %{{[^ ]*}} size 2 {offset = 0 : i64}
// CHECK:         prog.window %{{[^ ]*}} size 2 {offset = 0 : i64}
// CHECK:         prog.window %{{[^ ]*}} size 9 {offset = 64 : i64}
// CHECK-LABEL: prog.proc @loop_live(
// CHECK-SAME:    workspace = 128 : i64
// CHECK:         prog.window %{{[^ ]*}} size 2 {offset = 0 : i64}
// CHECK:         prog.window %{{[^ ]*}} size 2 {offset = 64 : i64}
prog.proc @reuse(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %z = arith.constant 0.0 : f64
  %a = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.store %z to %a[0] : f64 into !prog.ptr<f64>
  %v = prog.load %a[1] : !prog.ptr<f64> -> f64
  %b = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.store %v to %b[0] : f64 into !prog.ptr<f64>
  %c = prog.window %w size 9 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.store %v to %c[8] : f64 into !prog.ptr<f64>
  %u = prog.load %b[0] : !prog.ptr<f64> -> f64
  prog.store %u to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @loop_live(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %d = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<f64>
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 3 : i64
  %st2 = arith.constant 1 : i64
  scf.for %i = %lo2 to %hi2 step %st2 : i64 {
    %x = prog.load %d[0] : !prog.ptr<f64> -> f64
    %e = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<f64>
    prog.store %x to %e[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}
