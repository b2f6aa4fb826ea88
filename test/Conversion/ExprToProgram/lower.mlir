// RUN: scaly-opt %s -split-input-file --scaly-map-to-loop --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// scaly-lower-to-program: every element becomes one scalar (arith/math ops
// on prog.load results), outputs are written with one prog.store each,
// loops become scf.for over offset slices with results produced straight
// in the output (destination passing), and a blocked call becomes a
// prog.call of <name>_raw defined before its caller. The workspace pointer is
// f64 or f32 when every input and output of the entry is, else none (void*).
// Spills to prog.window are in lower-spill.mlir.

// CHECK-LABEL: prog.proc @elementwise(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[S:[^:]*]]: !prog.ptr<const f64>, %[[I:[^:]*]]: !prog.ptr<const i32>,
// CHECK-SAME:    %[[Y:[^:]*]]: !prog.ptr<f64>, %[[J:[^:]*]]: !prog.ptr<i32>, %[[T:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<none>)
// CHECK-SAME:    attributes {arg_names = ["x", "s", "i", "y", "j", "t", "w"], entry, input_sizes = array<i64: 2, 1, 2>, output_sizes = array<i64: 2, 2, 1>, workspace = 0 : i64}
// CHECK-DAG:     %[[S0:.*]] = prog.load %[[S]][0] : <const f64> -> f64
// CHECK-DAG:     %[[X0:.*]] = prog.load %[[X]][0] : <const f64> -> f64
// CHECK-DAG:     %[[X1:.*]] = prog.load %[[X]][1] : <const f64> -> f64
// CHECK:         %[[M0:.*]] = arith.mulf %[[X0]], %[[S0]] : f64
// CHECK:         %[[M1:.*]] = arith.mulf %[[X1]], %[[S0]] : f64
// CHECK:         %[[E0:.*]] = math.exp %[[M0]] : f64
// CHECK:         %[[E1:.*]] = math.exp %[[M1]] : f64
// CHECK:         %[[F0:.*]] = arith.maxnumf %[[E0]], %[[X0]] : f64
// CHECK:         %[[F1:.*]] = arith.maxnumf %[[E1]], %[[X1]] : f64
// CHECK:         %[[N0:.*]] = arith.negf %[[F0]] : f64
// CHECK:         %[[N1:.*]] = arith.negf %[[F1]] : f64
// CHECK:         %[[C0:.*]] = arith.cmpf olt, %[[X0]], %[[N0]] : f64
// CHECK:         %[[C1:.*]] = arith.cmpf olt, %[[X1]], %[[N1]] : f64
// CHECK:         %[[SEL0:.*]] = arith.select %[[C0]], %[[X0]], %[[N0]] : f64
// CHECK:         %[[SEL1:.*]] = arith.select %[[C1]], %[[X1]], %[[N1]] : f64
// The gather [1, 0] only reorders the scalars.
// CHECK:         %[[K0:.*]] = arith.fptosi %[[SEL1]] : f64 to i32
// CHECK:         %[[K1:.*]] = arith.fptosi %[[SEL0]] : f64 to i32
// CHECK-DAG:     %[[I0:.*]] = prog.load %[[I]][0] : <const i32> -> i32
// CHECK-DAG:     %[[I1:.*]] = prog.load %[[I]][1] : <const i32> -> i32
// CHECK:         %[[D0:.*]] = arith.divsi %[[I0]], %[[K0]] : i32
// CHECK:         %[[D1:.*]] = arith.divsi %[[I1]], %[[K1]] : i32
// CHECK:         %[[SUM:.*]] = arith.addf %[[X0]], %[[X1]] : f64
// CHECK:         prog.store %[[SEL1]], %[[SEL0]] to %[[Y]][0] : f64, f64 into <f64>
// CHECK-NEXT:    prog.store %[[D0]], %[[D1]] to %[[J]][0] : i32, i32 into <i32>
// CHECK-NEXT:    prog.store %[[SUM]] to %[[T]][0] : f64 into <f64>
// CHECK-NEXT:    prog.return
// CHECK-NOT:     expr.
expr.func @elementwise(%x: tensor<2xf64>, %s: tensor<f64>, %i: tensor<2xi32>) -> (tensor<2xf64>, tensor<2xi32>, tensor<f64>) attributes {arg_names = ["x", "s", "i"], res_names = ["y", "j", "t"]} {
  %b = expr.broadcast %s : tensor<f64> to tensor<2xf64>
  %0 = expr.mul %x, %b : tensor<2xf64>
  %1 = expr.math exp %0 : tensor<2xf64>
  %2 = expr.math2 fmax %1, %x : tensor<2xf64>
  %3 = expr.neg %2 : tensor<2xf64>
  %c = expr.cmp lt %x, %3 : tensor<2xf64> -> tensor<2xi1>
  %4 = expr.select %c, %x, %3 : tensor<2xi1>, tensor<2xf64>
  %5 = expr.gather %4 [1, 0] : tensor<2xf64> to tensor<2xf64>
  %6 = expr.cast %5 : tensor<2xf64> to tensor<2xi32>
  %7 = expr.div %i, %6 : tensor<2xi32>
  %8 = expr.sum %x : tensor<2xf64> to tensor<f64>
  expr.return %5, %7, %8 : tensor<2xf64>, tensor<2xi32>, tensor<f64>
}

