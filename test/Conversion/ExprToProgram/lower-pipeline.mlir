// RUN: scaly-opt %s -split-input-file --scaly-lower | FileCheck %s
//
// The registered pipeline --scaly-lower (map-to-loop, expand-calls,
// simplify, cse, lower-to-program, canonicalize, cse, plan-workspace) on the
// rollout: with the block hint @euler stays a procedure called in the loop
// with a NULL workspace; without it @euler is expanded into the loop body,
// x*1 is gone, the constant is hoisted and shared, and no expr op is left;
// spills get 64-byte windows and the workspace sizes add up.

// CHECK-LABEL: prog.proc @euler_raw(
// CHECK-SAME:    workspace = 0 : i64
// CHECK-LABEL: prog.proc @rollout(
// CHECK-SAME:    %[[ZS:[^:]*]]: !prog.ptr<const f64>, %[[US:[^:]*]]: !prog.ptr<const f64>, %[[ZN:[^:]*]]: !prog.ptr<f64>, %{{[^:]*}}: !prog.ptr<f64>)
// CHECK-SAME:    entry
// CHECK-SAME:    workspace = 0 : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[IT:.*]] = %c0_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[Z:.*]] = prog.offset %[[ZS]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[U:.*]] = prog.offset %[[US]][%[[IT]]] :
// CHECK-NEXT:      %[[O:.*]] = prog.offset %[[ZN]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[NUL:.*]] = prog.null : <f64>
// CHECK-NEXT:      prog.call @euler_raw(%[[Z]], %[[U]], %[[O]], %[[NUL]])
// CHECK-NEXT:    } {scaly.name = "it_zn"}
// CHECK-NEXT:    prog.return
// CHECK-NOT:     expr.
expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64> attributes {arg_names = ["zs", "us"], res_names = ["zn"]} {
  %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>
  %1 = expr.map @euler(%0, %us) count 10 {block} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>
  %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>
  expr.return %2 : tensor<20xf64>
}
expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"], block} {
  %c = expr.constant dense<0.1> : tensor<f64>
  %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>
  %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>
  %a = expr.mul %c, %z1 : tensor<f64>
  %b = expr.add %z0, %a : tensor<f64>
  %s = expr.math sin %u : tensor<f64>
  %d = expr.mul %c, %s : tensor<f64>
  %e = expr.add %z1, %d : tensor<f64>
  %r = expr.concat %b, %e : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
  expr.return %r : tensor<2xf64>
}

// -----

// CHECK-NOT:     prog.proc @euler
// CHECK-LABEL: prog.proc @rollout(
// CHECK-SAME:    %[[ZS:[^:]*]]: !prog.ptr<const f64>, %[[US:[^:]*]]: !prog.ptr<const f64>, %[[ZN:[^:]*]]: !prog.ptr<f64>, %{{[^:]*}}: !prog.ptr<f64>)
// CHECK-NEXT:    %[[C:.*]] = arith.constant 1.000000e-01 : f64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[IT:.*]] = %c0_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[Z:.*]] = prog.offset %[[ZS]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[U:.*]] = prog.offset %[[US]][%[[IT]]] :
// CHECK-NEXT:      %[[O:.*]] = prog.offset %[[ZN]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[Z0:.*]] = prog.load %[[Z]][0] : <const f64> -> f64
// CHECK-NEXT:      %[[Z1:.*]] = prog.load %[[Z]][1] : <const f64> -> f64
// CHECK-NEXT:      %[[A:.*]] = arith.mulf %[[Z1]], %[[C]] : f64
// CHECK-NEXT:      %[[B:.*]] = arith.addf %[[Z0]], %[[A]] : f64
// CHECK-NEXT:      %[[U0:.*]] = prog.load %[[U]][0] : <const f64> -> f64
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[U0]] : f64
// CHECK-NEXT:      %[[D:.*]] = arith.mulf %[[S]], %[[C]] : f64
// CHECK-NEXT:      %[[E:.*]] = arith.addf %[[Z1]], %[[D]] : f64
// CHECK-NEXT:      prog.store %[[B]], %[[E]] to %[[O]][0] : f64, f64 into <f64>
// CHECK-NEXT:    } {scaly.name = "it_zn"}
// CHECK-NEXT:    prog.return
// CHECK-NOT:     prog.call
// CHECK-NOT:     expr.
expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64> attributes {arg_names = ["zs", "us"], res_names = ["zn"]} {
  %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>
  %1 = expr.map @euler(%0, %us) count 10 : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>
  %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>
  expr.return %2 : tensor<20xf64>
}
expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"]} {
  %c = expr.constant dense<0.1> : tensor<f64>
  %one = expr.constant dense<1.0> : tensor<f64>
  %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>
  %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>
  %z1b = expr.mul %z1, %one : tensor<f64>
  %a = expr.mul %c, %z1b : tensor<f64>
  %b = expr.add %z0, %a : tensor<f64>
  %s = expr.math sin %u : tensor<f64>
  %d = expr.mul %c, %s : tensor<f64>
  %e = expr.add %z1, %d : tensor<f64>
  %r = expr.concat %b, %e : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
  expr.return %r : tensor<2xf64>
}

// -----

// Spills through the whole pipeline: the callee's window is planned at 0
// (workspace 64 bytes); the entry's two spills take 64 and 128 bytes and the
// callee gets a window of 64 bytes (8 doubles) after them: 256 in all.
// CHECK-LABEL: prog.proc @spiller_raw(
// CHECK-SAME:    workspace = 64 : i64
// CHECK:         prog.window %{{.*}} size 3 {offset = 0 : i64} : <f64> -> <f64>
// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    workspace = 256 : i64
// CHECK:         prog.window %[[W]] size 3 {offset = 0 : i64} : <f64> -> <f64>
// CHECK:         prog.window %[[W]] size 9 {offset = 64 : i64} : <f64> -> <f64>
// CHECK:         %[[CW:.*]] = prog.window %[[W]] size 8 {offset = 192 : i64} : <f64> -> <f64>
// CHECK-NEXT:    prog.call @spiller_raw(%{{.*}}, %{{.*}}, %[[CW]])
expr.func @main(%x: tensor<3xf64>, %m: tensor<9xf64>) -> (tensor<3xf64>, tensor<9xf64>, tensor<3xf64>) attributes {arg_names = ["x", "m"], res_names = ["a", "b", "c"]} {
  %0 = expr.mul %x, %x : tensor<3xf64>
  %1 = expr.loop 3 (%0) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%e: tensor<f64>):
    %s = expr.math sin %e : tensor<f64>
    expr.yield %s : tensor<f64>
  }
  %2 = expr.neg %m : tensor<9xf64>
  %3 = expr.loop 9 (%2) : (tensor<9xf64>) -> tensor<9xf64> {
  ^bb0(%e: tensor<f64>):
    %c = expr.math cos %e : tensor<f64>
    expr.yield %c : tensor<f64>
  }
  %4 = expr.call @spiller(%x) {block} : (tensor<3xf64>) -> tensor<3xf64>
  expr.return %1, %3, %4 : tensor<3xf64>, tensor<9xf64>, tensor<3xf64>
}
expr.func @spiller(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"], block} {
  %0 = expr.add %x, %x : tensor<3xf64>
  %1 = expr.loop 3 (%0) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%e: tensor<f64>):
    %t = expr.math tanh %e : tensor<f64>
    expr.yield %t : tensor<f64>
  }
  expr.return %1 : tensor<3xf64>
}
