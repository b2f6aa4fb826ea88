// RUN: scaly-opt %s -split-input-file --scaly-widen-lanes=lanes=4 | FileCheck %s
// RUN: not scaly-opt %s -split-input-file --scaly-widen-lanes=lanes=3 2>&1 | FileCheck %s --check-prefix=LANES
// The same nested on each procedure, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-widen-lanes{lanes=4}))' | FileCheck %s
// RUN: not scaly-opt %s -split-input-file --pass-pipeline='builtin.module(prog.proc(scaly-widen-lanes{lanes=3}))' 2>&1 | FileCheck %s --check-prefix=LANES
// LANES: scaly-widen-lanes: lanes must be 2, 4 or 8, got 3
//
// Loops of independent iterations become 4-wide iterations over
// vector<4xf64> plus the scalar loop for what is left; values the same in
// every lane stay scalars and are broadcast where lanes need them.

// CHECK-LABEL: prog.proc @waves
// CHECK:       %[[TWO:.*]] = arith.constant 2.0
// CHECK:       %[[TWOS:.*]] = vector.broadcast %[[TWO]] : f64 to vector<4xf64>
// CHECK:       scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:         %[[X:.*]] = prog.offset %arg0[%[[I]]]
// CHECK:         %[[V:.*]] = prog.load %[[X]][0] : <const f64> -> vector<4xf64>
// CHECK:         %[[M:.*]] = arith.mulf %[[V]], %[[TWOS]] : vector<4xf64>
// CHECK:         %[[S:.*]] = math.sin %[[M]] : vector<4xf64>
// CHECK:         prog.store %[[S]] to %{{.*}}[0] : vector<4xf64> into <f64>
// CHECK:       } {scaly.lanes = 4 : i64, scaly.name = "i"}
// CHECK:       scf.for %[[J:.*]] = %c8_i64{{[_0-9]*}} to %c10_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:         math.sin %{{.*}} : f64
prog.proc @waves(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 10>, output_sizes = array<i64: 10>} {
  %two = arith.constant 2.0 : f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 10 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    %m = arith.mulf %v, %two : f64
    %s = math.sin %m : f64
    prog.store %s to %yi[0] : f64 into <f64>
  } {scaly.name = "i"}
  prog.return
}

// -----

// Interleaved pairs (a map's (2,) outputs): lanes two elements apart, each
// value stored with stride 2; a scalar input read in every iteration stays
// one scalar.
// CHECK-LABEL: prog.proc @pairs
// CHECK:       scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:         %[[C:.*]] = prog.load %arg1[0] : <const f64> -> f64
// CHECK-NEXT:    %[[CS:.*]] = vector.broadcast %[[C]] : f64 to vector<4xf64>
// CHECK-NEXT:    %[[A:.*]] = prog.load %{{.*}}[0] {stride = 2 : i64} : <const f64> -> vector<4xf64>
// CHECK-NEXT:    %[[B:.*]] = prog.load %{{.*}}[1] {stride = 2 : i64} : <const f64> -> vector<4xf64>
// CHECK-NEXT:    arith.mulf %[[A]], %[[CS]] : vector<4xf64>
// CHECK-NEXT:    arith.addf %[[B]], %[[CS]] : vector<4xf64>
// CHECK:         prog.store %{{.*}}, %{{.*}} to %{{.*}}[0] {stride = 2 : i64} : vector<4xf64>, vector<4xf64> into <f64>
// CHECK:       } {scaly.lanes = 4 : i64}
// CHECK-NOT:   scf.for
prog.proc @pairs(%z: !prog.ptr<const f64>, %c: !prog.ptr<const f64>, %out: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["z", "c", "out", "w"], entry, input_sizes = array<i64: 16, 1>, output_sizes = array<i64: 16>} {
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 8 : i64
  %st2 = arith.constant 1 : i64
  scf.for %i = %lo2 to %hi2 step %st2 : i64 {
    %zi = prog.offset %z[%i] {scale = 2 : i64} : <const f64> -> <const f64>
    %oi = prog.offset %out[%i] {scale = 2 : i64} : <f64> -> <f64>
    %cv = prog.load %c[0] : <const f64> -> f64
    %a = prog.load %zi[0] : <const f64> -> f64
    %b = prog.load %zi[1] : <const f64> -> f64
    %p = arith.mulf %a, %cv : f64
    %q = arith.addf %b, %cv : f64
    prog.store %p, %q to %oi[0] : f64, f64 into <f64>
  }
  prog.return
}

