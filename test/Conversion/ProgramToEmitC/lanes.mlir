// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
//
// The lane patterns (LanePatterns.cpp; upstream's ArithToEmitC takes
// scalars only): a widened loop's contiguous load through the aligned(8),
// may_alias memory type, a broadcast only + - * / use as the scalar itself,
// another as a splat, a compare of lanes to a mask, a select on a mask a
// bitwise blend, math lane by lane, the store through the memory type; the
// scalar remainder loop by the scalar patterns.

// CHECK: typedef double double4 __attribute__((vector_size(32), aligned(8), may_alias));
// CHECK: typedef double scaly_f64x4 __attribute__((vector_size(32)));
// CHECK: typedef long long scaly_m64x4 __attribute__((vector_size(32)));
// CHECK-LABEL: int waves(
// CHECK:         scaly_f64x4 v0 = scaly_splat_f64x4(0.0);
// CHECK-NEXT:    SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long i = 0; i < 8; i += 4) {
// CHECK-NEXT:      double4 v1 = ((const double4*)(arg[0] + i))[0];
// CHECK-NEXT:      *(double4*)(res[0] + i) = (double4)scaly_select_f64x4(v1 > v0, scaly_sin_f64x4(v1 * 2.0), v0);
// CHECK-NEXT:    }
// CHECK-NEXT:    SCALY_NO_UNROLL
// CHECK-NEXT:    for (long long i_ = 8; i_ < 10; ++i_) {
// CHECK-NEXT:      double v2 = arg[0][i_];
// CHECK-NEXT:      res[0][i_] = (v2 > 0.0) ? sin(v2 * 2.0) : 0.0;
// CHECK-NEXT:    }
// CHECK-NEXT:    return SCALY_SUCCESS;
prog.proc @waves(%arg0: !prog.ptr<const f64>, %arg1: !prog.ptr<f64>, %arg2: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 10>, output_sizes = array<i64: 10>, workspace = 0 : i64} {
  %cst = arith.constant 2.000000e+00 : f64
  %0 = vector.broadcast %cst : f64 to vector<4xf64>
  %cst_0 = arith.constant 0.000000e+00 : f64
  %1 = vector.broadcast %cst_0 : f64 to vector<4xf64>
  %c10_i64 = arith.constant 10 : i64
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c8_i64 = arith.constant 8 : i64
  %c4_i64 = arith.constant 4 : i64
  scf.for %arg3 = %c0_i64 to %c8_i64 step %c4_i64  : i64 {
    %2 = prog.offset %arg0[%arg3] : <const f64> -> <const f64>
    %3 = prog.offset %arg1[%arg3] : <f64> -> <f64>
    %4 = prog.load %2[0] : <const f64> -> vector<4xf64>
    %5 = arith.mulf %4, %0 : vector<4xf64>
    %6 = math.sin %5 : vector<4xf64>
    %7 = arith.cmpf ogt, %4, %1 : vector<4xf64>
    %8 = arith.select %7, %6, %1 : vector<4xi1>, vector<4xf64>
    prog.store %8 to %3[0] : vector<4xf64> into <f64>
  } {scaly.lanes = 4 : i64, scaly.name = "i"}
  %c8_i64_1 = arith.constant 8 : i64
  scf.for %arg3 = %c8_i64_1 to %c10_i64 step %c1_i64  : i64 {
    %2 = prog.offset %arg0[%arg3] : <const f64> -> <const f64>
    %3 = prog.offset %arg1[%arg3] : <f64> -> <f64>
    %4 = prog.load %2[0] : <const f64> -> f64
    %5 = arith.mulf %4, %cst : f64
    %6 = math.sin %5 : f64
    %7 = arith.cmpf ogt, %4, %cst_0 : f64
    %8 = arith.select %7, %6, %cst_0 : f64
    prog.store %8 to %3[0] : f64 into <f64>
  } {scaly.name = "i"}
  prog.return
}
