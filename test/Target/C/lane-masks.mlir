// RUN: scaly-translate --emit-c --lanes=4 %s | FileCheck %s
// RUN: scaly-translate --emit-c --lanes=auto %s | FileCheck %s --check-prefix=AUTO
//
// A product exact with zeros (the compressed sweeps of derivatives) and a
// where() in a widened loop: the compares give lane masks (GNU C vector
// comparisons), and the choice is a bitwise blend through the mask (C has no
// ?: on vector conditions). The remainder iterations stay scalar.

// CHECK:       typedef double scaly_f64x4 __attribute__((vector_size(32)));
// CHECK:       typedef long long scaly_m64x4 __attribute__((vector_size(32)));
// CHECK:       #define scaly_select_f64x4(m, a, b) \
// CHECK-NEXT:    ((scaly_f64x4)(((m) & (scaly_m64x4)(a)) | (~(m) & (scaly_m64x4)(b))))
// CHECK:       for (long long i = 0; i < 96; i += 4) {
// CHECK-NEXT:    double4 [[X:v[0-9]+]] = ((const double4*)(arg[0] + i))[0];
// CHECK-NEXT:    double4 [[T:v[0-9]+]] = ((const double4*)(arg[1] + i))[0];
// CHECK-NEXT:    *(double4*)(res[0] + i) = (double4)scaly_sin_f64x4(scaly_select_f64x4(([[X]] == [[Z:v[0-9]+]]) | ([[T]] == [[Z]]), [[Z]], [[X]] * [[T]]));
// CHECK-NEXT:  }
// CHECK:       for (long long i_ = 96; i_ < 99; ++i_) {
// CHECK-NOT:     scaly_select
// CHECK:       }

// AUTO:        typedef long long scaly_m64xN __attribute__((vector_size(8 * SCALY_LANES)));
// AUTO:        #define scaly_select_f64xN(m, a, b)

expr.func @exact(%x: tensor<99xf64>, %t: tensor<99xf64>) -> tensor<99xf64> attributes {arg_names = ["x", "t"], res_names = ["y"], entry} {
  %p = expr.mul %x, %t {exact_zeros} : tensor<99xf64>
  %s = expr.math sin %p : tensor<99xf64>
  expr.return %s : tensor<99xf64>
}
