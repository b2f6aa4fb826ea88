// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s
//
// The lowering emits the iteration space of a large array's loop nest, not
// its loops: one scf.parallel over the array's axes (axes of one element
// get none), the C names of its counters in scaly.names, and a body that
// casts each counter to i64 and computes one element from them.
// scaly-parallel-to-loops generates the loops (test/Dialect/Program/
// parallel-to-loops.mlir).

// CHECK-LABEL: prog.proc @strided(
// CHECK-SAME:    %[[X:[^:]*]]: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK-NOT:     scf.for
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%{{.*}}, %{{.*}}) to (%c30, %c40) step (%{{.*}}, %{{.*}}) {
// CHECK-NEXT:      %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT:      %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK:           arith.muli %[[J64]], %c2_i64 overflow<nsw> : i64
// CHECK:           arith.muli %[[I64]], %c80_i64 overflow<nsw> : i64
// CHECK:           %[[S:.*]] = math.sin
// CHECK:           prog.store %[[S]] to
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    } {scaly.names = ["i", "j"]}
// CHECK-NOT:     scf.for
// CHECK:         prog.return
expr.func @strided(%x: tensor<30x80xf64>) -> tensor<30x40xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %s = expr.slice %x starts [0, 1] steps [1, 2] : tensor<30x80xf64> to tensor<30x40xf64>
  %0 = expr.math sin %s : tensor<30x40xf64>
  expr.return %0 : tensor<30x40xf64>
}

// -----

// An axis of one element has no dimension: the nest is over the other
// axes, named by their position (the third axis is "k").
// CHECK-LABEL: prog.proc @unit_axis(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c30, %c40)
// CHECK:         } {scaly.names = ["i", "k"]}
expr.func @unit_axis(%x: tensor<30x1x80xf64>) -> tensor<30x1x40xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %s = expr.slice %x starts [0, 0, 1] steps [1, 1, 2] : tensor<30x1x80xf64> to tensor<30x1x40xf64>
  %0 = expr.math sin %s : tensor<30x1x40xf64>
  expr.return %0 : tensor<30x1x40xf64>
}

// -----

// Elementwise over memory: one dimension over every element.
// CHECK-LABEL: prog.proc @flat(
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%c1200) step (%{{.*}}) {
// CHECK:         } {scaly.names = ["i"]}
expr.func @flat(%x: tensor<30x40xf64>) -> tensor<30x40xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.math cos %x : tensor<30x40xf64>
  expr.return %0 : tensor<30x40xf64>
}

// -----

// A value computed through a transpose: the nest that writes it carries the
// op's copy plan (scaly.copy_plan), which scaly-tile-copies executes.
// CHECK-LABEL: prog.proc @transposed(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c30, %c40)
// CHECK:           arith.negf
// CHECK:         } {scaly.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, scaly.names = ["i", "j"]}
expr.func @transposed(%x: tensor<40x30xf64>) -> tensor<30x40xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<40x30xf64> to tensor<30x40xf64>
  %0 = expr.neg %t : tensor<30x40xf64>
  expr.return %0 : tensor<30x40xf64>
}

// -----

// A libm call per element: scaly-plan-loop-orders plans no blocks (the
// plain nest's inner loop widens into vector lanes), and the nest carries
// no plan.
// CHECK-LABEL: prog.proc @transposed_sin(
// CHECK:         scf.parallel
// CHECK-NOT:     scaly.copy_plan
// CHECK:         prog.return
expr.func @transposed_sin(%x: tensor<40x30xf64>) -> tensor<30x40xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<40x30xf64> to tensor<30x40xf64>
  %0 = expr.math sin %t : tensor<30x40xf64>
  expr.return %0 : tensor<30x40xf64>
}

// -----

// A reduction over the first axis marked "rows": the nest over the result's
// elements reduces each column in order, row 0 as the init of a loop over
// rows 1.. marked scaly.accumulate_rows, which scaly-accumulate-rows moves
// outside the nest (test/Dialect/Program/accumulate-rows.mlir).
// CHECK-LABEL: prog.proc @colsum(
// CHECK:         scf.parallel (%[[J:.*]]) = (%{{.*}}) to (%c80) step (%{{.*}}) {
// CHECK-NEXT:      %[[J64:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK-NEXT:      %[[P0:.*]] = prog.offset %{{.*}}[%[[J64]]]
// CHECK-NEXT:      %[[X0:.*]] = prog.load %[[P0]][0]
// CHECK:           %[[S:.*]] = scf.for %[[R:.*]] = %c1_i64 to %c30_i64 step %c1_i64{{.*}} iter_args(%[[ACC:.*]] = %[[X0]]) -> (f64) : i64 {
// CHECK:             %[[X:.*]] = prog.load
// CHECK-NEXT:        %[[NEXT:.*]] = arith.addf %[[ACC]], %[[X]] : f64
// CHECK-NEXT:        scf.yield %[[NEXT]] : f64
// CHECK-NEXT:      } {scaly.accumulate_rows, scaly.name = "r"}
// CHECK:           prog.store %[[S]] to
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    } {scaly.names = ["j"]}
expr.func @colsum(%x: tensor<30x80xf64>) -> tensor<80xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %0 = expr.reduce sum %x axes [0] : tensor<30x80xf64> to tensor<80xf64>
  expr.return %0 : tensor<80xf64>
}

// -----

// A batch of matrix products: independent, a nest over the batch, one
// prog.matmul per element at its offset.
// CHECK-LABEL: prog.proc @batched(
// CHECK:         scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c3) step (%{{.*}}) {
// CHECK-NEXT:      %[[B64:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK-NEXT:      %[[C:.*]] = prog.offset %{{.*}}[%[[B64]]] {scale = 400 : i64} : <f64> -> <f64>
// CHECK:           prog.matmul %{{.*}}, %{{.*}} into %[[C]] m 20 k 20 n 20
// CHECK-NEXT:      scf.reduce
// CHECK-NEXT:    } {scaly.names = ["b"]}
expr.func @batched(%a: tensor<3x20x20xf64>, %b: tensor<3x20x20xf64>) -> tensor<3x20x20xf64> attributes {arg_names = ["a", "b"], res_names = ["c"]} {
  %0 = expr.matmul %a, %b : tensor<3x20x20xf64>, tensor<3x20x20xf64> to tensor<3x20x20xf64>
  expr.return %0 : tensor<3x20x20xf64>
}
