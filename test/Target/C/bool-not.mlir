// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// Regression test (was: canonicalized bool ops have no C form).
// `where(c, False, True)` (logical not) lowers to arith.select on i1, which
// the pipeline's canonicalizer rewrites to `arith.xori %c, %true`;
// scaly-program-to-emitc handles no arith.xori/andi/ori and fails with
// "'arith.xori' op has no C form (program-to-emitc)", so a valid expression
// module cannot be emitted. ProgramToEmitC should translate the i1 bitwise
// ops (or the pipeline should not produce them).

// CHECK-LABEL: int negate(
// CHECK:         r[0] = !c[0];
// CHECK:         r[1] = !c[1];

expr.func @negate(%c: tensor<2xi1>) -> tensor<2xi1> attributes {arg_names = ["c"], res_names = ["r"]} {
  %f = expr.constant dense<false> : tensor<2xi1>
  %t = expr.constant dense<true> : tensor<2xi1>
  %0 = expr.select %c, %f, %t : tensor<2xi1>, tensor<2xi1>
  expr.return %0 : tensor<2xi1>
}
