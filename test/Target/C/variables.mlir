// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// emitc.variable (an scf.for's carried value, see ProgramToEmitC/Loops.h):
// a variable whose next statement assigns it is declared with that value
// (`T v = value;`, the assignment not printed again); otherwise it is
// declared with its constant, or without initializer. A later assignment
// prints as `v = value;`. An assignment to a variable writes no memory, so
// a read of a buffer is still printed where it is used, past it.

// CHECK-LABEL: static inline void vars(const double* x, double* y) {
// CHECK-NEXT:    double v0 = x[0] * 2.0;
// CHECK-NEXT:    int64_t n = 3;
// CHECK-NEXT:    double v1;
// CHECK-NEXT:    for (long long i = 0; i < 4; ++i) {
// CHECK-NEXT:      v1 = v0;
// CHECK-NEXT:      v0 = v0 + y[i];
// CHECK-NEXT:    }
// CHECK-NEXT:    y[0] = v1;
// CHECK-NEXT:    y[1] = (double)n;
// CHECK-NEXT:  }
emitc.func @vars(%x: !emitc.ptr<f64> {scaly.name = "x", scaly.const}, %y: !emitc.ptr<f64> {scaly.name = "y"}) attributes {specifiers = ["static", "inline"]} {
  %k0 = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %k1 = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %k4 = "emitc.constant"() <{value = 4 : i64}> : () -> i64
  %two = "emitc.constant"() <{value = 2.0 : f64}> : () -> f64
  %x0 = emitc.subscript %x[%k0] : (!emitc.ptr<f64>, i64) -> f64
  %init = emitc.mul %x0, %two : (f64, f64) -> f64
  %s = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
  emitc.assign %init : f64 to %s : f64
  %n = "emitc.variable"() <{value = 3 : i64}> {scaly.name = "n"} : () -> i64
  %last = "emitc.variable"() <{value = #emitc.opaque<"">}> : () -> f64
  emitc.for %i = %k0 to %k4 step %k1 : i64 {
    %yi = emitc.subscript %y[%i] : (!emitc.ptr<f64>, i64) -> f64
    %next = emitc.add %s, %yi : (f64, f64) -> f64
    emitc.assign %s : f64 to %last : f64
    emitc.assign %next : f64 to %s : f64
  } {scaly.name = "i"}
  %y0 = emitc.subscript %y[%k0] : (!emitc.ptr<f64>, i64) -> f64
  emitc.assign %last : f64 to %y0 : f64
  %y1 = emitc.subscript %y[%k1] : (!emitc.ptr<f64>, i64) -> f64
  %nf = emitc.cast %n : i64 to f64
  emitc.assign %nf : f64 to %y1 : f64
  emitc.return
}
