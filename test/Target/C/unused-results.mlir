// RUN: scaly-translate --emit-c %s | FileCheck %s
// RUN: scaly-translate --emit-c %s | clang -fsyntax-only -std=c17 -Wall -Wextra -Werror -x c -include math.h -
//
// A value nothing reads prints nothing, except a call: it is still made,
// as a statement of its own, its result dropped (no variable that nothing
// reads, which C compilers would warn about).

// CHECK-LABEL: void drops(double* y, double x) {
// CHECK-NEXT:    sin(x);
// CHECK-NEXT:    twice(x);
// CHECK-NEXT:    y[0] = x;
// CHECK-NEXT:  }
emitc.func @twice(%x: f64) -> f64 attributes {specifiers = ["static", "inline"]} {
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %r = emitc.mul %x, %two : (f64, f64) -> f64
  emitc.return %r : f64
}
emitc.func @drops(%y: !emitc.ptr<f64> {scaly.name = "y"}, %x: f64 {scaly.name = "x"}) {
  %k0 = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %unusedProduct = emitc.mul %x, %x : (f64, f64) -> f64
  %s = emitc.call_opaque "sin"(%x) : (f64) -> f64
  %t = emitc.call @twice(%x) : (f64) -> f64
  %slot = emitc.subscript %y[%k0] : (!emitc.ptr<f64>, i64) -> f64
  emitc.assign %x : f64 to %slot : f64
  emitc.return
}
