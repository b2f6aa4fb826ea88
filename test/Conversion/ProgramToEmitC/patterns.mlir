// RUN: scaly-opt %s --scaly-program-to-emitc | FileCheck %s
//
// The body conversion's patterns where Scaly's own replace upstream's
// ArithToEmitC (ArithPatterns.cpp): float compares without upstream's NaN
// tests (C's operators already are ordered, and != unordered), unsigned
// compares of bools and conversions from bools without `ui1` casts (no C
// type), trunci and bitwise ops on integers as one C cast / operator, x ^ true
// as !x, fptosi guarded; upstream's own where it prints the same C (integer
// wrap-around, nsw index arithmetic plain, float +).

// CHECK-LABEL: emitc.func @f(
// CHECK-SAME:    %[[X:[^:]*]]: !emitc.ptr<f64> {scaly.const, scaly.name = "x"}, %[[N:[^:]*]]: !emitc.ptr<i64> {scaly.const, scaly.name = "n"}, %[[B:[^:]*]]: !emitc.ptr<i1>
// CHECK:         %[[U:.*]] = emitc.subscript %[[X]]
// CHECK:         %[[V:.*]] = emitc.subscript %[[X]]
// CHECK:         %[[I:.*]] = emitc.subscript %[[N]]
// CHECK:         %[[J:.*]] = emitc.subscript %[[N]]
// CHECK:         %[[P:.*]] = emitc.subscript %[[B]]
// CHECK:         %[[Q:.*]] = emitc.subscript %[[B]]
// CHECK-NEXT:    %[[LT:.*]] = emitc.cmp lt, %[[U]], %[[V]] : (f64, f64) -> i1
// CHECK-NEXT:    emitc.cmp ne, %[[U]], %[[V]] : (f64, f64) -> i1
// CHECK-NEXT:    emitc.cmp lt, %[[P]], %[[Q]] : (i1, i1) -> i1
// CHECK-NEXT:    emitc.cmp lt, %[[I]], %[[J]] : (i64, i64) -> i1
// CHECK-NEXT:    emitc.cast %[[P]] : i1 to f64
// CHECK-NEXT:    emitc.cast %[[Q]] : i1 to i64
// CHECK-NEXT:    emitc.cast %[[I]] : i64 to i32
// CHECK-NEXT:    emitc.bitwise_and %[[I]], %[[J]] : (i64, i64) -> i64
// CHECK-NEXT:    "emitc.constant"() <{value = true}>
// CHECK-NEXT:    emitc.logical_not %[[LT]] : i1
// CHECK-NEXT:    %[[UI:.*]] = emitc.cast %[[I]] : i64 to ui64
// CHECK-NEXT:    %[[UJ:.*]] = emitc.cast %[[J]] : i64 to ui64
// CHECK-NEXT:    %[[US:.*]] = emitc.add %[[UI]], %[[UJ]] : (ui64, ui64) -> ui64
// CHECK-NEXT:    emitc.cast %[[US]] : ui64 to i64
// CHECK-NEXT:    emitc.add %[[I]], %[[J]] : (i64, i64) -> i64
// CHECK:         %[[IN:.*]] = emitc.logical_and
// CHECK-NEXT:    %[[C:.*]] = emitc.cast %[[U]] : f64 to i64
// CHECK-NEXT:    %[[MIN:.*]] = emitc.literal "INT64_MIN" : i64
// CHECK-NEXT:    emitc.conditional %[[IN]], %[[C]], %[[MIN]] : i64
// CHECK-NEXT:    emitc.call_opaque "sin"(%[[U]]) : (f64) -> f64
// CHECK-NEXT:    emitc.add %[[U]], %[[V]] : (f64, f64) -> f64
prog.proc @f(%x: !prog.ptr<const f64>, %n: !prog.ptr<const i64>, %b: !prog.ptr<const i1>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "n", "b", "y", "w"], input_sizes = array<i64: 2, 2, 2>, output_sizes = array<i64: 8>} {
  %u = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %v = prog.load %x[1] : !prog.ptr<const f64> -> f64
  %i = prog.load %n[0] : !prog.ptr<const i64> -> i64
  %j = prog.load %n[1] : !prog.ptr<const i64> -> i64
  %p = prog.load %b[0] : !prog.ptr<const i1> -> i1
  %q = prog.load %b[1] : !prog.ptr<const i1> -> i1
  %lt = arith.cmpf olt, %u, %v : f64
  %ne = arith.cmpf une, %u, %v : f64
  %ult = arith.cmpi ult, %p, %q : i1
  %slt = arith.cmpi slt, %i, %j : i64
  %f = arith.uitofp %p : i1 to f64
  %k = arith.extui %q : i1 to i64
  %t = arith.trunci %i : i64 to i32
  %and = arith.andi %i, %j : i64
  %true = arith.constant true
  %not = arith.xori %lt, %true : i1
  %sum = arith.addi %i, %j : i64
  %idx = arith.addi %i, %j overflow<nsw> : i64
  %c = arith.fptosi %u : f64 to i64
  %s = math.sin %u : f64
  %a = arith.addf %u, %v : f64
  prog.store %s, %a to %y[0] : f64, f64 into !prog.ptr<f64>
  prog.return
}
