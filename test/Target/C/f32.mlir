// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// A float32 module from the expression dialect: float pointers in the ABI,
// the float4 vector type for the 4-value store, sinf, f-suffixed constants,
// the broadcast scalar read once into a named variable.

// CHECK:       #include "wave.h"
// CHECK:       typedef float float4 __attribute__((vector_size(16), aligned(4), may_alias));
// CHECK-NOT:   double
// CHECK-LABEL: int wave(const float** arg, float** res, int* iw, float* w, int mem) {
// CHECK:         (void)w;
// CHECK-NEXT:    if (!arg[0]) return SCALY_ERR_NULL_INPUT;
// CHECK-NEXT:    if (!arg[1]) return SCALY_ERR_NULL_INPUT;
// CHECK-NEXT:    if (!res[0]) return SCALY_ERR_NULL_RESULT;
// CHECK-NEXT:    float [[A:v[0-9]+]] = arg[1][0];
// CHECK-NEXT:    *(float4*)(res[0]) = (float4){(sinf(arg[0][0]) * [[A]]) + 0.5f, (sinf(arg[0][1]) * [[A]]) + 0.5f, (sinf(arg[0][2]) * [[A]]) + 0.5f, (sinf(arg[0][3]) * [[A]]) + 0.5f};
// CHECK-NEXT:    return SCALY_SUCCESS;
// CHECK-NEXT:  }
// CHECK-NOT:   double

expr.func @wave(%t: tensor<4xf32>, %a: tensor<f32>) -> tensor<4xf32> attributes {arg_names = ["t", "a"], res_names = ["y"]} {
  %b = expr.broadcast %a : tensor<f32> to tensor<4xf32>
  %s = expr.math sin %t : tensor<4xf32>
  %c = expr.constant dense<0.5> : tensor<4xf32>
  %m = expr.mul %s, %b : tensor<4xf32>
  %r = expr.add %m, %c : tensor<4xf32>
  expr.return %r : tensor<4xf32>
}
