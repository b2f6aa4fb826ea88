// RUN: scaly-opt --scaly-roll-call-chains %s | FileCheck %s
//
// A chain of at least 16 calls of one function, each taking the previous
// call's first result first, becomes one expr.scan when every other operand
// is the same value in each call or a slice of one array moving along one
// axis: evenly spaced slices become one strided slice, others one gather.
// Shorter chains, a state used outside the chain, slices of two arrays and
// slices moving along two axes leave the calls as they are.

// us[3 + 2k]: one strided slice of us, the slices' reshapes dropped with them.
// CHECK-LABEL: expr.func @leading
// CHECK-NEXT:    %[[S:.*]] = expr.slice %arg1 starts [3] steps [2] : tensor<40xf64> to tensor<16xf64>
// CHECK-NEXT:    %[[Z:.*]] = expr.scan @euler(%arg0, %[[S]]) count 16 {mapped = array<i1: false, true>}
// CHECK-NEXT:    expr.return %[[Z]]
// CHECK-NOT:     expr.call

// U[:, 2k] and the same c in every call: the columns move to the leading axis.
// CHECK-LABEL: expr.func @columns
// CHECK:         %[[S:.*]] = expr.slice %arg1 starts [0, 0] steps [1, 2] : tensor<3x40xf64> to tensor<3x16xf64>
// CHECK-NEXT:    %[[T:.*]] = expr.transpose %[[S]] [1, 0] : tensor<3x16xf64> to tensor<16x3xf64>
// CHECK-NEXT:    expr.scan @step3(%arg0, %[[T]], %arg2) count 16 {mapped = array<i1: false, true, false>}
// CHECK-NOT:     expr.call

// Every call's second output is a slice of the scan's stacked output.
// CHECK-LABEL: expr.func @outputs
// CHECK:         %[[R:.*]]:2 = expr.scan @observed({{.*}}) count 16
// CHECK-SAME:      -> (tensor<2xf64>, tensor<16xf64>)
// CHECK-NEXT:    %[[Y0:.*]] = expr.slice %[[R]]#1 starts [0] steps [1] : tensor<16xf64> to tensor<1xf64>
// CHECK-NEXT:    %[[Y0R:.*]] = expr.reshape %[[Y0]] : tensor<1xf64> to tensor<f64>
// CHECK-NEXT:    %[[Y5:.*]] = expr.slice %[[R]]#1 starts [5] steps [1] : tensor<16xf64> to tensor<1xf64>
// CHECK-NEXT:    %[[Y5R:.*]] = expr.reshape %[[Y5]] : tensor<1xf64> to tensor<f64>
// CHECK-NEXT:    expr.return %[[R]]#0, %[[Y0R]], %[[Y5R]]

// 15 calls: too short.
// CHECK-LABEL: expr.func @short
// CHECK-NOT:     expr.scan
// CHECK-COUNT-15: expr.call @euler

// The 8th state is also an output: two chains of 8, both too short.
// CHECK-LABEL: expr.func @shared_state
// CHECK-NOT:     expr.scan
// CHECK-COUNT-16: expr.call @euler

// us[0], us[1], us[2], us[4], ...: not evenly spaced, one gather of the rows.
// CHECK-LABEL: expr.func @irregular
// CHECK-NEXT:    %[[G:.*]] = expr.gather %arg1 [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17] : tensor<40xf64> to tensor<17xf64>
// CHECK-NEXT:    %[[Z:.*]] = expr.scan @euler(%arg0, %[[G]]) count 17 {mapped = array<i1: false, true>}
// CHECK-NEXT:    expr.return %[[Z]]
// CHECK-NOT:     expr.call

// us[k // 2] (the first two calls read one row): one gather, rows in call order.
// CHECK-LABEL: expr.func @held
// CHECK-NEXT:    %[[G:.*]] = expr.gather %arg1 [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7] : tensor<40xf64> to tensor<16xf64>
// CHECK-NEXT:    expr.scan @euler(%arg0, %[[G]]) count 16
// CHECK-NOT:     expr.call

// U[:, p_k] of a 3 x 10 array at irregular columns p_k: each call's three
// elements, row-major positions 10 i + p_k, then the stacked shape.
// CHECK-LABEL: expr.func @irregular_columns
// CHECK-NEXT:    %[[G:.*]] = expr.gather %arg1 [0, 10, 20, 3, 13, 23, 1, 11, 21, 9, 19, 29, {{.*}}] : tensor<3x10xf64> to tensor<16x3xf64>
// CHECK-NEXT:    expr.scan @step3(%arg0, %[[G]], %arg2) count 16 {mapped = array<i1: false, true, false>}
// CHECK-NOT:     expr.call

