// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// Mixed dtypes from the expression dialect: the entry's pointers are void*,
// each input and output is cast once to its C type under its own name (int32_t,
// uint8_t for bools), integer and bool outputs are stored one value at a time
// (no vector types), comparisons and casts print as C operators.

// CHECK-NOT:   typedef
// CHECK-LABEL: int classify(const void** arg, void** res, int* iw, void* w, int mem) {
// CHECK:         if (!res[1]) return SCALY_ERR_NULL_RESULT;
// CHECK-NEXT:    const double* x = (const double*)arg[0];
// CHECK-NEXT:    int32_t* n = (int32_t*)res[0];
// CHECK-NEXT:    uint8_t* pos = (uint8_t*)res[1];
// CHECK-NEXT:    double [[X0:v[0-9]+]] = x[0];
// CHECK-NEXT:    double [[X1:v[0-9]+]] = x[1];
// CHECK-NEXT:    n[0] = (([[X0]] >= (-2147483648.0)) && ([[X0]] < 2147483648.0)) ? ((int32_t)[[X0]]) : INT32_MIN;
// CHECK-NEXT:    n[1] = (([[X1]] >= (-2147483648.0)) && ([[X1]] < 2147483648.0)) ? ((int32_t)[[X1]]) : INT32_MIN;
// CHECK-NEXT:    pos[0] = [[X0]] > 0.0;
// CHECK-NEXT:    pos[1] = [[X1]] > 0.0;
// CHECK-NEXT:    return SCALY_SUCCESS;

expr.func @classify(%x: tensor<2xf64>) -> (tensor<2xi32>, tensor<2xi1>) attributes {arg_names = ["x"], res_names = ["n", "pos"]} {
  %0 = expr.cast %x : tensor<2xf64> to tensor<2xi32>
  %z = expr.constant dense<0.0> : tensor<2xf64>
  %1 = expr.cmp gt %x, %z : tensor<2xf64> -> tensor<2xi1>
  expr.return %0, %1 : tensor<2xi32>, tensor<2xi1>
}
