// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
// RUN: scaly-opt %s --scaly-program-to-emitc | FileCheck %s --check-prefix=IR
//
// The control-flow patterns (LoopPatterns.cpp): scf.while is Scaly's own
// cdecl.loop (EmitC 19 has no while loop and no break), scf.for Scaly's own
// emitc.for with its counter's name and a carried value as a C variable,
// its bounds numbers of its own (the constants only they read become
// nothing), scf.if without results upstream SCFToEmitC's emitc.if.

// IR-LABEL: emitc.func @f(
// IR-NOT:     emitc.constant{{.*}}4 : i64
// IR:         cdecl.loop {
// IR:           emitc.if
// IR-NEXT:        cdecl.break
// IR:         emitc.for
// IR:         } {scaly.name = "k"}
// IR:         emitc.if
// IR:         } else {

// CHECK-LABEL: static inline void f(const double* x, double* y, double* w) {
// CHECK-NEXT:    (void)w;
// CHECK-NEXT:    y[0] = x[0];
// CHECK-NEXT:    for (;;) {
// CHECK-NEXT:      if (!(y[0] > 0.5)) {
// CHECK-NEXT:        break;
// CHECK-NEXT:      }
// CHECK-NEXT:      y[0] = y[0] * 0.5;
// CHECK-NEXT:    }
// CHECK-NEXT:    double v0 = 0.0;
// CHECK-NEXT:    for (long long k = 0; k < 4; ++k) {
// CHECK-NEXT:      v0 = v0 + x[k];
// CHECK-NEXT:    }
// CHECK-NEXT:    if (v0 < 0.0) {
// CHECK-NEXT:      y[0] = 0.0;
// CHECK-NEXT:    } else {
// CHECK-NEXT:      y[0] = v0;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %lo = arith.constant 0 : i64
  %hi = arith.constant 4 : i64
  %one = arith.constant 1 : i64
  %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
  prog.store %v to %y[0] : f64 into !prog.ptr<f64>
  scf.while : () -> () {
    %c = prog.load %y[0] : !prog.ptr<f64> -> f64
    %big = arith.cmpf ogt, %c, %half : f64
    scf.condition(%big)
  } do {
    %c = prog.load %y[0] : !prog.ptr<f64> -> f64
    %h = arith.mulf %c, %half : f64
    prog.store %h to %y[0] : f64 into !prog.ptr<f64>
    scf.yield
  }
  %s = scf.for %i = %lo to %hi step %one iter_args(%acc = %zero) -> (f64) : i64 {
    %xi = prog.offset %x[%i] : <const f64> -> <const f64>
    %a = prog.load %xi[0] : !prog.ptr<const f64> -> f64
    %t = arith.addf %acc, %a : f64
    scf.yield %t : f64
  } {scaly.name = "k"}
  %neg = arith.cmpf olt, %s, %zero : f64
  scf.if %neg {
    prog.store %zero to %y[0] : f64 into !prog.ptr<f64>
  } else {
    prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  }
  prog.return
}
