// RUN: not scaly-opt %s --scaly-split-long-procs="max-ops=0" 2>&1 | FileCheck %s
// CHECK: scaly-split-long-procs: max-ops must be at least 1, got 0
prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  prog.return
}
