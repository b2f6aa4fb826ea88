// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// Regression test (was: the C printer moves a read past a write).
// CPrinter::inlined prints a single-use emitc.subscript (a prog.load) at
// its use instead of where it is, without checking for stores in between.
// Here y[0] is read after storing 1.0 and before storing 2.0, so z[0] must
// be -1.0; the printed C reads y[0] after the second store:
//   res[0][0] = 1.0;  res[0][0] = 2.0;  res[1][0] = -res[0][0];   (z = -2.0)
// A read must be materialized (named) when a store or call may write memory
// between it and its use.

// CHECK-LABEL: int order(
// CHECK:         res[0][0] = 1.0;
// CHECK-NEXT:    double [[OLD:v[0-9]+]] = res[0][0];
// CHECK-NEXT:    res[0][0] = 2.0;
// CHECK-NEXT:    res[1][0] = -[[OLD]];

prog.proc @order(%y: !prog.ptr<f64>, %z: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "z", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1, 1>, entry} {
  %c = arith.constant 1.0 : f64
  "prog.store"(%c, %y) <{offset = 0 : i64}> : (f64, !prog.ptr<f64>) -> ()
  %old = prog.load %y[0] : !prog.ptr<f64> -> f64
  %two = arith.constant 2.0 : f64
  "prog.store"(%two, %y) <{offset = 0 : i64}> : (f64, !prog.ptr<f64>) -> ()
  %n = arith.negf %old : f64
  "prog.store"(%n, %z) <{offset = 0 : i64}> : (f64, !prog.ptr<f64>) -> ()
  prog.return
}