// -----

// A scan's state: read at k, written at k + 1 of one buffer. Iterations
// depend on each other, so the loop stays scalar.
// CHECK-LABEL: prog.proc @scan
// CHECK:       scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c9_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NOT:   vector
prog.proc @scan(%s: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["s", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 10>} {
  %lo3 = arith.constant 0 : i64
  %hi3 = arith.constant 9 : i64
  %st3 = arith.constant 1 : i64
  scf.for %k = %lo3 to %hi3 step %st3 : i64 {
    %sk = prog.offset %s[%k] : <f64> -> <f64>
    %v = prog.load %sk[0] : <f64> -> f64
    %n = math.cos %v : f64
    prog.store %n to %sk[1] : f64 into <f64>
  }
  prog.return
}

// -----

// Comparisons become lane masks and selects choose lane by lane (the
// products exact with zeros of compressed derivative sweeps are such
// selects); a condition the same in every lane stays a scalar choice.
// CHECK-LABEL: prog.proc @masks
// CHECK:       scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c16_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:         %[[A:.*]] = prog.load {{.*}} -> vector<4xf64>
// CHECK:         %[[B:.*]] = prog.load {{.*}} -> vector<4xf64>
// CHECK:         %[[ZA:.*]] = arith.cmpf oeq, %[[A]], %{{.*}} : vector<4xf64>
// CHECK:         %[[ZB:.*]] = arith.cmpf oeq, %[[B]], %{{.*}} : vector<4xf64>
// CHECK:         %[[Z:.*]] = arith.ori %[[ZA]], %[[ZB]] : vector<4xi1>
// CHECK:         %[[P:.*]] = arith.mulf %[[A]], %[[B]] : vector<4xf64>
// CHECK:         arith.select %[[Z]], %{{.*}}, %[[P]] : vector<4xi1>, vector<4xf64>
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf64>
// CHECK:       } {scaly.lanes = 4 : i64}
prog.proc @masks(%x: !prog.ptr<const f64>, %t: !prog.ptr<const f64>, %flag: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "t", "flag", "y", "w"], entry, input_sizes = array<i64: 16, 16, 1>, output_sizes = array<i64: 16>} {
  %zero = arith.constant 0.0 : f64
  %f = prog.load %flag[0] : <const i64> -> i64
  %c0 = arith.constant 0 : i64
  %on = arith.cmpi ne, %f, %c0 : i64
  %lo4 = arith.constant 0 : i64
  %hi4 = arith.constant 16 : i64
  %st4 = arith.constant 1 : i64
  scf.for %i = %lo4 to %hi4 step %st4 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %ti = prog.offset %t[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %a = prog.load %xi[0] : <const f64> -> f64
    %b = prog.load %ti[0] : <const f64> -> f64
    %za = arith.cmpf oeq, %a, %zero : f64
    %zb = arith.cmpf oeq, %b, %zero : f64
    %z = arith.ori %za, %zb : i1
    %p = arith.mulf %a, %b : f64
    %exact = arith.select %z, %zero, %p : f64
    %r = arith.select %on, %exact, %a : f64
    prog.store %r to %yi[0] : f64 into <f64>
  }
  prog.return
}

// -----

