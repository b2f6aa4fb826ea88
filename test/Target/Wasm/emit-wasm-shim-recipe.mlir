// RUN: not scaly-translate --emit-wasm-shim --lanes=8 %s 2>&1 | FileCheck %s
// RUN: scaly-translate --emit-wasm-shim %s | FileCheck %s --check-prefix=OK
// RUN: scaly-translate --emit-wasm-shim --lanes=2 %s | FileCheck %s --check-prefix=OK
//
// The shim is rendered with scaly.wasm.build's recipes only (lanes 1, 2 or 4, no
// vector math, generic CPU): other recipe options are refused, naming what was given.

// CHECK:     error: --emit-wasm-shim renders as scaly.wasm.build does: --lanes=1, 2 or 4, --vector-libm=none, --recipe-cpu=generic (got --lanes=8, --vector-libm=none, --recipe-cpu=generic)
// CHECK-NOT: export_name

// OK:        __attribute__((export_name("twice__twice__scalar")))

expr.func @twice(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
  %0 = expr.add %x, %x : tensor<f64>
  expr.return %0 : tensor<f64>
}
