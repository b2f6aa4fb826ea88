// RUN: scaly-opt %s --scaly-program-to-emitc | FileCheck %s
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=C
//
// prog.reduce and prog.matmul call the module's C helpers, each a static
// emitc.func of EmitC ops (HelperFunctions.cpp), defined before the
// procedures in the order first used across them (a float sum's pairwise
// sum first), once each. The pairwise sum calls itself with emitc.call, its
// short loops follow Clang's loop hints (a cdecl.pragma under
// cdecl.if_defined "__clang__", right before each loop); integer sums and
// products wrap around in the unsigned type; max and min of floats
// propagate NaN (v != v); the matrix product's pointers are restrict.

// CHECK:       cdecl.extern_c {
// CHECK-NEXT:  emitc.verbatim ""
// CHECK-NEXT:  emitc.func @scaly_max_f32(%{{.*}}: !emitc.ptr<f32> {scaly.const, scaly.name = "x"}, %{{.*}}: !emitc.opaque<"long long"> {scaly.name = "n"}, %{{.*}}: !emitc.opaque<"long long"> {scaly.name = "s"}) -> f32 attributes {specifiers = ["static"]}
// CHECK:         emitc.logical_or
// CHECK:         emitc.return %{{.*}} : f32
// CHECK:       emitc.verbatim ""
// CHECK-NEXT:  emitc.func @scaly_pairwise_f64(
// CHECK:         emitc.call @scaly_pairwise_f64(
// CHECK:         emitc.call @scaly_pairwise_f64(
// CHECK:         cdecl.if_defined "__clang__" {
// CHECK-NEXT:      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
// CHECK-NEXT:    }
// CHECK-NEXT:    emitc.for
// CHECK:         } {scaly.name = "i"}
// CHECK:         cdecl.if_defined "__clang__" {
// CHECK-NEXT:      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
// CHECK-NEXT:    }
// CHECK-NEXT:    emitc.for
// CHECK:         } {scaly.name = "j"}
// CHECK:         cdecl.if_defined "__clang__" {
// CHECK-NEXT:      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
// CHECK-NEXT:    }
// CHECK-NEXT:    emitc.for
// CHECK:         } {scaly.name = "k"}
// CHECK:       emitc.func @scaly_sum_f64(
// CHECK:         emitc.call @scaly_pairwise_f64(
// CHECK:       emitc.func @scaly_sum_i32(
// CHECK:         emitc.cast %{{.*}} : i32 to ui32
// CHECK:         emitc.add %{{.*}}, %{{.*}} : (ui32, ui32) -> ui32
// CHECK:         emitc.cast %{{.*}} : ui32 to i32
// CHECK:       emitc.func @scaly_matmul_i64({{.*}}scaly.restrict{{.*}}) attributes {specifiers = ["static"]}
// CHECK-NOT:   emitc.func @scaly_
// CHECK-NOT:   emitc.verbatim "{{.*}}scaly_
// CHECK:       emitc.func @first_raw(
// CHECK:         emitc.call_opaque "scaly_max_f32"
// CHECK:         emitc.call_opaque "scaly_sum_f64"
// CHECK:       emitc.func @second_raw(
// CHECK:         emitc.call_opaque "scaly_sum_f64"
// CHECK:         emitc.call_opaque "scaly_sum_i32"
// CHECK:         emitc.call_opaque "scaly_matmul_i64"

