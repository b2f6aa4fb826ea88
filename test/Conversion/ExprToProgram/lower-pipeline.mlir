// RUN: scaly-opt %s -split-input-file --scaly-lower | FileCheck %s
//
// The registered pipeline --scaly-lower (map-to-loop, expand-calls,
// simplify, cse, lower-to-program, canonicalize, cse, plan-workspace) on the
// rollout: with the block hint @euler stays a procedure called in the loop
// with a NULL workspace; without it @euler is expanded into the loop body,
// x*1 is gone, the constant is hoisted and shared, and no expr op is left.

// CHECK-LABEL: prog.proc @euler_raw(
// CHECK-SAME:    workspace = 0 : i64
// CHECK-LABEL: prog.proc @rollout(
// CHECK-SAME:    %[[ZS:[^:]*]]: !prog.ptr<const f64>, %[[US:[^:]*]]: !prog.ptr<const f64>, %[[ZN:[^:]*]]: !prog.ptr<f64>, %{{[^:]*}}: !prog.ptr<f64>)
// CHECK-SAME:    entry
// CHECK-SAME:    workspace = 0 : i64
// CHECK-NEXT:    prog.for %[[IT:.*]] = 0 to 10 {
// CHECK-NEXT:      %[[Z:.*]] = prog.offset %[[ZS]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[U:.*]] = prog.offset %[[US]][%[[IT]]] :
// CHECK-NEXT:      %[[O:.*]] = prog.offset %[[ZN]][%[[IT]]] {scale = 2 : i64}
// CHECK-NEXT:      %[[NUL:.*]] = prog.null : <f64>
// CHECK-NEXT:      prog.call @euler_raw(%[[Z]], %[[U]], %[[O]], %[[NUL]])
// CHECK-NEXT:    } {name = "it_zn"}
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
// CHECK-NEXT:    prog.for %[[IT:.*]] = 0 to 10 {
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
// CHECK-NEXT:      prog.store %[[B]], %[[E]], %[[O]][0] : f64, f64, <f64>
// CHECK-NEXT:    } {name = "it_zn"}
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
