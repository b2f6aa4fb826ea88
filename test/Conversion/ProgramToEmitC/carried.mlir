// RUN: scaly-opt %s -split-input-file --scaly-program-to-emitc | FileCheck %s
//
// scf.for's carried values (iter_args) in EmitC: before the loop, one
// emitc.variable per carried value and the assignment of its init value
// (the C printer prints the pair as `T v = init;`); in the body the block
// argument is the variable; at the end of the body the yielded values are
// assigned, a value that reads a variable assigned before it in the same
// yield through a temporary variable assigned before them all; after the
// loop its results are the variables.

// A sum: no temporary.
// CHECK-LABEL: emitc.func @sum_raw(
// CHECK-SAME:    %[[X:[^:]*]]: !emitc.ptr<f64> {scaly.const, scaly.name = "x"}, %[[Y:[^:]*]]: !emitc.ptr<f64> {scaly.name = "y"}
// CHECK:         %[[ZERO:.*]] = "emitc.constant"() <{value = 0.000000e+00 : f64}> : () -> f64
// CHECK-NEXT:    %[[S:.*]] = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
// CHECK-NEXT:    emitc.assign %[[ZERO]] : f64 to %[[S]] : f64
// CHECK:         emitc.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK-NEXT:      %[[XI:.*]] = emitc.add %[[X]], %[[I]] : (!emitc.ptr<f64>, i64) -> !emitc.ptr<f64>
// CHECK-NEXT:      %[[C0:.*]] = "emitc.constant"() <{value = 0 : i64}> : () -> i64
// CHECK-NEXT:      %[[V:.*]] = emitc.subscript %[[XI]][%[[C0]]] : (!emitc.ptr<f64>, i64) -> f64
// CHECK-NEXT:      %[[S2:.*]] = emitc.add %[[S]], %[[V]] : (f64, f64) -> f64
// CHECK-NEXT:      emitc.assign %[[S2]] : f64 to %[[S]] : f64
// CHECK-NEXT:    } {scaly.name = "i"}
// CHECK:         %[[SLOT:.*]] = emitc.subscript %[[Y]][%{{.*}}] : (!emitc.ptr<f64>, i64) -> f64
// CHECK-NEXT:    emitc.assign %[[S]] : f64 to %[[SLOT]] : f64
prog.proc @sum_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 8>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 8 : i64
  %st1 = arith.constant 1 : i64
  %sum = scf.for %i = %lo1 to %hi1 step %st1 iter_args(%s = %zero) -> (f64) : i64 {
    %xi = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> f64
    %s2 = arith.addf %s, %v : f64
    scf.yield %s2 : f64
  } {scaly.name = "i"}
  prog.store %sum to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

// Fibonacci, a, b = b, a + b: a + b reads a, assigned before it, so it goes
// through a temporary assigned first. b is assigned to a directly.
// CHECK-LABEL: emitc.func @fib_raw(
// CHECK:         %[[ZERO:.*]] = "emitc.constant"() <{value = 0.000000e+00 : f64}> : () -> f64
// CHECK-NEXT:    %[[ONE:.*]] = "emitc.constant"() <{value = 1.000000e+00 : f64}> : () -> f64
// CHECK-NEXT:    %[[A:.*]] = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
// CHECK-NEXT:    emitc.assign %[[ZERO]] : f64 to %[[A]] : f64
// CHECK-NEXT:    %[[B:.*]] = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
// CHECK-NEXT:    emitc.assign %[[ONE]] : f64 to %[[B]] : f64
// CHECK:         emitc.for
// CHECK-NEXT:      %[[N:.*]] = emitc.add %[[A]], %[[B]] : (f64, f64) -> f64
// CHECK-NEXT:      %[[T:.*]] = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
// CHECK-NEXT:      emitc.assign %[[N]] : f64 to %[[T]] : f64
// CHECK-NEXT:      emitc.assign %[[B]] : f64 to %[[A]] : f64
// CHECK-NEXT:      emitc.assign %[[T]] : f64 to %[[B]] : f64
// CHECK-NEXT:    }
// CHECK:         emitc.assign %[[A]] : f64 to
prog.proc @fib_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 10 : i64
  %st2 = arith.constant 1 : i64
  %a, %b = scf.for %i = %lo2 to %hi2 step %st2 iter_args(%p = %zero, %q = %one) -> (f64, f64) : i64 {
    %n = arith.addf %p, %q : f64
    scf.yield %q, %n : f64, f64
  }
  prog.store %a to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

// A swap: the value yielded last is the variable assigned first, copied
// into a temporary before the assignments. A value carried unchanged and
// read by nothing gets no variable.
// CHECK-LABEL: emitc.func @swap_raw(
// CHECK:         %[[A:.*]] = "emitc.variable"()
// CHECK-NEXT:    emitc.assign %{{.*}} : f64 to %[[A]] : f64
// CHECK-NEXT:    %[[B:.*]] = "emitc.variable"()
// CHECK-NEXT:    emitc.assign %{{.*}} : f64 to %[[B]] : f64
// CHECK-NOT:     emitc.variable
// CHECK:         emitc.for
// CHECK-NEXT:      %[[T:.*]] = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
// CHECK-NEXT:      emitc.assign %[[A]] : f64 to %[[T]] : f64
// CHECK-NEXT:      emitc.assign %[[B]] : f64 to %[[A]] : f64
// CHECK-NEXT:      emitc.assign %[[T]] : f64 to %[[B]] : f64
// CHECK-NEXT:    }
prog.proc @swap_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 2>} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %lo3 = arith.constant 0 : i64
  %hi3 = arith.constant 3 : i64
  %st3 = arith.constant 1 : i64
  %r:3 = scf.for %i = %lo3 to %hi3 step %st3 iter_args(%p = %zero, %q = %one, %keep = %one) -> (f64, f64, f64) : i64 {
    scf.yield %q, %p, %keep : f64, f64, f64
  }
  prog.store %r#0, %r#1 to %y[0] : f64, f64 into !prog.ptr<f64>
  prog.return
}
