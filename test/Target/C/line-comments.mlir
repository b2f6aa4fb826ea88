// RUN: scaly-translate --emit-c --line-comments %s | FileCheck %s
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=PLAIN
//
// --line-comments puts each statement's source lines (the locations of the ops
// it prints, inlined operands included) in a comment above it: the file's base
// name, its lines with runs collapsed, files apart by "; ". A statement whose
// lines are the previous comment's gets none; ops without a file location (the
// entry's checks) get none; a loop writing a result comes from the op that made
// it. Without the option the C has no such comments.

// CHECK-LABEL: int wave(
// CHECK:         if (!res[0]) return SCALY_ERR_NULL_RESULT;
// CHECK-NEXT:    /* model.py:12 */
// CHECK-NEXT:    double [[S:v[0-9]+]] = {{.*}}arg[0][99];
// CHECK-NEXT:    /* model.py:13 */
// CHECK-NEXT:    SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long i = 0; i < 100; ++i) {
// CHECK-NEXT:      /* model.py:10-11, 13; shared.py:4 */
// CHECK-NEXT:      res[0][i] = exp((sin(arg[0][i]) * arg[1][0]) + [[S]]) * 2.0;
// CHECK-NEXT:    }
// CHECK-NEXT:    return SCALY_SUCCESS;

// PLAIN-NOT: model.py
// PLAIN-NOT: shared.py

expr.func @wave(%t: tensor<100xf64>, %a: tensor<f64>) -> tensor<100xf64> attributes {arg_names = ["t", "a"], res_names = ["y"]} {
  %s = expr.math sin %t : tensor<100xf64> loc("/home/user/model.py":10:0)
  %b = expr.broadcast %a : tensor<f64> to tensor<100xf64> loc("/home/user/model.py":11:0)
  %m = expr.mul %s, %b : tensor<100xf64> loc("/home/user/model.py":11:0)
  %sum = expr.sum %t : tensor<100xf64> to tensor<f64> loc("/home/user/model.py":12:0)
  %sb = expr.broadcast %sum : tensor<f64> to tensor<100xf64> loc("/home/user/model.py":13:0)
  %e0 = expr.add %m, %sb : tensor<100xf64> loc(callsite("/home/user/shared.py":4:0 at "/home/user/model.py":13:0))
  %e = expr.math exp %e0 : tensor<100xf64> loc("/home/user/model.py":13:0)
  %c = expr.constant dense<2.0> : tensor<100xf64> loc(unknown)
  %r = expr.mul %e, %c : tensor<100xf64> loc("/home/user/model.py":13:0)
  expr.return %r : tensor<100xf64> loc(unknown)
} loc(unknown)
