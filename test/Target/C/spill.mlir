// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// A loop over a computed array spills it to a workspace window planned at
// w; the entry then needs workspace (3 doubles padded to 64 bytes), checks
// w for NULL instead of "(void)w;", writes the spill at w and the loop
// reads it back.

// CHECK-LABEL: int squares(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK:         if (!w) return SCALY_ERR_NULL_WORK;
// CHECK-NOT:     (void)w;
// CHECK:         *(double2*)(w) =
// CHECK:         for (long long [[I:.*]] = 0; [[I]] < 3; ++[[I]]) {
// CHECK:           sin(w[[[I]]])
// CHECK:         return SCALY_SUCCESS;

expr.func @squares(%x: tensor<3xf64>) -> tensor<3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.mul %x, %x : tensor<3xf64>
  %1 = expr.loop 3 (%0) : (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%e: tensor<f64>):
    %s = expr.math sin %e : tensor<f64>
    expr.yield %s : tensor<f64>
  }
  expr.return %1 : tensor<3xf64>
}
