// RUN: scaly-opt %s --scaly-plan-workspace --scaly-plan-workspace | FileCheck %s
//
// Regression test (was: scaly-plan-workspace is not idempotent).
// A second run skips the windows that already have offsets (so `own` stays
// 0) and the calls whose workspace operand is no longer w (so the callee
// need stays 0), then overwrites `workspace` with 0 + 0: every procedure's
// workspace drops to 0 while its windows still use w. The entry then
// reports SZ_W 0, prints "(void)w;" instead of the NULL check and writes
// through w anyway. The same accounting makes pre-planned windows invisible
// (a new unplanned window is placed at 0, overlapping them). Planned windows
// and already-planned callee windows should count toward `workspace`.

// CHECK-LABEL: prog.proc @leaf_raw(
// CHECK-SAME:    workspace = 64 : i64
// CHECK-LABEL: prog.proc @main(
// CHECK-SAME:    workspace = 128 : i64
// CHECK-NEXT:    prog.window %{{.*}} size 2 {offset = 0 : i64}
// CHECK-NEXT:    %[[CW:.*]] = prog.window %{{.*}} size 8 {offset = 64 : i64}
// CHECK-NEXT:    prog.call @leaf_raw(%{{.*}}, %[[CW]])
prog.proc @leaf_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %a = prog.window %w size 1 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.return
}
prog.proc @main(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  %a = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.call @leaf_raw(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}
