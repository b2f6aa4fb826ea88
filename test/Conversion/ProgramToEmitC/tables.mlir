// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
// RUN: scaly-opt %s --scaly-program-to-emitc --mlir-disable-threading | scaly-translate --emit-c | FileCheck %s
//
// Constant tables are named in order of first use, procedure by procedure
// and op by op (the survey walk names them before the procedures convert,
// in parallel on a threaded context): the same names with and without
// threads. A table two procedures read is one table.

// CHECK:       static const double scaly_table_0[2] = {
// CHECK-NEXT:    1.5, 2.5
// CHECK:       static const double scaly_table_1[2] = {
// CHECK-NEXT:    3.5, 4.5
// CHECK:       static const int64_t scaly_table_2[2] = {
// CHECK-NEXT:    7, 8
// CHECK-NOT:   scaly_table_3
// CHECK-LABEL: static inline void first_raw(
// CHECK:         y[0] = ((double*)scaly_table_0)[1] + ((double*)scaly_table_1)[0];
// CHECK-LABEL: static inline void second_raw(
// CHECK:         y[0] = ((double*)scaly_table_1)[1] * ((double)((int64_t*)scaly_table_2)[0]);
// CHECK-LABEL: int entry(
prog.proc @first_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %a = prog.table dense<[1.5, 2.5]> : tensor<2xf64> : !prog.ptr<const f64>
  %b = prog.table dense<[3.5, 4.5]> : tensor<2xf64> : !prog.ptr<const f64>
  %x = prog.load %a[1] : <const f64> -> f64
  %z = prog.load %b[0] : <const f64> -> f64
  %s = arith.addf %x, %z : f64
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @second_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %b = prog.table dense<[3.5, 4.5]> : tensor<2xf64> : !prog.ptr<const f64>
  %i = prog.table dense<[7, 8]> : tensor<2xi64> : !prog.ptr<const i64>
  %x = prog.load %b[1] : <const f64> -> f64
  %k = prog.load %i[0] : <const i64> -> i64
  %f = arith.sitofp %k : i64 to f64
  %s = arith.mulf %x, %f : f64
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @entry(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  prog.call @first_raw(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.call @second_raw(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}
