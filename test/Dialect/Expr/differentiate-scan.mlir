// RUN: scaly-opt %s --scaly-differentiate | FileCheck %s
//
// Reverse mode through expr.scan: a forward scan that also stacks the state
// each step starts from, then one scan over the reversed steps carrying the
// state's cotangent, whose step calls the step function's reverse function.
// Both are one op whatever the count. The final state is unused here (its
// cotangent is zero), so the last step is differentiated on its own without
// it (@step_vjp_11_01: no adj_sn) and the reverse scan covers the other 999.

// CHECK-LABEL: expr.func @step_scan_vjp(
// CHECK-SAME:    arg_names = ["adj_state", "state", "u", "adj_c"], res_names = ["adj_state_prev", "adj_u"]
// CHECK:         expr.call @step_vjp_11_11(
// CHECK-LABEL: expr.func @step_vjp_11_01(
// CHECK-SAME:    arg_names = ["s", "u", "adj_c"], res_names = ["adj_s", "adj_u"]
// CHECK-LABEL: expr.func @step_states(
// CHECK-SAME:    res_names = ["state_next", "state"]
// CHECK-LABEL: expr.func @rollout_vjp_11_01(
// CHECK-SAME:    %[[S0:[^:]*]]: tensor<2xf64>, %[[US:[^:]*]]: tensor<1000xf64>, %[[W:[^:]*]]: tensor<1000xf64>
// CHECK:         %[[FWD:.*]]:2 = expr.scan @step_states(%[[S0]], %[[US]]) count 1000 {mapped = array<i1: false, true>} : (tensor<2xf64>, tensor<1000xf64>) -> (tensor<2xf64>, tensor<1000x2xf64>)
// CHECK:         %[[LAST:.*]]:2 = expr.call @step_vjp_11_01(
// CHECK:         %[[STATES:.*]] = expr.slice %[[FWD]]#1 starts [998, 0] steps [-1, 1] : tensor<1000x2xf64> to tensor<999x2xf64>
// CHECK:         %[[UREV:.*]] = expr.slice %[[US]] starts [998] steps [-1]
// CHECK:         %[[WREV:.*]] = expr.slice %[[W]] starts [998] steps [-1]
// CHECK:         %[[BACK:.*]]:2 = expr.scan @step_scan_vjp(%[[LAST]]#0, %[[STATES]], %[[UREV]], %[[WREV]]) count 999
// CHECK:         %[[GU:.*]] = expr.slice %[[BACK]]#1 starts [998] steps [-1]
// CHECK:         %[[GLAST:.*]] = expr.reshape %[[LAST]]#1 : tensor<f64> to tensor<1xf64>
// CHECK:         %[[ALL:.*]] = expr.concat %[[GU]], %[[GLAST]] {axis = 0 : i64} : (tensor<999xf64>, tensor<1xf64>) -> tensor<1000xf64>
// CHECK:         expr.return %[[BACK]]#0, %[[ALL]]
expr.func @step(%s: tensor<2xf64>, %u: tensor<f64>) -> (tensor<2xf64>, tensor<f64>) attributes {arg_names = ["s", "u"], res_names = ["sn", "c"]} {
  %b = expr.broadcast %u : tensor<f64> to tensor<2xf64>
  %m = expr.mul %s, %b : tensor<2xf64>
  %sin = expr.math sin %m : tensor<2xf64>
  %c = expr.reduce sum %s axes [0] : tensor<2xf64> to tensor<f64>
  expr.return %sin, %c : tensor<2xf64>, tensor<f64>
}
expr.func @rollout(%s0: tensor<2xf64>, %us: tensor<1000xf64>) -> (tensor<2xf64>, tensor<1000xf64>) attributes {arg_names = ["s0", "us"], res_names = ["s", "cs"]} {
  %s, %cs = expr.scan @step(%s0, %us) count 1000 : (tensor<2xf64>, tensor<1000xf64>) -> (tensor<2xf64>, tensor<1000xf64>)
  expr.return %s, %cs : tensor<2xf64>, tensor<1000xf64>
}
expr.func @main(%s0: tensor<2xf64>, %us: tensor<1000xf64>, %w: tensor<1000xf64>) -> (tensor<2xf64>, tensor<1000xf64>) attributes {arg_names = ["s0", "us", "w"], res_names = ["gs", "gu"], entry} {
  %gs, %gu = expr.vjp @rollout(%s0, %us, %w) wrt [true, true] of [false, true] : (tensor<2xf64>, tensor<1000xf64>, tensor<1000xf64>) -> (tensor<2xf64>, tensor<1000xf64>)
  expr.return %gs, %gu : tensor<2xf64>, tensor<1000xf64>
}