// Not widened: a compare whose C vector operator would mean something else
// (one: C's != is true for NaN), a mask combined with a bool the same in
// every lane, a loop shorter than the lanes, a store every iteration makes
// to the same element, an integer load.
// CHECK-LABEL: prog.proc @left_alone
// CHECK-NOT:   vector<
// CHECK-NOT:   scaly.lanes
prog.proc @left_alone(%x: !prog.ptr<const f64>, %n: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "n", "y", "w"], entry, input_sizes = array<i64: 16, 16>, output_sizes = array<i64: 16>} {
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %lo5 = arith.constant 0 : i64
  %hi5 = arith.constant 16 : i64
  %st5 = arith.constant 1 : i64
  scf.for %i = %lo5 to %hi5 step %st5 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    %c = arith.cmpf one, %v, %zero : f64
    %r = arith.select %c, %zero, %v : f64
    prog.store %r to %yi[0] : f64 into <f64>
  }
  %lo6 = arith.constant 0 : i64
  %hi6 = arith.constant 16 : i64
  %st6 = arith.constant 1 : i64
  scf.for %i = %lo6 to %hi6 step %st6 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    %c = arith.cmpf olt, %v, %zero : f64
    %m = arith.andi %c, %true : i1
    %r = arith.select %m, %zero, %v : f64
    prog.store %r to %yi[0] : f64 into <f64>
  }
  %lo7 = arith.constant 0 : i64
  %hi7 = arith.constant 3 : i64
  %st7 = arith.constant 1 : i64
  scf.for %i = %lo7 to %hi7 step %st7 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    prog.store %v to %yi[0] : f64 into <f64>
  }
  %lo8 = arith.constant 0 : i64
  %hi8 = arith.constant 16 : i64
  %st8 = arith.constant 1 : i64
  scf.for %i = %lo8 to %hi8 step %st8 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    prog.store %v to %y[0] : f64 into <f64>
  }
  %lo9 = arith.constant 0 : i64
  %hi9 = arith.constant 16 : i64
  %st9 = arith.constant 1 : i64
  scf.for %i = %lo9 to %hi9 step %st9 : i64 {
    %ni = prog.offset %n[%i] : <const i64> -> <const i64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %ni[0] : <const i64> -> i64
    %f = arith.sitofp %v : i64 to f64
    prog.store %f to %yi[0] : f64 into <f64>
  }
  prog.return
}

// -----

// A sum carried through SSA values (iter_args) makes each iteration depend
// on the one before: the loop stays scalar, even though its loads and its
// store alone would be independent. An inner loop of independent iterations
// inside a loop with carried values is widened; it reads the outer carried
// value as a scalar the same in every lane.
// CHECK-LABEL: prog.proc @carried_sum
// CHECK:       %[[SUM:.*]] = scf.for %[[I:.*]] = %c0_i64{{[_0-9]*}} to %c16_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f64) : i64 {
// CHECK:         %[[V:.*]] = prog.load %{{.*}}[0] : <const f64> -> f64
// CHECK:         %[[M:.*]] = arith.mulf %[[V]], %[[V]] : f64
// CHECK:         prog.store %[[M]] to %{{.*}}[0] : f64 into <f64>
// CHECK:         %[[S2:.*]] = arith.addf %[[S]], %[[M]] : f64
// CHECK:         scf.yield %[[S2]] : f64
// CHECK-NEXT:  }
// CHECK-NOT:   scaly.lanes
// CHECK:       %[[OUT:.*]] = scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c2_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args(%[[T:.*]] = %[[SUM]]) -> (f64) : i64 {
// CHECK:         %[[TS:.*]] = vector.broadcast %[[T]] : f64 to vector<4xf64>
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c16_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:           arith.mulf %{{.*}}, %[[TS]] : vector<4xf64>
// CHECK:         } {scaly.lanes = 4 : i64}
// CHECK:         scf.yield %{{.*}} : f64
// CHECK-NEXT:  }
// CHECK:       prog.store %[[OUT]] to
prog.proc @carried_sum(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 16>, output_sizes = array<i64: 17>} {
  %zero = arith.constant 0.0 : f64
  %lo10 = arith.constant 0 : i64
  %hi10 = arith.constant 16 : i64
  %st10 = arith.constant 1 : i64
  %sum = scf.for %i = %lo10 to %hi10 step %st10 iter_args(%s = %zero) -> (f64) : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    %m = arith.mulf %v, %v : f64
    prog.store %m to %yi[0] : f64 into <f64>
    %s2 = arith.addf %s, %m : f64
    scf.yield %s2 : f64
  }
  %lo11 = arith.constant 0 : i64
  %hi11 = arith.constant 2 : i64
  %st11 = arith.constant 1 : i64
  %out = scf.for %k = %lo11 to %hi11 step %st11 iter_args(%t = %sum) -> (f64) : i64 {
    %lo12 = arith.constant 0 : i64
    %hi12 = arith.constant 16 : i64
    %st12 = arith.constant 1 : i64
    scf.for %i = %lo12 to %hi12 step %st12 : i64 {
      %xi = prog.offset %x[%i] : <const f64> -> <const f64>
      %yi = prog.offset %y[%i] : <f64> -> <f64>
      %v = prog.load %xi[0] : <const f64> -> f64
      %m = arith.mulf %v, %t : f64
      prog.store %m to %yi[0] : f64 into <f64>
    }
    %t2 = arith.mulf %t, %t : f64
    scf.yield %t2 : f64
  }
  prog.store %out to %y[16] : f64 into <f64>
  prog.return
}
