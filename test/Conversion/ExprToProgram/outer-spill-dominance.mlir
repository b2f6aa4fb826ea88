// RUN: scaly-opt %s --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// Regression test (was: a value from outside a loop spilled inside it).
// ProcLowering::inMemory spills a scalarized value at the current insertion
// point and then replaces its `values` entry with the window pointer. When
// the use that needs memory is inside a loop body (here the inner loop over
// %k, computed before the outer loop), the window and its store are created
// inside the outer scf.for (re-spilled every iteration), and every later use
// of %k after the loop loads from a window defined in the loop body:
// "operand #0 does not dominate this use". Outer values should be spilled
// where they are defined (before the loop), or the entry not replaced.

// CHECK-LABEL: prog.proc @main(
// CHECK:         %[[WIN:.*]] = prog.window
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:         prog.load %[[WIN]][0]
expr.func @main(%x: tensor<2xf64>, %y: tensor<3xf64>) -> (tensor<3x2xf64>, tensor<2xf64>) attributes {arg_names = ["x", "y"], res_names = ["a", "b"]} {
  %k = expr.mul %x, %x : tensor<2xf64>
  %0 = expr.loop 3 (%y) : (tensor<3xf64>) -> tensor<3x2xf64> {
  ^bb0(%e: tensor<f64>):
    %1 = expr.loop 2 (%k) : (tensor<2xf64>) -> tensor<2xf64> {
    ^bb1(%ki: tensor<f64>):
      %2 = expr.add %ki, %e : tensor<f64>
      expr.yield %2 : tensor<f64>
    }
    expr.yield %1 : tensor<2xf64>
  }
  %after = expr.add %k, %k : tensor<2xf64>
  expr.return %0, %after : tensor<3x2xf64>, tensor<2xf64>
}
