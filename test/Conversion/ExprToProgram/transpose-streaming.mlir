// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders --scaly-form-fused-ops --scaly-lower-to-program --scaly-tile-copies --scaly-parallel-to-loops | FileCheck %s
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders="cached-bytes=0 tile-columns=128" --scaly-form-fused-ops --scaly-lower-to-program --scaly-tile-copies --scaly-parallel-to-loops | FileCheck %s --check-prefix=OPT
//
// Streamed register blocks, as scaly-plan-loop-orders plans them
// (expr.copy_plan, with its default thresholds) and the lowering
// (LoopStrategies.cpp) executes them: an output of at least 1 MiB
// computed through a transpose, whose rows are whole 64-byte lines, is
// written under `prog.is_aligned %out, 64`, each block row one streaming
// store of a line: doubles up to 16 MiB in 8 x 8 blocks, the rows the outer
// loop; larger ones and floats in blocks of 4 rows by one line (8 doubles,
// 16 floats), the columns the outer loop. The else branch, and an output
// whose rows are not whole lines, is 4 x 4 blocks in tiles of 256 columns
// with element-aligned streaming stores. Smaller results keep the plain
// 4 x 4 blocks.

// 256 x 512 doubles (1 MiB), 258 rows: two rows left over in each branch.
// With cached-bytes=0 and tile-columns=128 (OPT) the lowering follows the
// other plan: 4 rows by one line, columns outermost; tiles of 128 columns.
// OPT-LABEL:   prog.proc @big(
// OPT:           scf.if
// OPT:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c512_i64{{[_0-9]*}} step %c8_i64{{[_0-9]*}} : i64 {
// OPT:               scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c256_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// OPT:           } else {
// OPT:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c512_i64{{[_0-9]*}} step %c128_i64{{[_0-9]*}} : i64 {
// CHECK-LABEL: prog.proc @big(
// CHECK-SAME:    %{{[^:]*}}: !prog.ptr<const f64>, %[[Y:[^:]*]]: !prog.ptr<f64>
// CHECK:         %[[OK:.*]] = prog.is_aligned %[[Y]], 64 : <f64>
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      arith.constant {{.*}} : i64
// CHECK-NEXT:      scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c256_i64{{[_0-9]*}} step %c8_i64{{[_0-9]*}} : i64 {
// CHECK:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c512_i64{{[_0-9]*}} step %c8_i64{{[_0-9]*}} : i64 {
// CHECK:               arith.addf %{{.*}} {scaly.name = "b77"} : f64
// CHECK-COUNT-8:       prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] {streaming} : f64, f64, f64, f64, f64, f64, f64, f64 into <f64>
// CHECK:             } {scaly.name = "j"}
// CHECK:           } {scaly.name = "i"}
// CHECK:           scf.for %{{.*}} = %c256_i64{{[_0-9]*}} to %c258_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK:         } else {
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c512_i64{{[_0-9]*}} step %c256_i64{{[_0-9]*}} : i64 {
// CHECK:             scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c256_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK:               scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c256_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK-COUNT-4:         prog.store %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} to %{{.*}}[0] {element_aligned, streaming} : f64, f64, f64, f64 into <f64>
// CHECK:               } {scaly.name = "j"}
// CHECK:             } {scaly.name = "i"}
// CHECK:           } {scaly.name = "t"}
// CHECK:           scf.for %{{.*}} = %c256_i64{{[_0-9]*}} to %c258_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
expr.func @big(%x: tensor<512x258xf64>) -> tensor<258x512xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<512x258xf64> to tensor<258x512xf64>
  %c = expr.constant dense<1.0> : tensor<258x512xf64>
  %0 = expr.add %t, %c : tensor<258x512xf64>
  expr.return %0 : tensor<258x512xf64>
}

// -----

