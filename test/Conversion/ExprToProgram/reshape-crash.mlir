// RUN: scaly-opt %s --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// Regression test (was: use-after-free in ExprToProgram, crash).
// ProcLowering lowers expr.reshape with `values[o] = values[o.getOperand()];`
// on a DenseMap<Value, Stored>. In C++17 the right operand is evaluated
// first: it yields a reference into the map, then `values[o]` inserts a new
// key, which can grow the map, move every entry and free the old buckets;
// the copy then reads the freed (moved-from) Stored. Here the function
// argument and the 46 products fill the map to its growth point (47 entries
// of 64 buckets), so inserting the reshape result grows it: scaly-opt
// --scaly-lower-to-program (and --scaly-lower, scaly-translate --emit-c)
// segfault deterministically in OperandStorage when the store of the
// reshaped value is built from garbage Values. With 45 or 47 products it
// lowers fine. The fix: copy the operand's Stored before inserting.
//
// CHECK-LABEL: prog.proc @main(
// CHECK-COUNT-92: arith.mulf
// CHECK-NEXT:    prog.store %{{.*}}, %{{.*}} to %{{.*}}[0] : f64, f64 into <f64>
// CHECK-NEXT:    prog.return

expr.func @main(%x: tensor<2xf64>) -> tensor<1x2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %v0 = expr.mul %x, %x : tensor<2xf64>
  %v1 = expr.mul %v0, %x : tensor<2xf64>
  %v2 = expr.mul %v1, %x : tensor<2xf64>
  %v3 = expr.mul %v2, %x : tensor<2xf64>
  %v4 = expr.mul %v3, %x : tensor<2xf64>
  %v5 = expr.mul %v4, %x : tensor<2xf64>
  %v6 = expr.mul %v5, %x : tensor<2xf64>
  %v7 = expr.mul %v6, %x : tensor<2xf64>
  %v8 = expr.mul %v7, %x : tensor<2xf64>
  %v9 = expr.mul %v8, %x : tensor<2xf64>
  %v10 = expr.mul %v9, %x : tensor<2xf64>
  %v11 = expr.mul %v10, %x : tensor<2xf64>
  %v12 = expr.mul %v11, %x : tensor<2xf64>
  %v13 = expr.mul %v12, %x : tensor<2xf64>
  %v14 = expr.mul %v13, %x : tensor<2xf64>
  %v15 = expr.mul %v14, %x : tensor<2xf64>
  %v16 = expr.mul %v15, %x : tensor<2xf64>
  %v17 = expr.mul %v16, %x : tensor<2xf64>
  %v18 = expr.mul %v17, %x : tensor<2xf64>
  %v19 = expr.mul %v18, %x : tensor<2xf64>
  %v20 = expr.mul %v19, %x : tensor<2xf64>
  %v21 = expr.mul %v20, %x : tensor<2xf64>
  %v22 = expr.mul %v21, %x : tensor<2xf64>
  %v23 = expr.mul %v22, %x : tensor<2xf64>
  %v24 = expr.mul %v23, %x : tensor<2xf64>
  %v25 = expr.mul %v24, %x : tensor<2xf64>
  %v26 = expr.mul %v25, %x : tensor<2xf64>
  %v27 = expr.mul %v26, %x : tensor<2xf64>
  %v28 = expr.mul %v27, %x : tensor<2xf64>
  %v29 = expr.mul %v28, %x : tensor<2xf64>
  %v30 = expr.mul %v29, %x : tensor<2xf64>
  %v31 = expr.mul %v30, %x : tensor<2xf64>
  %v32 = expr.mul %v31, %x : tensor<2xf64>
  %v33 = expr.mul %v32, %x : tensor<2xf64>
  %v34 = expr.mul %v33, %x : tensor<2xf64>
  %v35 = expr.mul %v34, %x : tensor<2xf64>
  %v36 = expr.mul %v35, %x : tensor<2xf64>
  %v37 = expr.mul %v36, %x : tensor<2xf64>
  %v38 = expr.mul %v37, %x : tensor<2xf64>
  %v39 = expr.mul %v38, %x : tensor<2xf64>
  %v40 = expr.mul %v39, %x : tensor<2xf64>
  %v41 = expr.mul %v40, %x : tensor<2xf64>
  %v42 = expr.mul %v41, %x : tensor<2xf64>
  %v43 = expr.mul %v42, %x : tensor<2xf64>
  %v44 = expr.mul %v43, %x : tensor<2xf64>
  %v45 = expr.mul %v44, %x : tensor<2xf64>
  %r = expr.reshape %v45 : tensor<2xf64> to tensor<1x2xf64>
  expr.return %r : tensor<1x2xf64>
}