// -----

// Constants become arith.constant; casts between element types.
// CHECK-LABEL: prog.proc @casts(
// CHECK-SAME:    %[[F:[^:]*]]: !prog.ptr<const f32>, %[[B:[^:]*]]: !prog.ptr<const i1>, %[[L:[^:]*]]: !prog.ptr<const i64>,
// CHECK-SAME:    %[[OF:[^:]*]]: !prog.ptr<f64>, %[[OB:[^:]*]]: !prog.ptr<i1>, %[[OI:[^:]*]]: !prog.ptr<i32>, %[[OL:[^:]*]]: !prog.ptr<i64>, %[[W:[^:]*]]: !prog.ptr<none>)
// CHECK-DAG:     arith.constant 2.500000e+00 : f32
// CHECK-DAG:     %[[F0:.*]] = prog.load %[[F]][0] : <const f32> -> f32
// CHECK:         %[[FE:.*]] = arith.extf %{{.*}} : f32 to f64
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[NZ:.*]] = arith.cmpf une, %[[F0]], %[[ZERO]] : f32
// CHECK:         %[[B0:.*]] = prog.load %[[B]][0] : <const i1> -> i1
// CHECK:         %[[BI:.*]] = arith.extui %[[B0]] : i1 to i32
// CHECK:         %[[L0:.*]] = prog.load %[[L]][0] : <const i64> -> i64
// CHECK:         %[[LI:.*]] = arith.trunci %[[L0]] : i64 to i32
// CHECK:         %[[IL:.*]] = arith.extsi %[[LI]] : i32 to i64
// CHECK:         prog.store %[[FE]] to %[[OF]][0] : f64 into <f64>
// CHECK:         prog.store %[[NZ]] to %[[OB]][0] : i1 into <i1>
// CHECK:         prog.store %[[BI]], %[[LI]] to %[[OI]][0] : i32, i32 into <i32>
// CHECK:         prog.store %[[IL]] to %[[OL]][0] : i64 into <i64>
expr.func @casts(%f: tensor<f32>, %b: tensor<i1>, %l: tensor<i64>) -> (tensor<f64>, tensor<i1>, tensor<2xi32>, tensor<i64>) attributes {arg_names = ["f", "b", "l"], res_names = ["of", "ob", "oi", "ol"]} {
  %k = expr.constant dense<2.5> : tensor<f32>
  %p = expr.mul %f, %k : tensor<f32>
  %0 = expr.cast %p : tensor<f32> to tensor<f64>
  %1 = expr.cast %f : tensor<f32> to tensor<i1>
  %2 = expr.cast %b : tensor<i1> to tensor<i32>
  %3 = expr.cast %l : tensor<i64> to tensor<i32>
  %4 = expr.concat %2, %3 : (tensor<i32>, tensor<i32>) -> tensor<2xi32>
  %5 = expr.cast %3 : tensor<i32> to tensor<i64>
  expr.return %0, %1, %4, %5 : tensor<f64>, tensor<i1>, tensor<2xi32>, tensor<i64>
}

