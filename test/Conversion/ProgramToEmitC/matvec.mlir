// RUN: scaly-opt %s --scaly-program-to-emitc | scaly-translate --emit-c | FileCheck %s
//
// A float prog.matmul with n == 1 (a matrix times a vector) calls
// scaly_matvec_<T>: four rows summed at once, each in matmul's order (0,
// then + a[i][p] b[p] for p = 0, 1, ...), the rows left over one at a time.
// Integer products and n > 1 keep scaly_matmul_<T>.

// CHECK-LABEL: static void scaly_matvec_f64(const double* __restrict a, const double* __restrict b, double* __restrict c, long long m, long long k) {
// CHECK-NEXT:    long long full = (m / 4) * 4;
// CHECK-NEXT:    for (long long i = 0; i < full; i += 4) {
// CHECK-NEXT:      const double* a0 = a + (i * k);
// CHECK-NEXT:      double s0 = 0.0;
// CHECK-NEXT:      const double* a1 = a0 + k;
// CHECK-NEXT:      double s1 = 0.0;
// CHECK:           for (long long p = 0; p < k; ++p) {
// CHECK-NEXT:        double bp = b[p];
// CHECK-NEXT:        s0 = s0 + (a0[p] * bp);
// CHECK-NEXT:        s1 = s1 + (a1[p] * bp);
// CHECK-NEXT:        s2 = s2 + (a2[p] * bp);
// CHECK-NEXT:        s3 = s3 + (a3[p] * bp);
// CHECK-NEXT:      }
// CHECK-NEXT:      c[i] = s0;
// CHECK-NEXT:      c[i + 1] = s1;
// CHECK:         for (long long i_ = full; i_ < m; ++i_) {
// CHECK-NEXT:      double s = 0.0;
// CHECK-NEXT:      for (long long p_ = 0; p_ < k; ++p_) {
// CHECK-NEXT:        s = s + (a[(i_ * k) + p_] * b[p_]);
// CHECK-NEXT:      }
// CHECK-NEXT:      c[i_] = s;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       static void scaly_matmul_f64(
// CHECK:       static void scaly_matmul_i64(
// CHECK-LABEL: int products(
// CHECK:         scaly_matvec_f64(arg[0], arg[1], res[0], 6, 3);
// CHECK-NEXT:    scaly_matmul_f64(arg[0], arg[2], res[1], 6, 3, 2);
// CHECK-NEXT:    scaly_matmul_i64(arg[3], arg[4], res[2], 2, 2, 1);
prog.proc @products(%a: !prog.ptr<const f64>, %x: !prog.ptr<const f64>, %b: !prog.ptr<const f64>, %i: !prog.ptr<const i64>, %v: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %z: !prog.ptr<f64>, %j: !prog.ptr<i64>, %w: !prog.ptr<f64>) attributes {arg_names = ["a", "x", "b", "i", "v", "y", "z", "j", "w"], input_sizes = array<i64: 18, 3, 6, 4, 2>, output_sizes = array<i64: 6, 12, 2>, entry} {
  prog.matmul %a, %x into %y m 6 k 3 n 1 : !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<f64>
  prog.matmul %a, %b into %z m 6 k 3 n 2 : !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<f64>
  prog.matmul %i, %v into %j m 2 k 2 n 1 : !prog.ptr<const i64>, !prog.ptr<const i64>, !prog.ptr<i64>
  prog.return
}
