// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// The annotated rollout module of seed 000, from the expression dialect:
// recipe first, includes, vector typedef, status codes, euler_raw kept by the
// block hint and called in a loop over the 10 steps, inside extern "C".

// CHECK-LABEL: /* Scaly build recipe
// CHECK-NEXT:  * CPU baseline: generic
// CHECK-NEXT:  * lanes=1, dialect=gnu, vector_libm=none, reciprocal=False
// CHECK:       #include "rollout.h"
// CHECK:       #include <math.h>
// CHECK:       typedef double double2 __attribute__((vector_size(16), aligned(8), may_alias));
// CHECK:       #define SCALY_SUCCESS 0
// CHECK-NEXT:  #define SCALY_ERR_NULL_ABI 1
// CHECK-NEXT:  #define SCALY_ERR_NULL_WORK 2
// CHECK-NEXT:  #define SCALY_ERR_NULL_RESULT 3
// CHECK-NEXT:  #define SCALY_ERR_NULL_INPUT 4
// CHECK:       extern "C" {
// CHECK:       static inline void euler_raw(const double* z, const double* u, double* znext, double* w) {
// CHECK-NEXT:    (void)w;
// CHECK:         *(double2*)(znext) = (double2){
// CHECK-SAME:    sin(u[0])
// CHECK:       int rollout(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK:         if (!arg || !res) return SCALY_ERR_NULL_ABI;
// CHECK-NEXT:    (void)w;
// CHECK-NEXT:    if (!arg[0]) return SCALY_ERR_NULL_INPUT;
// CHECK-NEXT:    if (!arg[1]) return SCALY_ERR_NULL_INPUT;
// CHECK-NEXT:    if (!res[0]) return SCALY_ERR_NULL_RESULT;
// CHECK-NEXT:    for (long long it_zn = 0; it_zn < 10; ++it_zn) {
// CHECK-NEXT:      euler_raw(arg[0] + (2 * it_zn), arg[1] + it_zn, res[0] + (2 * it_zn), NULL);
// CHECK-NEXT:    }
// CHECK-NEXT:    return SCALY_SUCCESS;
// CHECK-NEXT:  }
// CHECK-NOT:   SCALY_ERR_NULL_WORK;

module {
  expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64> attributes {arg_names = ["zs", "us"], res_names = ["zn"]} {
    %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>
    %1 = expr.map @euler(%0, %us) count 10 {block} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>
    %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>
    expr.return %2 : tensor<20xf64>
  }
  expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"], block} {
    %c = expr.constant dense<0.1> : tensor<f64>
    %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>
    %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>
    %a = expr.mul %c, %z1 : tensor<f64>
    %b = expr.add %z0, %a : tensor<f64>
    %s = expr.math sin %u : tensor<f64>
    %d = expr.mul %c, %s : tensor<f64>
    %e = expr.add %z1, %d : tensor<f64>
    %r = expr.concat %b, %e : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
    expr.return %r : tensor<2xf64>
  }
}
