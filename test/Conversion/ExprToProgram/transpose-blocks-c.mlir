// RUN: scaly-opt %s --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-plan-loop-orders="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program="entry=tplus" --scaly-tile-copies --scaly-parallel-to-loops | scaly-translate --emit-c | FileCheck %s
//
// In C, a register block of a transposed copy (transpose-blocks.mlir) reads
// its 16 elements into named variables, then stores each block row as one
// vector of four consecutive values.

// CHECK-LABEL: int tplus(
// CHECK:         for (long long i = 0; i < 4; i += 4) {
// CHECK:           for (long long j = 0; j < 8; j += 4) {
// CHECK:             double b00 = arg[0][
// CHECK:             double b33 = arg[0][
// CHECK-NEXT:        *(double4*)(res[0] + {{.*}}) = (double4){b00, b01, b02, b03};
// CHECK-NEXT:        *(double4*)(res[0] + {{.*}}) = (double4){b10, b11, b12, b13};
expr.func @tplus(%x: tensor<10x6xf64>) -> tensor<6x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x6xf64> to tensor<6x10xf64>
  %c = expr.constant dense<1.0> : tensor<6x10xf64>
  %0 = expr.add %t, %c : tensor<6x10xf64>
  expr.return %0 : tensor<6x10xf64>
}
