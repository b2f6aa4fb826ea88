// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// A reduction helper reads memory through its pointer argument: its call is
// printed where it happens when the buffer is written before the value is
// used, never moved past the write.

// CHECK:      w[1] = 2.0;
// CHECK-NEXT: double v0 = scaly_sum_f64(w, 2, 1);
// CHECK-NEXT: w[0] = 5.0;
// CHECK-NEXT: res[0][0] = v0;
prog.proc @f(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry, workspace = 64 : i64} {
  %a = prog.window %w size 2 {offset = 0 : i64} : !prog.ptr<f64> -> !prog.ptr<f64>
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %five = arith.constant 5.0 : f64
  prog.store %one to %a[0] : f64 into !prog.ptr<f64>
  prog.store %two to %a[1] : f64 into !prog.ptr<f64>
  %s = prog.reduce "sum" %a count 2 stride 1 : !prog.ptr<f64> -> f64
  prog.store %five to %a[0] : f64 into !prog.ptr<f64>
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