// -----

// The rollout: expr.map becomes a loop over the 10 steps, the loop writes
// its result straight into the output (the reshapes are free), the blocked
// callee becomes @euler_raw, defined first, and receives the caller's w
// (planned later by scaly-plan-workspace).
// CHECK-LABEL: prog.proc @euler_raw(
// CHECK-SAME:    %[[Z:[^:]*]]: !prog.ptr<const f64>, %[[U:[^:]*]]: !prog.ptr<const f64>, %[[ZN:[^:]*]]: !prog.ptr<f64>, %{{[^:]*}}: !prog.ptr<f64>)
// CHECK-SAME:    attributes {arg_names = ["z", "u", "znext", "w"], input_sizes = array<i64: 2, 1>, output_sizes = array<i64: 2>, workspace = 0 : i64}
// CHECK-NOT:     entry
// CHECK:         math.sin
// CHECK:         prog.store %{{.*}}, %{{.*}} to %[[ZN]][0] : f64, f64 into <f64>
// CHECK-NEXT:    prog.return
// CHECK-LABEL: prog.proc @rollout(
// CHECK-SAME:    %[[ZS:[^:]*]]: !prog.ptr<const f64>, %[[US:[^:]*]]: !prog.ptr<const f64>, %[[OUT:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    entry
// CHECK-SAME:    input_sizes = array<i64: 20, 10>, output_sizes = array<i64: 20>
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[IT:.*]] = %c0_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[ZI:.*]] = prog.offset %[[ZS]][%[[IT]]] {scale = 2 : i64} : <const f64> -> <const f64>
// CHECK-NEXT:      %[[UI:.*]] = prog.offset %[[US]][%[[IT]]] : <const f64> -> <const f64>
// CHECK-NEXT:      %[[OI:.*]] = prog.offset %[[OUT]][%[[IT]]] {scale = 2 : i64} : <f64> -> <f64>
// CHECK-NEXT:      prog.call @euler_raw(%[[ZI]], %[[UI]], %[[OI]], %[[W]])
// CHECK-NEXT:    } {scaly.name = "it_zn"}
// CHECK-NEXT:    prog.return
// CHECK-NOT:     expr.func
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

// A loop with two results computed in its body: each yielded slice is
// stored straight into the slice of its output; the loop keeps its name.
// CHECK-LABEL: prog.proc @rows(
// CHECK-SAME:    %[[M:[^:]*]]: !prog.ptr<const f64>, %[[D:[^:]*]]: !prog.ptr<f64>, %[[S:[^:]*]]: !prog.ptr<f64>, %{{[^:]*}}: !prog.ptr<f64>)
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[R:.*]] = %c0_i64{{[_0-9]*}} to %c3_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[MR:.*]] = prog.offset %[[M]][%[[R]]] {scale = 2 : i64} : <const f64> -> <const f64>
// CHECK-NEXT:      %[[DR:.*]] = prog.offset %[[D]][%[[R]]] {scale = 2 : i64} : <f64> -> <f64>
// CHECK-NEXT:      %[[SR:.*]] = prog.offset %[[S]][%[[R]]] : <f64> -> <f64>
// CHECK-NEXT:      %[[A:.*]] = prog.load %[[MR]][0] : <const f64> -> f64
// CHECK-NEXT:      %[[B:.*]] = prog.load %[[MR]][1] : <const f64> -> f64
// CHECK-NEXT:      %[[A2:.*]] = arith.addf %[[A]], %[[A]] : f64
// CHECK-NEXT:      %[[B2:.*]] = arith.addf %[[B]], %[[B]] : f64
// CHECK-NEXT:      %[[AB:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK-NEXT:      prog.store %[[A2]], %[[B2]] to %[[DR]][0] : f64, f64 into <f64>
// CHECK-NEXT:      prog.store %[[AB]] to %[[SR]][0] : f64 into <f64>
// CHECK-NEXT:    } {scaly.name = "row"}
// CHECK-NEXT:    prog.return
expr.func @rows(%m: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3xf64>) attributes {arg_names = ["m"], res_names = ["d", "s"]} {
  %0, %1 = expr.loop 3 (%m) {name = "row"} : (tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3xf64>) {
  ^bb0(%r: tensor<2xf64>):
    %a = expr.add %r, %r : tensor<2xf64>
    %s = expr.sum %r : tensor<2xf64> to tensor<f64>
    expr.yield %a, %s : tensor<2xf64>, tensor<f64>
  }
  expr.return %0, %1 : tensor<3x2xf64>, tensor<3xf64>
}