// Doubles over 16 MiB (2048 x 1040): blocks of 4 rows by one line, the
// columns outermost.
// CHECK-LABEL: prog.proc @large(
// CHECK:         prog.is_aligned %{{.*}}, 64 : <f64>
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c1040_i64{{[_0-9]*}} step %c8_i64{{[_0-9]*}} : i64 {
// CHECK:           scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c2048_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK-COUNT-4:     prog.store {{.*}} {streaming} : f64, f64, f64, f64, f64, f64, f64, f64 into <f64>
// CHECK:           } {scaly.name = "i"}
// CHECK:         } {scaly.name = "j"}
expr.func @large(%x: tensor<1040x2048xf64>) -> tensor<2048x1040xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<1040x2048xf64> to tensor<2048x1040xf64>
  %0 = expr.neg %t : tensor<2048x1040xf64>
  expr.return %0 : tensor<2048x1040xf64>
}

// -----

// Floats: a line is 16 of them, each block row one streaming store of 16.
// CHECK-LABEL: prog.proc @floats(
// CHECK:         prog.is_aligned %{{.*}}, 64 : <f32>
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c528_i64{{[_0-9]*}} step %c16_i64{{[_0-9]*}} : i64 {
// CHECK:           prog.store {{.*}} {streaming} : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32 into <f32>
expr.func @floats(%x: tensor<528x512xf32>) -> tensor<512x528xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<528x512xf32> to tensor<512x528xf32>
  %0 = expr.mul %t, %t : tensor<512x528xf32>
  expr.return %0 : tensor<512x528xf32>
}

// -----

// Negative: 480 kB is below the streaming size.
// CHECK-LABEL: prog.proc @small(
// CHECK-NOT:     is_aligned
// CHECK-NOT:     streaming
// CHECK:         prog.return
expr.func @small(%x: tensor<300x200xf64>) -> tensor<200x300xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<300x200xf64> to tensor<200x300xf64>
  %0 = expr.neg %t : tensor<200x300xf64>
  expr.return %0 : tensor<200x300xf64>
}

// -----

// Rows of 514 doubles are not whole lines: no alignment test, element-aligned
// streaming stores in tiles of 256 columns (two full tiles), the 2 columns
// after the last block plain.
// CHECK-LABEL: prog.proc @odd_rows(
// CHECK-NOT:     is_aligned
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c512_i64{{[_0-9]*}} step %c256_i64{{[_0-9]*}} : i64 {
// CHECK-COUNT-4:     prog.store {{.*}} {element_aligned, streaming} : f64, f64, f64, f64 into <f64>
// CHECK:         scf.for %{{.*}} = %c512_i64{{[_0-9]*}} to %c514_i64{{[_0-9]*}} step %c1_i64{{[_0-9]*}} : i64 {
// CHECK-NOT:       streaming
// CHECK:         prog.return
expr.func @odd_rows(%x: tensor<514x300xf64>) -> tensor<300x514xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<514x300xf64> to tensor<300x514xf64>
  %0 = expr.neg %t : tensor<300x514xf64>
  expr.return %0 : tensor<300x514xf64>
}

// -----

// A partial last tile: 300 columns are one tile of 256 and a loop of the
// 44 after it, both element-streamed.
// CHECK-LABEL: prog.proc @partial_tile(
// CHECK:         scf.for %{{.*}} = %c0_i64{{[_0-9]*}} to %c256_i64{{[_0-9]*}} step %c256_i64{{[_0-9]*}} : i64 {
// CHECK-COUNT-4:     prog.store {{.*}} {element_aligned, streaming} : f64, f64, f64, f64 into <f64>
// CHECK:         scf.for %{{.*}} = %c256_i64{{[_0-9]*}} to %c300_i64{{[_0-9]*}} step %c4_i64{{[_0-9]*}} : i64 {
// CHECK-COUNT-4:     prog.store {{.*}} {element_aligned, streaming} : f64, f64, f64, f64 into <f64>
expr.func @partial_tile(%x: tensor<300x460xf64>) -> tensor<460x300xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<300x460xf64> to tensor<460x300xf64>
  %0 = expr.neg %t : tensor<460x300xf64>
  expr.return %0 : tensor<460x300xf64>
}
