// RUN: mlir-translate --mlir-to-cpp %s | FileCheck %s --check-prefix=UP
// RUN: echo 'typedef double double2 __attribute__((vector_size(16)));' > %t.h
// RUN: mlir-translate --mlir-to-cpp %s | not clang -fsyntax-only -std=c17 -x c -include %t.h - 2>&1 | FileCheck %s --check-prefix=CLANG
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=SCALY
//
// Why Scaly prints EmitC with its own printer (docs/design.md, "Deviation:
// Scaly prints EmitC with its own C printer"): what MLIR 19's translator
// (mlir-translate --mlir-to-cpp, /usr/lib/llvm-19/bin) prints for EmitC
// like the conversion's, next to Scaly's printer on the same ops.
// - A vector built from values: EmitC 19 has no op for it, and
//   emitc.call_opaque of the vector type is a C++ functional cast
//   `double2(a, b)`, which C rejects (Scaly's printer prints it so too; the
//   conversion builds cdecl.compound_literal, `(double2){a, b}`:
//   compound-literal.mlir).
// - An i1 is `bool`, which C before C23 has only from <stdbool.h> (Clang in
//   C17 rejects it); Scaly prints comparisons inline or as int.
// - A read through emitc.subscript is printed at its use, after a write to
//   the same element between the two: `y[0] = 2.0; ... y[0] + 2.0` adds the
//   new value, not the one read (EmitC 19 has no load; MLIR 20's lvalues
//   and emitc.load address this). Scaly reads into a variable first.
// - Scaly's attributes are not read: `scaly.const` (a `double*` parameter
//   where the header's prototype has `const double*`, which conflicts) and
//   `scaly.restrict` (no `__restrict`: valid C, but the compiler must assume
//   aliasing). Upstream prints `const double*` for an opaque
//   `const double` pointee, valid C; the reads through it are then opaque
//   values, which Scaly's typed conversion does not build on (design.md,
//   scaly.const).
// - Every value and parameter is `v<N>`: valid C, a matter of readability
//   (the seed's `euler_raw(const double* z, ...)`); names are no part of
//   the ABI.
// - A counted loop with a carried variable and a static const table print
//   as valid C in both.

// UP:      static const double table[3] = {1.00000000000000000e+00, 2.00000000000000000e+00, 3.00000000000000000e+00};
// UP:      void euler_raw(double* v1, double* v2) {
// UP-NEXT:   int64_t v3 = 0;
// UP-NEXT:   v2[v3] = v1[v3];
// UP:      void euler_opaque(const double* v1, double* v2) {
// UP:      double bump(double* v1) {
// UP:        v1[v2] = v3;
// UP-NEXT:   double v4 = v1[v2] + v3;
// UP:      double2 pair(double v1, double v2) {
// UP-NEXT:   double2 v3 = double2(v1, v2);
// UP:      double scale(double* v1, double* v2, int64_t v3) {
// UP:        for (int64_t v7 = v4; v7 < v3; v7 += v5) {
// UP-NEXT:     v2[v7] = v1[v7];
// UP-NEXT:     double v8 = v6 + v1[v7];
// UP-NEXT:     v6 = v8;
// UP-NEXT:   }
// UP-NEXT:   bool v9 = v6 > table[v4];

// CLANG-DAG: error: unexpected type name 'double2': expected expression
// CLANG-DAG: error: use of undeclared identifier 'bool'

// SCALY:      static const double table[3] = {
// SCALY:      void euler_raw(const double* z, double* out) {
// SCALY-NEXT:   out[0] = z[0];
// SCALY:      double bump(double* y) {
// SCALY-NEXT:   double v0 = y[0];
// SCALY-NEXT:   y[0] = 2.0;
// SCALY-NEXT:   return v0 + 2.0;
// SCALY:      double2 pair(double a, double b) {
// SCALY-NEXT:   return double2(a, b);
// SCALY:      double scale(const double* __restrict x, double* __restrict y, int64_t n) {
// SCALY-NEXT:   double acc = 0.0;
// SCALY-NEXT:   for (long long i = 0; i < n; ++i) {
// SCALY:        return (acc > v1) ? acc : v1;

emitc.include <"stdint.h">
emitc.global static const @table : !emitc.array<3xf64> = dense<[1.0, 2.0, 3.0]>

emitc.func @euler_raw(%z: !emitc.ptr<f64> {scaly.name = "z", scaly.const}, %out: !emitc.ptr<f64> {scaly.name = "out"}) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %z0 = emitc.subscript %z[%zero] : (!emitc.ptr<f64>, i64) -> f64
  %slot = emitc.subscript %out[%zero] : (!emitc.ptr<f64>, i64) -> f64
  emitc.assign %z0 : f64 to %slot : f64
  emitc.return
}

emitc.func @euler_opaque(%z: !emitc.ptr<!emitc.opaque<"const double">>, %out: !emitc.ptr<f64>) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1.0 : f64}> : () -> f64
  %z0 = emitc.subscript %z[%zero] : (!emitc.ptr<!emitc.opaque<"const double">>, i64) -> !emitc.opaque<"const double">
  %sum = emitc.add %z0, %one : (!emitc.opaque<"const double">, f64) -> f64
  %slot = emitc.subscript %out[%zero] : (!emitc.ptr<f64>, i64) -> f64
  emitc.assign %sum : f64 to %slot : f64
  emitc.return
}

emitc.func @bump(%y: !emitc.ptr<f64> {scaly.name = "y"}) -> f64 {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %old = emitc.subscript %y[%zero] : (!emitc.ptr<f64>, i64) -> f64
  %slot = emitc.subscript %y[%zero] : (!emitc.ptr<f64>, i64) -> f64
  emitc.assign %two : f64 to %slot : f64
  %r = emitc.add %old, %two : (f64, f64) -> f64
  emitc.return %r : f64
}

emitc.func @pair(%a: f64 {scaly.name = "a"}, %b: f64 {scaly.name = "b"}) -> !emitc.opaque<"double2"> {
  %v = emitc.call_opaque "double2"(%a, %b) : (f64, f64) -> !emitc.opaque<"double2">
  emitc.return %v : !emitc.opaque<"double2">
}

emitc.func @scale(%x: !emitc.ptr<f64> {scaly.name = "x", scaly.const, scaly.restrict}, %y: !emitc.ptr<f64> {scaly.name = "y", scaly.restrict}, %n: i64 {scaly.name = "n"}) -> f64 {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %acc = "emitc.variable"() <{value = 0.0 : f64}> {scaly.name = "acc"} : () -> f64
  emitc.for %i = %zero to %n step %one : i64 {
    %xi = emitc.subscript %x[%i] : (!emitc.ptr<f64>, i64) -> f64
    %yi = emitc.subscript %y[%i] : (!emitc.ptr<f64>, i64) -> f64
    emitc.assign %xi : f64 to %yi : f64
    %s = emitc.add %acc, %xi : (f64, f64) -> f64
    emitc.assign %s : f64 to %acc : f64
  } {scaly.name = "i"}
  %t = emitc.get_global @table : !emitc.array<3xf64>
  %t0 = emitc.subscript %t[%zero] : (!emitc.array<3xf64>, i64) -> f64
  %pos = emitc.cmp gt, %acc, %t0 : (f64, f64) -> i1
  %r = emitc.conditional %pos, %acc, %t0 : f64
  emitc.return %r : f64
}
