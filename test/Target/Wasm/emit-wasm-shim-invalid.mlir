// RUN: not scaly-translate --emit-wasm-shim --module-name=m %s 2>&1 | FileCheck %s
// RUN: echo "module {}" | not scaly-translate --emit-wasm-shim --module-name=m 2>&1 | FileCheck %s --check-prefix=EMPTY
//
// The shim is printed from rendering expr.func entries: a module of prog
// procedures only (or an empty one) is refused with a message saying so, and
// prints no shim.

// CHECK:       error: --emit-wasm-shim needs an expression module (expr.func entries); the shim is printed from what rendering them yields
// CHECK-NOT:   export_name
// CHECK-NOT:   #include "m.c"

// EMPTY:       error: --emit-wasm-shim needs an expression module (expr.func entries)
// EMPTY-NOT:   export_name

prog.proc @f(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  %one = arith.constant 1.0 : f64
  prog.store %one to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
