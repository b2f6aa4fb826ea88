// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// Large arrays in C: a 1000-element elementwise chain with broadcast
// constants is one loop with the whole expression inside, and a large sum
// calls the module's pairwise helper scaly_sum_f64 (NumPy's blocking) once.

// CHECK:       static double scaly_pairwise_f64(const double* x, long long n, long long s) {
// CHECK:       static double scaly_sum_f64(const double* x, long long n, long long s) {
// CHECK:         for (long long k = 0; k < n; k += 8192) {
// CHECK-NEXT:      r = r + scaly_pairwise_f64(x + (k * s), ((n - k) < 8192) ? (n - k) : 8192, s);
// CHECK-LABEL: int chain(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK:         for (long long i = 0; i < 1000; ++i) {
// CHECK-NEXT:      res[0][i] = sin(arg[0][i] * 2.0) + 2.0;
// CHECK-NEXT:    }
// CHECK-NOT:     for (
// CHECK:         res[1][0] = scaly_sum_f64(arg[0], 1000, 1);
// CHECK-NOT:     for (
// CHECK:         return SCALY_SUCCESS;
expr.func @chain(%x: tensor<1000xf64>) -> (tensor<1000xf64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["y", "s"]} {
  %c = expr.constant dense<2.0> : tensor<f64>
  %b = expr.broadcast %c : tensor<f64> to tensor<1000xf64>
  %0 = expr.mul %b, %x : tensor<1000xf64>
  %1 = expr.math sin %0 : tensor<1000xf64>
  %2 = expr.add %1, %b : tensor<1000xf64>
  %3 = expr.reduce sum %x axes [0] : tensor<1000xf64> to tensor<f64>
  expr.return %2, %3 : tensor<1000xf64>, tensor<f64>
}