// -----

// Blocked calls on an input: each result is produced in its output
// (destination passing, no copy); the callee procedure is emitted once and
// every procedure of an all-f64 entry gets an f64 workspace.
// CHECK-LABEL: prog.proc @g_raw(
// CHECK-SAME:    %{{[^:]*}}: !prog.ptr<f64>)
// CHECK:         math.cos
// CHECK-LABEL: prog.proc @caller(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[Z:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Y]], %[[W]]) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
// CHECK-NEXT:    prog.call @g_raw(%[[X]], %[[Z]], %[[W]]) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
// CHECK-NEXT:    prog.return
// CHECK-NOT:     prog.proc @g_raw
expr.func @caller(%x: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %0 = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = expr.call @g(%x) {block} : (tensor<2xf64>) -> tensor<2xf64>
  expr.return %0, %1 : tensor<2xf64>, tensor<2xf64>
}
expr.func @g(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["r"], block} {
  %0 = expr.math cos %x : tensor<2xf64>
  expr.return %0 : tensor<2xf64>
}

// -----

// A mixed-dtype entry: all procedures share its void* (none) workspace.
// CHECK-LABEL: prog.proc @h_raw(
// CHECK-SAME:    %{{[^:]*}}: !prog.ptr<const f32>, %{{[^:]*}}: !prog.ptr<f32>, %{{[^:]*}}: !prog.ptr<none>)
// CHECK-LABEL: prog.proc @mixed(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[F:[^:]*]]: !prog.ptr<const f32>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[G:[^:]*]]: !prog.ptr<f32>, %[[W:[^:]*]]: !prog.ptr<none>)
// CHECK:         prog.call @h_raw(%[[F]], %[[G]], %[[W]]) : !prog.ptr<const f32>, !prog.ptr<f32>, !prog.ptr<none>
expr.func @mixed(%x: tensor<2xf64>, %f: tensor<2xf32>) -> (tensor<2xf64>, tensor<2xf32>) attributes {arg_names = ["x", "f"], res_names = ["y", "g"]} {
  %0 = expr.call @h(%f) {block} : (tensor<2xf32>) -> tensor<2xf32>
  expr.return %x, %0 : tensor<2xf64>, tensor<2xf32>
}
expr.func @h(%f: tensor<2xf32>) -> tensor<2xf32> attributes {arg_names = ["f"], res_names = ["r"], block} {
  %0 = expr.math sin %f : tensor<2xf32>
  expr.return %0 : tensor<2xf32>
}

// -----

// An input returned unchanged is copied element by element; a float32
// function gets an f32 workspace.
// CHECK-LABEL: prog.proc @copy(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f32>, %[[Y:[^:]*]]: !prog.ptr<f32>, %{{[^:]*}}: !prog.ptr<f32>)
// CHECK-NEXT:    %[[A:.*]] = prog.load %[[X]][0] : <const f32> -> f32
// CHECK-NEXT:    %[[B:.*]] = prog.load %[[X]][1] : <const f32> -> f32
// CHECK-NEXT:    prog.store %[[A]], %[[B]] to %[[Y]][0] : f32, f32 into <f32>
expr.func @copy(%x: tensor<2xf32>) -> tensor<2xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<2xf32>
}
