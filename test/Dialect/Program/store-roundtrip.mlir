// RUN: scaly-opt %s | scaly-opt | FileCheck %s
//
// Regression test (was: prog.store's custom assembly format cannot be parsed).
// The format `$values `,` $ptr `[` $offset `]` ...` starts with a variadic
// operand list, whose parser takes every comma-separated operand, the pointer
// included, and then expects another ',' at `[`: "expected ','". So the form
// scaly-opt prints for every prog.store (e.g. after --scaly-lower-to-program)
// does not parse back, with one value or several; only the generic form
// "prog.store"(...) <{offset = ...}> parses. Both stores below should
// round-trip.

// CHECK-LABEL: prog.proc @p(
// CHECK:         prog.store %{{.*}} to %{{.*}}[0] : f64 into <f64>
// CHECK:         prog.store %{{.*}}, %{{.*}} to %{{.*}}[1] : f64, f64 into <f64>
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %c = arith.constant 1.0 : f64
  prog.store %c to %y[0] : f64 into !prog.ptr<f64>
  prog.store %c, %c to %y[1] : f64, f64 into !prog.ptr<f64>
  prog.return
}
