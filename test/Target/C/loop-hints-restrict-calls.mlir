// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// What the module's C helpers (ProgramToEmitC/HelperFunctions.cpp) need of
// the printer, on any emitc.func:
// - Clang's loop hints before an emitc.for, a cdecl.pragma in a
//   cdecl.if_defined "__clang__": `#pragma clang loop <options>` under
//   `#if defined(__clang__)` right before the loop, preprocessor lines at
//   the margin whatever the loop's depth;
// - `scaly.restrict` on a pointer argument: `T* __restrict name`;
// - an emitc.call with a result is an expression, printed where its value
//   is used once (two calls in one sum), named when used more often;
// - emitc.logical_or is `||`; a returned expression loses its outer
//   parentheses.

// CHECK-LABEL: static double half(const double* x, long long n) {
// CHECK-NEXT:    double r = 0.0;
// CHECK-NEXT:    if (n > 1) {
// CHECK-NEXT:  #if defined(__clang__)
// CHECK-NEXT:  #pragma clang loop vectorize(disable) unroll(disable)
// CHECK-NEXT:  #endif
// CHECK-NEXT:      for (long long i = 0; i < n; ++i) {
// CHECK-NEXT:        r = r + x[i];
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK-NEXT:      r = half(x, n - 1) + half(x + 1, n - 1);
// CHECK-NEXT:    }
// CHECK-NEXT:    double v0 = half(x, n);
// CHECK-NEXT:    if ((v0 > r) || (v0 != v0)) {
// CHECK-NEXT:      r = v0;
// CHECK-NEXT:    }
// CHECK-NEXT:    return r * 2.0;
// CHECK-NEXT:  }
// CHECK-LABEL: static void scale(const double* __restrict a, double* __restrict c, long long n) {
// CHECK-NEXT:    for (long long i = 0; i < n; ++i) {
// CHECK-NEXT:      c[i] = a[i] * 2.0;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
!ll = !emitc.opaque<"long long">
emitc.func @half(%x: !emitc.ptr<f64> {scaly.name = "x", scaly.const}, %n: !ll {scaly.name = "n"}) -> f64 attributes {specifiers = ["static"]} {
  %zero = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !ll
  %one = "emitc.constant"() <{value = #emitc.opaque<"1">}> : () -> !ll
  %r = "emitc.variable"() <{value = 0.0 : f64}> {scaly.name = "r"} : () -> f64
  %more = emitc.cmp gt, %n, %one : (!ll, !ll) -> i1
  emitc.if %more {
    cdecl.if_defined "__clang__" {
      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
    }
    emitc.for %i = %zero to %n step %one : !ll {
      %xi = emitc.subscript %x[%i] : (!emitc.ptr<f64>, !ll) -> f64
      %s = emitc.add %r, %xi : (f64, f64) -> f64
      emitc.assign %s : f64 to %r : f64
    } {scaly.name = "i"}
  } else {
    %m = emitc.sub %n, %one : (!ll, !ll) -> !ll
    %a = emitc.call @half(%x, %m) : (!emitc.ptr<f64>, !ll) -> f64
    %x1 = emitc.add %x, %one : (!emitc.ptr<f64>, !ll) -> !emitc.ptr<f64>
    %m2 = emitc.sub %n, %one : (!ll, !ll) -> !ll
    %b = emitc.call @half(%x1, %m2) : (!emitc.ptr<f64>, !ll) -> f64
    %ab = emitc.add %a, %b : (f64, f64) -> f64
    emitc.assign %ab : f64 to %r : f64
  }
  %v = emitc.call @half(%x, %n) : (!emitc.ptr<f64>, !ll) -> f64
  %gt = emitc.cmp gt, %v, %r : (f64, f64) -> i1
  %nan = emitc.cmp ne, %v, %v : (f64, f64) -> i1
  %either = emitc.logical_or %gt, %nan : i1, i1
  emitc.if %either {
    emitc.assign %v : f64 to %r : f64
  }
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %twice = emitc.mul %r, %two : (f64, f64) -> f64
  emitc.return %twice : f64
}
emitc.func @scale(%a: !emitc.ptr<f64> {scaly.name = "a", scaly.const, scaly.restrict}, %c: !emitc.ptr<f64> {scaly.name = "c", scaly.restrict}, %n: !ll {scaly.name = "n"}) attributes {specifiers = ["static"]} {
  %zero = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !ll
  %one = "emitc.constant"() <{value = #emitc.opaque<"1">}> : () -> !ll
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  emitc.for %i = %zero to %n step %one : !ll {
    %ai = emitc.subscript %a[%i] : (!emitc.ptr<f64>, !ll) -> f64
    %p = emitc.mul %ai, %two : (f64, f64) -> f64
    %ci = emitc.subscript %c[%i] : (!emitc.ptr<f64>, !ll) -> f64
    emitc.assign %p : f64 to %ci : f64
  } {scaly.name = "i"}
  emitc.return
}
