// RUN: scaly-opt %s --scaly-plan-placement="scalarize-limit=4" | FileCheck %s
// RUN: scaly-opt %s --scaly-plan-placement="scalarize-limit=4" --scaly-lower-to-program --scaly-parallel-to-loops | FileCheck %s --check-prefix=LOWER
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=C
//
// An expr.fused in the input (written by hand, or planned again after
// scaly-form-fused-ops): scaly-plan-placement places it like any op, and a
// returned one together with its body's value (its own yield is not a
// loop's); the lowering writes that value once into the output. Exported
// whole (the default limit, 64: scalars), it runs the pipeline's own plans
// over it.

// CHECK-LABEL: expr.func @f(
// CHECK:         expr.fused {expr.place = [#expr.place<output 0>]} : tensor<8xf64> {
// CHECK-NEXT:      expr.math{{ +}}sin {{.*}}{expr.place = [#expr.place<workspace>]}
// CHECK-NEXT:      expr.add {{.*}}{expr.place = [#expr.place<output 0>]}
// LOWER-LABEL: prog.proc @f(
// LOWER:         scf.for
// LOWER:           math.sin
// LOWER:           arith.addf
// LOWER:           %[[AT:.*]] = prog.offset %arg1
// LOWER-NEXT:      prog.store {{.*}} to %[[AT]]
// LOWER-NOT:     scf.for
// LOWER:         prog.return
// C-LABEL: int f(const double** arg, double** res
// C:         (double8){sin(arg[0][0]) + 1.0, sin(arg[0][1]) + 1.0,
expr.func @f(%x: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %one = expr.constant dense<1.0> : tensor<8xf64>
  %f = expr.fused : tensor<8xf64> {
    %s = expr.math sin %x : tensor<8xf64>
    %a = expr.add %s, %one : tensor<8xf64>
    expr.yield %a : tensor<8xf64>
  }
  expr.return %f : tensor<8xf64>
}
