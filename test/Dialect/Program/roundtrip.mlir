// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// The program dialect parses and prints: prog.proc (raw and entry, with
// workspace), scf.for (default and explicit step, name), prog.load,
// prog.store (one and several values), prog.offset (with and without index),
// prog.null, prog.call, with arith/math scalar ops, and pointers to every
// element type including none (void*). Some stores are written in the
// generic form, which must keep parsing too (the custom form is covered by
// store-roundtrip.mlir). Windows: unplanned (offset -1,
// not printed), planned at multiples of 64 bytes, of another element type
// than the workspace; a loop with a negative lower bound prints signed.

// CHECK-LABEL: prog.proc @helper_raw(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>, workspace = 0 : i64}
// CHECK-NEXT:    %[[A:.*]] = prog.load %[[X]][0] : <const f64> -> f64
// CHECK-NEXT:    %[[B:.*]] = prog.load %[[X]][1] : <const f64> -> f64
// CHECK-NEXT:    %[[S:.*]] = math.sin %[[A]] : f64
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[S]], %[[B]] : f64
// CHECK-NEXT:    prog.store %[[M]], %[[S]] to %[[Y]][0] : f64, f64 into <f64>
// CHECK-NEXT:    prog.store %[[M]] to %[[Y]][1] : f64 into <f64>
// CHECK-NEXT:    prog.return
prog.proc @helper_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = prog.load %x[1] : !prog.ptr<const f64> -> f64
  %s = math.sin %a : f64
  %m = arith.mulf %s, %b : f64
  "prog.store"(%m, %s, %y) <{offset = 0 : i64}> : (f64, f64, !prog.ptr<f64>) -> ()
  "prog.store"(%m, %y) <{offset = 1 : i64}> : (f64, !prog.ptr<f64>) -> ()
  prog.return
}

// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[N:[^:]*]]: !prog.ptr<const i32>, %[[Y:[^:]*]]: !prog.ptr<f64>, %[[W:[^:]*]]: !prog.ptr<f64>)
// CHECK-SAME:    entry
// CHECK-SAME:    input_sizes = array<i64: 8, 1>, output_sizes = array<i64: 8>, workspace = 16 : i64
// CHECK-NEXT:    %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT:    prog.load %[[N]][0] : <const i32> -> i32
// CHECK-NEXT:    prog.store %[[C]], %[[C]] to %[[W]][0] : f64, f64 into <f64>
// CHECK-NEXT:    %[[NUL:.*]] = prog.null : <f64>
// CHECK-NEXT:    %[[X4:.*]] = prog.offset %[[X]] {bias = 4 : i64} : <const f64> -> <const f64>
// CHECK-NEXT:    prog.call @helper_raw(%[[X4]], %[[Y]], %[[NUL]]) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %[[IT:.*]] = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      %[[XI:.*]] = prog.offset %[[X]][%[[IT]]] {scale = 2 : i64} : <const f64> -> <const f64>
// CHECK-NEXT:      %[[YI:.*]] = prog.offset %[[Y]][%[[IT]]] {bias = 1 : i64, scale = 2 : i64} : <f64> -> <f64>
// CHECK-NEXT:      prog.call @helper_raw(%[[XI]], %[[YI]], %[[NUL]])
// CHECK-NEXT:    } {scaly.name = "it_y"}
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %{{.*}} = %c1_i64{{[_0-9]*}} to %c7_i64{{[_0-9]*}} step %c3_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:      prog.load %[[X]][0] : <const f64> -> f64
// CHECK-NEXT:    }
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NEXT:    }
// CHECK-NEXT:    prog.return
prog.proc @main(%x: !prog.ptr<const f64>, %n: !prog.ptr<const i32>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "n", "y", "w"], input_sizes = array<i64: 8, 1>, output_sizes = array<i64: 8>, entry, workspace = 16} {
  %c = arith.constant 2.0 : f64
  %i = prog.load %n[0] : !prog.ptr<const i32> -> i32
  "prog.store"(%c, %c, %w) <{offset = 0 : i64}> : (f64, f64, !prog.ptr<f64>) -> ()
  %nul = prog.null : !prog.ptr<f64>
  %x4 = prog.offset %x {bias = 4} : !prog.ptr<const f64> -> !prog.ptr<const f64>
  prog.call @helper_raw(%x4, %y, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 4 : i64
  %st1 = arith.constant 1 : i64
  scf.for %it = %lo1 to %hi1 step %st1 : i64 {
    %xi = prog.offset %x[%it] {scale = 2} : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %yi = prog.offset %y[%it] {scale = 2, bias = 1} : !prog.ptr<f64> -> !prog.ptr<f64>
    prog.call @helper_raw(%xi, %yi, %nul) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  } {scaly.name = "it_y"}
  %lo2 = arith.constant 1 : i64
  %hi2 = arith.constant 7 : i64
  %st2 = arith.constant 3 : i64
  scf.for %j = %lo2 to %hi2 step %st2 : i64 {
    %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
    scf.yield
  }
  %lo3 = arith.constant 0 : i64
  %hi3 = arith.constant 2 : i64
  %st3 = arith.constant 1 : i64
  scf.for %k = %lo3 to %hi3 step %st3 : i64 {
  }
  prog.return
}

// Pointers to every element type; a procedure with no inputs.
// CHECK-LABEL: prog.proc @types(
// CHECK-SAME:    !prog.ptr<f32>, %{{[^:]*}}: !prog.ptr<i64>, %{{[^:]*}}: !prog.ptr<i1>, %{{[^:]*}}: !prog.ptr<i32>, %{{[^:]*}}: !prog.ptr<none>
// CHECK-SAME:    input_sizes = array<i64>, output_sizes = array<i64: 1, 1, 1, 1>
prog.proc @types(%a: !prog.ptr<f32>, %b: !prog.ptr<i64>, %c: !prog.ptr<i1>, %d: !prog.ptr<i32>, %w: !prog.ptr<none>) attributes {arg_names = ["a", "b", "c", "d", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1, 1, 1, 1>} {
  prog.return
}

// CHECK-LABEL: prog.proc @windows(
// CHECK-SAME:    %[[W:[^:]*]]: !prog.ptr<none>)
// CHECK-SAME:    workspace = 192 : i64
// CHECK-NEXT:    prog.window %[[W]] size 2 : <none> -> <f64>
// CHECK-NEXT:    prog.window %[[W]] size 2 {offset = 0 : i64} : <none> -> <f64>
// CHECK-NEXT:    prog.window %[[W]] size 16 {offset = 64 : i64} : <none> -> <i32>
// CHECK-NEXT:    prog.window %[[W]] size 3 {offset = 128 : i64} : <none> -> <i1>
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    arith.constant {{.*}} : i64
// CHECK-NEXT:    scf.for %{{.*}} = %c-2_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c2_i64{{[_0-9]*}} : i64 {
prog.proc @windows(%y: !prog.ptr<f64>, %w: !prog.ptr<none>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, workspace = 192} {
  %0 = prog.window %w size 2 : !prog.ptr<none> -> !prog.ptr<f64>
  %1 = prog.window %w size 2 {offset = 0} : !prog.ptr<none> -> !prog.ptr<f64>
  %2 = prog.window %w size 16 {offset = 64} : !prog.ptr<none> -> !prog.ptr<i32>
  %3 = prog.window %w size 3 {offset = 128} : !prog.ptr<none> -> !prog.ptr<i1>
  %lo4 = arith.constant -2 : i64
  %hi4 = arith.constant 4 : i64
  %st4 = arith.constant 2 : i64
  scf.for %i = %lo4 to %hi4 step %st4 : i64 {
  }
  prog.return
}
