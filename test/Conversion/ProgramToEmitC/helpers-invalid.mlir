// RUN: scaly-opt %s -scaly-program-to-emitc -verify-diagnostics
//
// The module's C helpers are functions of the module: a procedure named like
// one it needs (scaly_ names are the module's own; entry names are refused
// earlier) is an error, not a second definition.

// expected-error @+1 {{'prog.proc' op is named scaly_sum_f64, the name of the module's C helper for its reductions or matrix products}}
prog.proc @scaly_sum_f64(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  %s = prog.reduce "sum" %x count 4 stride 1 : !prog.ptr<const f64> -> f64
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