// us[3] read through a slice of its own in every call: passed whole, no gather.
// CHECK-LABEL: expr.func @constant_row
// CHECK:         %[[U:.*]] = expr.reshape {{.*}} : tensor<1xf64> to tensor<f64>
// CHECK-NEXT:    expr.scan @euler(%arg0, %[[U]]) count 16 {mapped = array<i1: false, false>}
// CHECK-NOT:     expr.gather
// CHECK-NOT:     expr.call

// U[0, k // 2] of a 2 x 20 array: the first two calls read one element; the
// axis is the one the reads move along later (1, not the first of size 1),
// so every call is rolled.
// CHECK-LABEL: expr.func @held_second_axis
// CHECK-NEXT:    %[[G:.*]] = expr.gather %arg1 [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7] : tensor<2x20xf64> to tensor<16xf64>
// CHECK-NEXT:    expr.scan @euler(%arg0, %[[G]]) count 16
// CHECK-NOT:     expr.call

// Rows of us and of vs in turn: slices of two arrays are no walk.
// CHECK-LABEL: expr.func @two_arrays
// CHECK-NOT:     expr.scan
// CHECK-COUNT-16: expr.call @euler

// U[k, k % 2] of a 20 x 2 array: slices moving along two axes are no walk.
// CHECK-LABEL: expr.func @two_axes
// CHECK-NOT:     expr.scan
// CHECK-COUNT-16: expr.call @euler
// CHECK-LABEL: expr.func @euler

// An integer state: left as calls (expr.scan's derivative rules need a float state).
// CHECK-LABEL: expr.func @int_state
// CHECK-NOT:     expr.scan
// CHECK-COUNT-16: expr.call @count
// CHECK-LABEL: expr.func @count

