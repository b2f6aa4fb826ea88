// RUN: scaly-opt %s --split-input-file --scaly-split-long-procs="max-ops=3" --scaly-plan-workspace | FileCheck %s
//
// scaly-split-long-procs cuts a procedure of more than max-ops operations
// into noinline parts called in order. Values used by a later part go
// through slots of a carried buffer (a window of the caller's workspace),
// a slot is reused once its value's last part has loaded it, constants are
// recomputed in each part, and ports a part does not use are dropped.

// CHECK-LABEL: prog.proc @chain_part0(
// CHECK-SAME:    arg_names = ["x", "carried", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 2>, scaly.outlined
// CHECK:         %[[A:.*]] = prog.load %{{.*}}[0] : <const f64> -> f64
// CHECK:         %[[B:.*]] = arith.mulf %[[A]]
// CHECK:         prog.store %[[A]] to %[[C0:.*]][0]
// CHECK:         prog.store %[[B]] to %[[C0]][1]
// CHECK-LABEL: prog.proc @chain_part1(
// CHECK-SAME:    arg_names = ["carried", "w"], input_sizes = array<i64>, output_sizes = array<i64: 2>
// CHECK-DAG:     %[[B1:.*]] = prog.load %[[C1:.*]][1]
// CHECK-DAG:     %[[A1:.*]] = prog.load %[[C1]][0]
// CHECK-DAG:     arith.constant 2.0
// CHECK:         %[[D:.*]] = arith.addf %[[B1]]
// CHECK:         %[[E:.*]] = arith.mulf %[[D]], %[[A1]]
// CHECK:         %[[F:.*]] = arith.addf %[[E]]
// The slot of `a`, loaded at this part's start, carries `f` on.
// CHECK:         prog.store %[[F]] to %[[C1]][0]
// CHECK-LABEL: prog.proc @chain_part2(
// CHECK-SAME:    arg_names = ["y", "carried", "w"], input_sizes = array<i64>, output_sizes = array<i64: 2, 2>
// CHECK-LABEL: prog.proc @chain(
// CHECK-SAME:    workspace = 64
// CHECK-NEXT:    %[[BUF:.*]] = prog.window %{{.*}} size 2 {offset = 0 : i64}
// CHECK:         prog.call @chain_part0(%{{.*}}, %[[BUF]], %{{.*}})
// CHECK:         prog.call @chain_part1(%[[BUF]], %{{.*}})
// CHECK:         prog.call @chain_part2(%{{.*}}, %[[BUF]], %{{.*}})
// CHECK-NEXT:    prog.return
prog.proc @chain(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 2>, entry} {
  %c = arith.constant 2.0 : f64
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = arith.mulf %a, %c : f64
  %d = arith.addf %b, %c : f64
  %e = arith.mulf %d, %a : f64
  %f = arith.addf %e, %c : f64
  prog.store %f to %y[0] : f64 into <f64>
  %g = arith.mulf %f, %b : f64
  prog.store %g to %y[1] : f64 into <f64>
  prog.return
}

// -----

// A short procedure is left alone.
// CHECK-LABEL: prog.proc @short(
// CHECK-NOT:     prog.call
// CHECK:         prog.return
prog.proc @short(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = arith.mulf %a, %a : f64
  prog.store %b to %y[0] : f64 into <f64>
  prog.return
}

// -----

// A workspace window cannot be carried: no cut while it is live, so the
// first cut comes after its last use. An f32 and an i64 value crossing the
// cut get buffers of their own types; a pointer offset is recomputed.
// CHECK-LABEL: prog.proc @mixed_part0(
// CHECK:         prog.window
// CHECK:         prog.load %{{.*}}[0] : <f64> -> f64
// CHECK-LABEL: prog.proc @mixed_part1(
// CHECK-SAME:    arg_names = ["carried", "carried_f32", "carried_i64", "w"]
// CHECK-NOT:     prog.offset
// CHECK:         prog.return
// CHECK-LABEL: prog.proc @mixed_part2(
// CHECK-DAG:     prog.load %{{.*}}[0] : <f32> -> f32
// CHECK-DAG:     prog.load %{{.*}}[0] : <i64> -> i64
// CHECK-DAG:     prog.offset
// CHECK-LABEL: prog.proc @mixed(
// CHECK-DAG:     prog.window %{{.*}} size 1 {{.*}} : <f64> -> <f32>
// CHECK-DAG:     prog.window %{{.*}} size 1 {{.*}} : <f64> -> <i64>
prog.proc @mixed(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 3>, entry} {
  %t = prog.window %w size 4 : !prog.ptr<f64> -> !prog.ptr<f64>
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  prog.store %a to %t[0] : f64 into <f64>
  %s = prog.load %t[0] : !prog.ptr<f64> -> f64
  %h = arith.truncf %s : f64 to f32
  %i = arith.fptosi %s : f64 to i64
  %p = prog.offset %y {bias = 1 : i64} : !prog.ptr<f64> -> !prog.ptr<f64>
  %hh = arith.extf %h : f32 to f64
  %ii = arith.sitofp %i : i64 to f64
  prog.store %hh to %p[0] : f64 into <f64>
  prog.store %ii to %p[1] : f64 into <f64>
  prog.return
}

// -----

// A chain of two offsets made in the first part and read in a loop of the
// fourth: the part recomputes both from its own argument; the values the
// loop reads come from the carried buffer, and part 4 still stores a value
// part 1 made.
// CHECK-LABEL: prog.proc @chain_part3(
// CHECK-SAME:    %[[Y:[^:]*]]: !prog.ptr<f64>, %[[C:[^:]*]]: !prog.ptr<f64>
// CHECK-DAG:     %[[D:.*]] = prog.load %[[C]][2] : <f64> -> f64
// CHECK-DAG:     %[[E:.*]] = prog.load %[[C]][1] : <f64> -> f64
// CHECK:         %[[P:.*]] = prog.offset %[[Y]] {bias = 2 : i64}
// CHECK-NEXT:    %[[Q:.*]] = prog.offset %[[P]] {bias = 1 : i64}
// CHECK:         scf.for
// CHECK-NEXT:      %[[G:.*]] = arith.addf %[[D]], %[[E]] : f64
// CHECK-NEXT:      prog.store %[[G]] to %[[Q]][0]
// CHECK-LABEL: prog.proc @chain_part4(
// CHECK:         prog.load %{{.*}}[0] : <f64> -> f64
// CHECK-LABEL: prog.proc @chain(
// CHECK-COUNT-5: prog.call @chain_part
prog.proc @chain(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 8>, entry} {
  %p = prog.offset %y {bias = 2 : i64} : !prog.ptr<f64> -> !prog.ptr<f64>
  %q = prog.offset %p {bias = 1 : i64} : !prog.ptr<f64> -> !prog.ptr<f64>
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = arith.mulf %a, %a : f64
  %c = arith.addf %b, %a : f64
  %d = arith.mulf %c, %b : f64
  %e = arith.addf %d, %c : f64
  %f = arith.mulf %e, %e : f64
  %c0 = arith.constant 0 : i64
  %c4 = arith.constant 4 : i64
  %c1 = arith.constant 1 : i64
  scf.for %i = %c0 to %c4 step %c1 : i64 {
    %g = arith.addf %d, %f : f64
    prog.store %g to %q[0] : f64 into !prog.ptr<f64>
  }
  prog.store %b to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