// C-LABEL: static float scaly_max_f32(const float* x, long long n, long long s) {
// C-NEXT:    float r = x[0];
// C-NEXT:    for (long long i = 1; i < n; ++i) {
// C-NEXT:      float v = x[i * s];
// C-NEXT:      if ((v > r) || (v != v)) {
// C-NEXT:        r = v;
// C-NEXT:      }
// C-NEXT:    }
// C-NEXT:    return r;
// C-NEXT:  }
// C-EMPTY:
// C-NEXT:  static double scaly_pairwise_f64(const double* x, long long n, long long s) {
// C-NEXT:    double r = 0.0;
// C-NEXT:    if (n > 128) {
// C-NEXT:      long long n2 = n / 2;
// C-NEXT:      n2 = n2 - (n2 % 8);
// C-NEXT:      r = scaly_pairwise_f64(x, n2, s) + scaly_pairwise_f64(x + (n2 * s), n - n2, s);
// C-NEXT:    } else {
// C-NEXT:      if (n < 8) {
// C-NEXT:  #if defined(__clang__)
// C-NEXT:  #pragma clang loop vectorize(disable) unroll(disable)
// C-NEXT:  #endif
// C-NEXT:        for (long long i = 0; i < n; ++i) {
// C-NEXT:          r = r + x[i * s];
// C-NEXT:        }
// C-NEXT:      } else {
// C-NEXT:        double r0 = x[0];
// C-NEXT:        double r1 = x[1 * s];
// C:             double r7 = x[7 * s];
// C-NEXT:  #if defined(__clang__)
// C-NEXT:  #pragma clang loop vectorize(disable) unroll(disable)
// C-NEXT:  #endif
// C-NEXT:        for (long long j = 8; j < (n - (n % 8)); j += 8) {
// C-NEXT:          const double* p = x + (j * s);
// C-NEXT:          r0 = r0 + p[0];
// C:               r7 = r7 + p[7 * s];
// C-NEXT:        }
// C-NEXT:        r = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));
// C-NEXT:  #if defined(__clang__)
// C-NEXT:  #pragma clang loop vectorize(disable) unroll(disable)
// C-NEXT:  #endif
// C-NEXT:        for (long long k = (n - (n % 8)); k < n; ++k) {
// C-NEXT:          r = r + x[k * s];
// C-NEXT:        }
// C-NEXT:      }
// C-NEXT:    }
// C-NEXT:    return r;
// C-NEXT:  }
// C-EMPTY:
// C-NEXT:  static double scaly_sum_f64(const double* x, long long n, long long s) {
// C-NEXT:    double r = 0.0;
// C-NEXT:    for (long long k = 0; k < n; k += 8192) {
// C-NEXT:      r = r + scaly_pairwise_f64(x + (k * s), ((n - k) < 8192) ? (n - k) : 8192, s);
// C-NEXT:    }
// C-NEXT:    return r;
// C-NEXT:  }
// C-EMPTY:
// C-NEXT:  static int32_t scaly_sum_i32(const int32_t* x, long long n, long long s) {
// C-NEXT:    uint32_t r = 0;
// C-NEXT:    for (long long i = 0; i < n; ++i) {
// C-NEXT:      r = r + (uint32_t)x[i * s];
// C-NEXT:    }
// C-NEXT:    return (int32_t)r;
// C-NEXT:  }
// C-EMPTY:
// C-NEXT:  static void scaly_matmul_i64(const int64_t* __restrict a, const int64_t* __restrict b, int64_t* __restrict c, long long m, long long k, long long n) {
// C-NEXT:    for (long long i = 0; i < m; ++i) {
// C-NEXT:      int64_t* ci = c + (i * n);
// C-NEXT:      for (long long j = 0; j < n; ++j) {
// C-NEXT:        ci[j] = 0;
// C-NEXT:      }
// C-NEXT:      for (long long p = 0; p < k; ++p) {
// C-NEXT:        int64_t aip = a[(i * k) + p];
// C-NEXT:        const int64_t* bp = b + (p * n);
// C-NEXT:        for (long long q = 0; q < n; ++q) {
// C-NEXT:          ci[q] = (int64_t)((uint64_t)ci[q] + ((uint64_t)aip * (uint64_t)bp[q]));
// C-NEXT:        }
// C-NEXT:      }
// C-NEXT:    }
// C-NEXT:  }
// C-EMPTY:
// C-NEXT:  static inline void first_raw(
prog.proc @first_raw(%x: !prog.ptr<const f64>, %f: !prog.ptr<const f32>, %y: !prog.ptr<f64>, %z: !prog.ptr<f32>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "f", "y", "z", "w"], input_sizes = array<i64: 300, 4>, output_sizes = array<i64: 1, 1>} {
  %m = prog.reduce "max" %f count 4 stride 1 : !prog.ptr<const f32> -> f32
  prog.store %m to %z[0] : f32 into !prog.ptr<f32>
  %s = prog.reduce "sum" %x count 300 stride 1 : !prog.ptr<const f64> -> f64
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}
prog.proc @second_raw(%x: !prog.ptr<const f64>, %i: !prog.ptr<const i32>, %a: !prog.ptr<const i64>, %y: !prog.ptr<f64>, %j: !prog.ptr<i32>, %c: !prog.ptr<i64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "i", "a", "y", "j", "c", "w"], input_sizes = array<i64: 300, 6, 4>, output_sizes = array<i64: 1, 1, 4>} {
  %s = prog.reduce "sum" %x count 100 stride 3 : !prog.ptr<const f64> -> f64
  prog.store %s to %y[0] : f64 into !prog.ptr<f64>
  %t = prog.reduce "sum" %i count 6 stride 1 : !prog.ptr<const i32> -> i32
  prog.store %t to %j[0] : i32 into !prog.ptr<i32>
  prog.matmul %a, %a into %c m 2 k 2 n 2 : !prog.ptr<const i64>, !prog.ptr<const i64>, !prog.ptr<i64>
  prog.return
}
