// RUN: scaly-translate --emit-c %s | FileCheck %s --match-full-lines
//
// The cdecl statements print inside a function: cdecl.return_if as one
// line `if (c1 || c2) return v;` (a negation or comparison without its own
// parentheses, any other condition parenthesized), without a value in a
// void function; cdecl.loop as `for (;;) { ... }` with its body indented,
// cdecl.break as `break;`. A read before the loop is not moved into it (the
// loop may write anything).

// CHECK:      int entry(double** arg, double* w, int n, int* flags) {
// CHECK-NEXT:   if (!arg || !w) return SCALY_ERR_NULL_ABI;
// CHECK-NEXT:   if (n < 0 || (flags[0] && flags[1])) return SCALY_ERR_FLAGS;
// CHECK-NEXT:   double v0 = w[0];
// CHECK-NEXT:   for (;;) {
// CHECK-NEXT:     if (!(w[1] > 1.0)) {
// CHECK-NEXT:       break;
// CHECK-NEXT:     }
// CHECK-NEXT:     w[1] = w[1] * v0;
// CHECK-NEXT:   }
// CHECK-NEXT:   return SCALY_SUCCESS;
// CHECK-NEXT: }
// CHECK-NEXT: void check(double* p) {
// CHECK-NEXT:   if (!p) return;
// CHECK-NEXT: }
emitc.func @entry(%arg: !emitc.ptr<!emitc.ptr<f64>> {scaly.name = "arg"},
                  %w: !emitc.ptr<f64> {scaly.name = "w"}, %n: !emitc.opaque<"int"> {scaly.name = "n"},
                  %flags: !emitc.ptr<!emitc.opaque<"int">> {scaly.name = "flags"}) -> !emitc.opaque<"int"> {
  %a = emitc.logical_not %arg : !emitc.ptr<!emitc.ptr<f64>>
  %b = emitc.logical_not %w : !emitc.ptr<f64>
  %abi = emitc.literal "SCALY_ERR_NULL_ABI" : !emitc.opaque<"int">
  cdecl.return_if %a, %b -> %abi : !emitc.opaque<"int">
  %zero = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !emitc.opaque<"int">
  %negative = emitc.cmp lt, %n, %zero : (!emitc.opaque<"int">, !emitc.opaque<"int">) -> i1
  %k0 = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %k1 = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %f0 = emitc.subscript %flags[%k0] : (!emitc.ptr<!emitc.opaque<"int">>, i64) -> !emitc.opaque<"int">
  %f1 = emitc.subscript %flags[%k1] : (!emitc.ptr<!emitc.opaque<"int">>, i64) -> !emitc.opaque<"int">
  %both = emitc.logical_and %f0, %f1 : !emitc.opaque<"int">, !emitc.opaque<"int">
  %bad = emitc.literal "SCALY_ERR_FLAGS" : !emitc.opaque<"int">
  cdecl.return_if %negative, %both -> %bad : !emitc.opaque<"int">
  %factor = emitc.subscript %w[%k0] : (!emitc.ptr<f64>, i64) -> f64
  cdecl.loop {
    %one = "emitc.constant"() <{value = 1.0 : f64}> : () -> f64
    %i1 = "emitc.constant"() <{value = 1 : i64}> : () -> i64
    %cur = emitc.subscript %w[%i1] : (!emitc.ptr<f64>, i64) -> f64
    %big = emitc.cmp gt, %cur, %one : (f64, f64) -> i1
    %stop = emitc.logical_not %big : i1
    emitc.if %stop {
      cdecl.break
    }
    %again = emitc.subscript %w[%i1] : (!emitc.ptr<f64>, i64) -> f64
    %next = emitc.mul %again, %factor : (f64, f64) -> f64
    %slot = emitc.subscript %w[%i1] : (!emitc.ptr<f64>, i64) -> f64
    emitc.assign %next : f64 to %slot : f64
  }
  %ok = emitc.literal "SCALY_SUCCESS" : !emitc.opaque<"int">
  emitc.return %ok : !emitc.opaque<"int">
}

emitc.func @check(%p: !emitc.ptr<f64> {scaly.name = "p"}) {
  %a = emitc.logical_not %p : !emitc.ptr<f64>
  cdecl.return_if %a
  emitc.return
}
