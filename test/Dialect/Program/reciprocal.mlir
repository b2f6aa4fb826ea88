// RUN: scaly-opt %s --scaly-reciprocal | FileCheck %s
// RUN: scaly-opt %s --pass-pipeline='builtin.module(prog.proc(scaly-reciprocal))' | FileCheck %s
//
// Division by a constant or by a value fixed across the loop becomes a
// multiplication by its reciprocal, computed once; a divisor that changes
// every iteration, and a division outside loops by a variable, stay.

// CHECK-LABEL: prog.proc @scale
// CHECK-DAG:   %[[QUARTER:.*]] = arith.constant 2.500000e-01 : f64
// CHECK:       scf.for
// CHECK:         %[[D:.*]] = prog.load %arg1[0]
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.0
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE]], %[[D]] : f64
// CHECK:         arith.mulf %{{.*}}, %[[R]] : f64
// CHECK:         arith.mulf %{{.*}}, %[[QUARTER]] : f64
// CHECK:         arith.divf %{{.*}}, %[[V:.*]] : f64
// CHECK:       }
// CHECK:       arith.divf
prog.proc @scale(%x: !prog.ptr<const f64>, %d: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "d", "y", "w"], entry, input_sizes = array<i64: 8, 1>, output_sizes = array<i64: 9>} {
  %four = arith.constant 4.0 : f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 8 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %yi = prog.offset %y[%i] : <f64> -> <f64>
    %v = prog.load %xi[0] : <const f64> -> f64
    %dv = prog.load %d[0] : <const f64> -> f64
    %a = arith.divf %v, %dv : f64
    %b = arith.divf %a, %four : f64
    %c = arith.divf %b, %v : f64
    prog.store %c to %yi[0] : f64 into <f64>
  }
  %x0 = prog.load %x[0] : <const f64> -> f64
  %d0 = prog.load %d[0] : <const f64> -> f64
  %q = arith.divf %x0, %d0 : f64
  prog.store %q to %y[8] : f64 into <f64>
  prog.return
}

// A carried value changes every iteration of its loop: dividing by it stays
// a division there. In an inner loop it is fixed: its reciprocal is computed
// once per outer iteration, at the start of the outer body.
// CHECK-LABEL: prog.proc @carried
// CHECK:       scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c4_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f64) : i64 {
// CHECK-NEXT:    %[[ONE:.*]] = arith.constant 1.0
// CHECK-NEXT:    %[[R:.*]] = arith.divf %[[ONE]], %[[S]] : f64
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c8_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:           arith.mulf %{{.*}}, %[[R]] : f64
// CHECK:         }
// CHECK:         %[[N:.*]] = arith.divf %{{.*}}, %[[S]] : f64
// CHECK:         scf.yield %[[N]] : f64
prog.proc @carried(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 8>, output_sizes = array<i64: 9>} {
  %two = arith.constant 2.0 : f64
  %three = arith.constant 3.0 : f64
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 4 : i64
  %st2 = arith.constant 1 : i64
  %r = scf.for %k = %lo2 to %hi2 step %st2 iter_args(%s = %two) -> (f64) : i64 {
    %lo3 = arith.constant 0 : i64
    %hi3 = arith.constant 8 : i64
    %st3 = arith.constant 1 : i64
    scf.for %i = %lo3 to %hi3 step %st3 : i64 {
      %xi = prog.offset %x[%i] : <const f64> -> <const f64>
      %yi = prog.offset %y[%i] : <f64> -> <f64>
      %v = prog.load %xi[0] : <const f64> -> f64
      %a = arith.divf %v, %s : f64
      prog.store %a to %yi[0] : f64 into <f64>
    }
    %n = arith.divf %three, %s : f64
    scf.yield %n : f64
  }
  prog.store %r to %y[8] : f64 into <f64>
  prog.return
}