expr.func @leading(%z: tensor<2xf64>, %us: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [15] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [17] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [19] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [21] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [23] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [25] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [27] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [29] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [31] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %us starts [33] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @columns(%z: tensor<2xf64>, %U: tensor<3x40xf64>, %c: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "U", "c"], res_names = ["zn"]} {
  %s0 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u0 = expr.reshape %s0 : tensor<3x1xf64> to tensor<3xf64>
  %z0 = expr.call @step3(%z, %u0, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %U starts [0, 2] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u1 = expr.reshape %s1 : tensor<3x1xf64> to tensor<3xf64>
  %z1 = expr.call @step3(%z0, %u1, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %U starts [0, 4] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u2 = expr.reshape %s2 : tensor<3x1xf64> to tensor<3xf64>
  %z2 = expr.call @step3(%z1, %u2, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %U starts [0, 6] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u3 = expr.reshape %s3 : tensor<3x1xf64> to tensor<3xf64>
  %z3 = expr.call @step3(%z2, %u3, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %U starts [0, 8] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u4 = expr.reshape %s4 : tensor<3x1xf64> to tensor<3xf64>
  %z4 = expr.call @step3(%z3, %u4, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %U starts [0, 10] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u5 = expr.reshape %s5 : tensor<3x1xf64> to tensor<3xf64>
  %z5 = expr.call @step3(%z4, %u5, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %U starts [0, 12] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u6 = expr.reshape %s6 : tensor<3x1xf64> to tensor<3xf64>
  %z6 = expr.call @step3(%z5, %u6, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %U starts [0, 14] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u7 = expr.reshape %s7 : tensor<3x1xf64> to tensor<3xf64>
  %z7 = expr.call @step3(%z6, %u7, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %U starts [0, 16] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u8 = expr.reshape %s8 : tensor<3x1xf64> to tensor<3xf64>
  %z8 = expr.call @step3(%z7, %u8, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %U starts [0, 18] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u9 = expr.reshape %s9 : tensor<3x1xf64> to tensor<3xf64>
  %z9 = expr.call @step3(%z8, %u9, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %U starts [0, 20] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u10 = expr.reshape %s10 : tensor<3x1xf64> to tensor<3xf64>
  %z10 = expr.call @step3(%z9, %u10, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %U starts [0, 22] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u11 = expr.reshape %s11 : tensor<3x1xf64> to tensor<3xf64>
  %z11 = expr.call @step3(%z10, %u11, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %U starts [0, 24] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u12 = expr.reshape %s12 : tensor<3x1xf64> to tensor<3xf64>
  %z12 = expr.call @step3(%z11, %u12, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %U starts [0, 26] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u13 = expr.reshape %s13 : tensor<3x1xf64> to tensor<3xf64>
  %z13 = expr.call @step3(%z12, %u13, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %U starts [0, 28] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u14 = expr.reshape %s14 : tensor<3x1xf64> to tensor<3xf64>
  %z14 = expr.call @step3(%z13, %u14, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %U starts [0, 30] steps [1, 1] : tensor<3x40xf64> to tensor<3x1xf64>
  %u15 = expr.reshape %s15 : tensor<3x1xf64> to tensor<3xf64>
  %z15 = expr.call @step3(%z14, %u15, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @outputs(%z: tensor<2xf64>, %us: tensor<40xf64>) -> (tensor<2xf64>, tensor<f64>, tensor<f64>) attributes {arg_names = ["z", "us"], res_names = ["zn", "y0", "y5"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0, %y0 = expr.call @observed(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s1 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1, %y1 = expr.call @observed(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2, %y2 = expr.call @observed(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s3 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3, %y3 = expr.call @observed(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s4 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4, %y4 = expr.call @observed(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s5 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5, %y5 = expr.call @observed(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s6 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6, %y6 = expr.call @observed(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s7 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7, %y7 = expr.call @observed(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s8 = expr.slice %us starts [8] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8, %y8 = expr.call @observed(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s9 = expr.slice %us starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9, %y9 = expr.call @observed(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s10 = expr.slice %us starts [10] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10, %y10 = expr.call @observed(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s11 = expr.slice %us starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11, %y11 = expr.call @observed(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s12 = expr.slice %us starts [12] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12, %y12 = expr.call @observed(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s13 = expr.slice %us starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13, %y13 = expr.call @observed(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s14 = expr.slice %us starts [14] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14, %y14 = expr.call @observed(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  %s15 = expr.slice %us starts [15] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15, %y15 = expr.call @observed(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> (tensor<2xf64>, tensor<f64>)
  expr.return %z15, %y0, %y5 : tensor<2xf64>, tensor<f64>, tensor<f64>
}
expr.func @short(%z: tensor<2xf64>, %us: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [8] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [10] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [12] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [14] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z14 : tensor<2xf64>
}
expr.func @shared_state(%z: tensor<2xf64>, %us: tensor<40xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {arg_names = ["z", "us"], res_names = ["zn", "zmid"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [8] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [10] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [12] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [14] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %us starts [15] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15, %z7 : tensor<2xf64>, tensor<2xf64>
}
expr.func @irregular(%z: tensor<2xf64>, %us: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [8] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [10] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [12] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [14] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [15] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %us starts [16] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s16 = expr.slice %us starts [17] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u16 = expr.reshape %s16 : tensor<1xf64> to tensor<f64>
  %z16 = expr.call @euler(%z15, %u16) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z16 : tensor<2xf64>
}
expr.func @held(%z: tensor<2xf64>, %us: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %us starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @irregular_columns(%z: tensor<2xf64>, %U: tensor<3x10xf64>, %c: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "U", "c"], res_names = ["zn"]} {
  %s0 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u0 = expr.reshape %s0 : tensor<3x1xf64> to tensor<3xf64>
  %z0 = expr.call @step3(%z, %u0, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %U starts [0, 3] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u1 = expr.reshape %s1 : tensor<3x1xf64> to tensor<3xf64>
  %z1 = expr.call @step3(%z0, %u1, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %U starts [0, 1] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u2 = expr.reshape %s2 : tensor<3x1xf64> to tensor<3xf64>
  %z2 = expr.call @step3(%z1, %u2, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %U starts [0, 9] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u3 = expr.reshape %s3 : tensor<3x1xf64> to tensor<3xf64>
  %z3 = expr.call @step3(%z2, %u3, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %U starts [0, 4] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u4 = expr.reshape %s4 : tensor<3x1xf64> to tensor<3xf64>
  %z4 = expr.call @step3(%z3, %u4, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %U starts [0, 4] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u5 = expr.reshape %s5 : tensor<3x1xf64> to tensor<3xf64>
  %z5 = expr.call @step3(%z4, %u5, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %U starts [0, 7] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u6 = expr.reshape %s6 : tensor<3x1xf64> to tensor<3xf64>
  %z6 = expr.call @step3(%z5, %u6, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %U starts [0, 2] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u7 = expr.reshape %s7 : tensor<3x1xf64> to tensor<3xf64>
  %z7 = expr.call @step3(%z6, %u7, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %U starts [0, 8] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u8 = expr.reshape %s8 : tensor<3x1xf64> to tensor<3xf64>
  %z8 = expr.call @step3(%z7, %u8, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u9 = expr.reshape %s9 : tensor<3x1xf64> to tensor<3xf64>
  %z9 = expr.call @step3(%z8, %u9, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %U starts [0, 5] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u10 = expr.reshape %s10 : tensor<3x1xf64> to tensor<3xf64>
  %z10 = expr.call @step3(%z9, %u10, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %U starts [0, 6] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u11 = expr.reshape %s11 : tensor<3x1xf64> to tensor<3xf64>
  %z11 = expr.call @step3(%z10, %u11, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %U starts [0, 1] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u12 = expr.reshape %s12 : tensor<3x1xf64> to tensor<3xf64>
  %z12 = expr.call @step3(%z11, %u12, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %U starts [0, 3] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u13 = expr.reshape %s13 : tensor<3x1xf64> to tensor<3xf64>
  %z13 = expr.call @step3(%z12, %u13, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %U starts [0, 9] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u14 = expr.reshape %s14 : tensor<3x1xf64> to tensor<3xf64>
  %z14 = expr.call @step3(%z13, %u14, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %U starts [0, 2] steps [1, 1] : tensor<3x10xf64> to tensor<3x1xf64>
  %u15 = expr.reshape %s15 : tensor<3x1xf64> to tensor<3xf64>
  %z15 = expr.call @step3(%z14, %u15, %c) : (tensor<2xf64>, tensor<3xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @constant_row(%z: tensor<2xf64>, %us: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %us starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @held_second_axis(%z: tensor<2xf64>, %U: tensor<2x20xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "U"], res_names = ["zn"]} {
  %s0 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u0 = expr.reshape %s0 : tensor<1x1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u1 = expr.reshape %s1 : tensor<1x1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %U starts [0, 1] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u2 = expr.reshape %s2 : tensor<1x1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %U starts [0, 1] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u3 = expr.reshape %s3 : tensor<1x1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %U starts [0, 2] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u4 = expr.reshape %s4 : tensor<1x1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %U starts [0, 2] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u5 = expr.reshape %s5 : tensor<1x1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %U starts [0, 3] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u6 = expr.reshape %s6 : tensor<1x1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %U starts [0, 3] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u7 = expr.reshape %s7 : tensor<1x1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %U starts [0, 4] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u8 = expr.reshape %s8 : tensor<1x1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %U starts [0, 4] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u9 = expr.reshape %s9 : tensor<1x1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %U starts [0, 5] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u10 = expr.reshape %s10 : tensor<1x1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %U starts [0, 5] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u11 = expr.reshape %s11 : tensor<1x1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %U starts [0, 6] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u12 = expr.reshape %s12 : tensor<1x1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %U starts [0, 6] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u13 = expr.reshape %s13 : tensor<1x1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %U starts [0, 7] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u14 = expr.reshape %s14 : tensor<1x1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %U starts [0, 7] steps [1, 1] : tensor<2x20xf64> to tensor<1x1xf64>
  %u15 = expr.reshape %s15 : tensor<1x1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @two_arrays(%z: tensor<2xf64>, %us: tensor<40xf64>, %vs: tensor<40xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "us", "vs"], res_names = ["zn"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u0 = expr.reshape %s0 : tensor<1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %vs starts [1] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u1 = expr.reshape %s1 : tensor<1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u2 = expr.reshape %s2 : tensor<1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %vs starts [3] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u3 = expr.reshape %s3 : tensor<1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %us starts [4] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u4 = expr.reshape %s4 : tensor<1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %vs starts [5] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u5 = expr.reshape %s5 : tensor<1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %us starts [6] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u6 = expr.reshape %s6 : tensor<1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %vs starts [7] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u7 = expr.reshape %s7 : tensor<1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %us starts [8] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u8 = expr.reshape %s8 : tensor<1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %vs starts [9] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u9 = expr.reshape %s9 : tensor<1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %us starts [10] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u10 = expr.reshape %s10 : tensor<1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %vs starts [11] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u11 = expr.reshape %s11 : tensor<1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %us starts [12] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u12 = expr.reshape %s12 : tensor<1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %vs starts [13] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u13 = expr.reshape %s13 : tensor<1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %us starts [14] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u14 = expr.reshape %s14 : tensor<1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %vs starts [15] steps [1] : tensor<40xf64> to tensor<1xf64>
  %u15 = expr.reshape %s15 : tensor<1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @two_axes(%z: tensor<2xf64>, %U: tensor<20x2xf64>) -> tensor<2xf64> attributes {arg_names = ["z", "U"], res_names = ["zn"]} {
  %s0 = expr.slice %U starts [0, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u0 = expr.reshape %s0 : tensor<1x1xf64> to tensor<f64>
  %z0 = expr.call @euler(%z, %u0) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s1 = expr.slice %U starts [1, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u1 = expr.reshape %s1 : tensor<1x1xf64> to tensor<f64>
  %z1 = expr.call @euler(%z0, %u1) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s2 = expr.slice %U starts [2, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u2 = expr.reshape %s2 : tensor<1x1xf64> to tensor<f64>
  %z2 = expr.call @euler(%z1, %u2) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s3 = expr.slice %U starts [3, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u3 = expr.reshape %s3 : tensor<1x1xf64> to tensor<f64>
  %z3 = expr.call @euler(%z2, %u3) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s4 = expr.slice %U starts [4, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u4 = expr.reshape %s4 : tensor<1x1xf64> to tensor<f64>
  %z4 = expr.call @euler(%z3, %u4) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s5 = expr.slice %U starts [5, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u5 = expr.reshape %s5 : tensor<1x1xf64> to tensor<f64>
  %z5 = expr.call @euler(%z4, %u5) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s6 = expr.slice %U starts [6, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u6 = expr.reshape %s6 : tensor<1x1xf64> to tensor<f64>
  %z6 = expr.call @euler(%z5, %u6) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s7 = expr.slice %U starts [7, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u7 = expr.reshape %s7 : tensor<1x1xf64> to tensor<f64>
  %z7 = expr.call @euler(%z6, %u7) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s8 = expr.slice %U starts [8, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u8 = expr.reshape %s8 : tensor<1x1xf64> to tensor<f64>
  %z8 = expr.call @euler(%z7, %u8) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s9 = expr.slice %U starts [9, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u9 = expr.reshape %s9 : tensor<1x1xf64> to tensor<f64>
  %z9 = expr.call @euler(%z8, %u9) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s10 = expr.slice %U starts [10, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u10 = expr.reshape %s10 : tensor<1x1xf64> to tensor<f64>
  %z10 = expr.call @euler(%z9, %u10) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s11 = expr.slice %U starts [11, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u11 = expr.reshape %s11 : tensor<1x1xf64> to tensor<f64>
  %z11 = expr.call @euler(%z10, %u11) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s12 = expr.slice %U starts [12, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u12 = expr.reshape %s12 : tensor<1x1xf64> to tensor<f64>
  %z12 = expr.call @euler(%z11, %u12) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s13 = expr.slice %U starts [13, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u13 = expr.reshape %s13 : tensor<1x1xf64> to tensor<f64>
  %z13 = expr.call @euler(%z12, %u13) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s14 = expr.slice %U starts [14, 0] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u14 = expr.reshape %s14 : tensor<1x1xf64> to tensor<f64>
  %z14 = expr.call @euler(%z13, %u14) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  %s15 = expr.slice %U starts [15, 1] steps [1, 1] : tensor<20x2xf64> to tensor<1x1xf64>
  %u15 = expr.reshape %s15 : tensor<1x1xf64> to tensor<f64>
  %z15 = expr.call @euler(%z14, %u15) : (tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
  expr.return %z15 : tensor<2xf64>
}
expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"]} {
  %0 = expr.broadcast %u : tensor<f64> to tensor<2xf64>
  %1 = expr.add %z, %0 : tensor<2xf64>
  expr.return %1 : tensor<2xf64>
}
expr.func @step3(%z: tensor<2xf64>, %u: tensor<3xf64>, %c: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u", "c"], res_names = ["znext"]} {
  %0 = expr.reduce sum %u axes [0] : tensor<3xf64> to tensor<f64>
  %1 = expr.mul %0, %c : tensor<f64>
  %2 = expr.broadcast %1 : tensor<f64> to tensor<2xf64>
  %3 = expr.add %z, %2 : tensor<2xf64>
  expr.return %3 : tensor<2xf64>
}
expr.func @observed(%z: tensor<2xf64>, %u: tensor<f64>) -> (tensor<2xf64>, tensor<f64>) attributes {arg_names = ["z", "u"], res_names = ["znext", "y"]} {
  %0 = expr.broadcast %u : tensor<f64> to tensor<2xf64>
  %1 = expr.add %z, %0 : tensor<2xf64>
  %2 = expr.reduce sum %z axes [0] : tensor<2xf64> to tensor<f64>
  expr.return %1, %2 : tensor<2xf64>, tensor<f64>
}
expr.func @int_state(%c: tensor<i64>, %us: tensor<40xi64>) -> tensor<i64> attributes {arg_names = ["c", "us"], res_names = ["cn"]} {
  %s0 = expr.slice %us starts [0] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u0 = expr.reshape %s0 : tensor<1xi64> to tensor<i64>
  %c0 = expr.call @count(%c, %u0) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s1 = expr.slice %us starts [1] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u1 = expr.reshape %s1 : tensor<1xi64> to tensor<i64>
  %c1 = expr.call @count(%c0, %u1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s2 = expr.slice %us starts [2] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u2 = expr.reshape %s2 : tensor<1xi64> to tensor<i64>
  %c2 = expr.call @count(%c1, %u2) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s3 = expr.slice %us starts [3] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u3 = expr.reshape %s3 : tensor<1xi64> to tensor<i64>
  %c3 = expr.call @count(%c2, %u3) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s4 = expr.slice %us starts [4] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u4 = expr.reshape %s4 : tensor<1xi64> to tensor<i64>
  %c4 = expr.call @count(%c3, %u4) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s5 = expr.slice %us starts [5] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u5 = expr.reshape %s5 : tensor<1xi64> to tensor<i64>
  %c5 = expr.call @count(%c4, %u5) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s6 = expr.slice %us starts [6] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u6 = expr.reshape %s6 : tensor<1xi64> to tensor<i64>
  %c6 = expr.call @count(%c5, %u6) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s7 = expr.slice %us starts [7] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u7 = expr.reshape %s7 : tensor<1xi64> to tensor<i64>
  %c7 = expr.call @count(%c6, %u7) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s8 = expr.slice %us starts [8] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u8 = expr.reshape %s8 : tensor<1xi64> to tensor<i64>
  %c8 = expr.call @count(%c7, %u8) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s9 = expr.slice %us starts [9] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u9 = expr.reshape %s9 : tensor<1xi64> to tensor<i64>
  %c9 = expr.call @count(%c8, %u9) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s10 = expr.slice %us starts [10] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u10 = expr.reshape %s10 : tensor<1xi64> to tensor<i64>
  %c10 = expr.call @count(%c9, %u10) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s11 = expr.slice %us starts [11] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u11 = expr.reshape %s11 : tensor<1xi64> to tensor<i64>
  %c11 = expr.call @count(%c10, %u11) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s12 = expr.slice %us starts [12] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u12 = expr.reshape %s12 : tensor<1xi64> to tensor<i64>
  %c12 = expr.call @count(%c11, %u12) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s13 = expr.slice %us starts [13] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u13 = expr.reshape %s13 : tensor<1xi64> to tensor<i64>
  %c13 = expr.call @count(%c12, %u13) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s14 = expr.slice %us starts [14] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u14 = expr.reshape %s14 : tensor<1xi64> to tensor<i64>
  %c14 = expr.call @count(%c13, %u14) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s15 = expr.slice %us starts [15] steps [1] : tensor<40xi64> to tensor<1xi64>
  %u15 = expr.reshape %s15 : tensor<1xi64> to tensor<i64>
  %c15 = expr.call @count(%c14, %u15) : (tensor<i64>, tensor<i64>) -> tensor<i64>
  expr.return %c15 : tensor<i64>
}
expr.func @count(%c: tensor<i64>, %u: tensor<i64>) -> tensor<i64> attributes {arg_names = ["c", "u"], res_names = ["cnext"]} {
  %0 = expr.add %c, %u : tensor<i64>
  expr.return %0 : tensor<i64>
}
