// RUN: scaly-opt %s -split-input-file -verify-diagnostics
// RUN: not scaly-translate --emit-c --split-input-file %s 2>/dev/null | FileCheck %s
// (The first two inputs fail to verify, as they should: `not`.)
//
// Why two things stay outside EmitC 19's types (docs/design.md, "C
// emission"):
//
// `scaly.const` marks a pointer whose innermost element is const. EmitC 19
// has no const qualifier; `!emitc.ptr<!emitc.opaque<"const double">>` says
// it, but a read through it must have the pointee's type (emitc.subscript's
// verifier), so every value read from an input would be an opaque
// `const double`, not an f64 the arithmetic, the float literals and the
// vector types are typed by. The pointer keeps its element type and the
// attribute adds the const.
//
// A table read is an emitc.literal `((double*)scaly_table_0)`: the table is
// an emitc.global array, and EmitC 19 has no array-to-pointer decay
// (emitc.cast refuses an array operand).

emitc.func @read(%p: !emitc.ptr<!emitc.opaque<"const double">>) {
  %i = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  // expected-error @+1 {{requires pointee type ('!emitc.opaque<"const double">') and result type ('f64') to match}}
  %x = emitc.subscript %p[%i] : (!emitc.ptr<!emitc.opaque<"const double">>, i64) -> f64
  emitc.return
}

// -----

emitc.global static const @scaly_table_0 : !emitc.array<2xf64> = dense<[1.0, 2.0]>
emitc.func @decay() {
  %g = emitc.get_global @scaly_table_0 : !emitc.array<2xf64>
  // expected-error @+1 {{operand type '!emitc.array<2xf64>' and result type '!emitc.ptr<f64>' are cast incompatible}}
  %p = emitc.cast %g : !emitc.array<2xf64> to !emitc.ptr<f64>
  emitc.return
}

// -----

// What the C module says instead: a const f64 pointer, read as f64, and the
// table's address as a literal cast to the module's plain pointer.
// CHECK:      static const double scaly_table_0[2] = {
// CHECK:      double sum(const double* x) {
// CHECK-NEXT:   return x[0] + ((double*)scaly_table_0)[1];
emitc.global static const @scaly_table_0 : !emitc.array<2xf64> = dense<[1.0, 2.0]>
emitc.func @sum(%x: !emitc.ptr<f64> {scaly.const, scaly.name = "x"}) -> f64 {
  %i = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %j = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %a = emitc.subscript %x[%i] : (!emitc.ptr<f64>, i64) -> f64
  %t = emitc.literal "((double*)scaly_table_0)" : !emitc.ptr<f64>
  %b = emitc.subscript %t[%j] : (!emitc.ptr<f64>, i64) -> f64
  %s = emitc.add %a, %b : (f64, f64) -> f64
  emitc.return %s : f64
}
