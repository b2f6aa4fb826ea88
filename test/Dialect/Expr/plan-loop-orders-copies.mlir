// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders | FileCheck %s
// The same nested on each function, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-plan-fusion,scaly-plan-placement,scaly-plan-loop-orders))' | FileCheck %s
// The thresholds are options: streaming from 4 kB, no 8 x 8 line blocks,
// tiles of 8 columns.
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion --scaly-plan-placement --scaly-plan-loop-orders="stream-bytes=4096 cached-bytes=0 tile-columns=8" | FileCheck %s --check-prefix=OPT
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-plan-fusion,scaly-plan-placement,scaly-plan-loop-orders{stream-bytes=4096 cached-bytes=0 tile-columns=8}))' | FileCheck %s --check-prefix=OPT
// Bad option values are refused:
// RUN: not scaly-opt %s --scaly-plan-loop-orders="tile-columns=250" 2>&1 | FileCheck %s --check-prefix=BAD-TILE
// RUN: not scaly-opt %s --pass-pipeline='builtin.module(expr.func(scaly-plan-loop-orders{tile-columns=0}))' 2>&1 | FileCheck %s --check-prefix=BAD-TILE0
// RUN: not scaly-opt %s --scaly-plan-loop-orders="stream-bytes=-1" 2>&1 | FileCheck %s --check-prefix=BAD-BYTES
// RUN: not scaly-opt %s --pass-pipeline='builtin.module(expr.func(scaly-plan-loop-orders{cached-bytes=-5}))' 2>&1 | FileCheck %s --check-prefix=BAD-CACHED
//
// expr.copy_plan: how a large float result computed with arithmetic only
// through a transpose that moves the last axis is written (CopyPlan.cpp),
// planned from its size, element type, rows and place (scaly-plan-placement
// runs first). A value its one reader (elementwise, or a view) computes in
// its own loop gets no plan: it is never written whole.
// BAD-TILE: error: scaly-plan-loop-orders: tile-columns must be a positive multiple of 4 (the columns of a block), got 250
// BAD-TILE0: error: scaly-plan-loop-orders: tile-columns must be a positive multiple of 4 (the columns of a block), got 0
// BAD-BYTES: error: scaly-plan-loop-orders: stream-bytes and cached-bytes must be at least 0, got -1 and 16777216
// BAD-CACHED: error: scaly-plan-loop-orders: stream-bytes and cached-bytes must be at least 0, got 1048576 and -5

// 480 kB, below stream-bytes: plain 4 x 4 blocks, rows outermost; the
// transpose, read once by the neg, gets none. From 4 kB up (OPT) the output
// is streamed, element by element (rows of 300 doubles are not whole lines).
// CHECK-LABEL: expr.func @plain(
// CHECK:         expr.transpose %{{.*}} [1, 0] {expr.place = [#expr.place<workspace>], scaly.fused}
// CHECK:         expr.neg %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, expr.place = [#expr.place<output 0>], scaly.fused}
// OPT-LABEL:     expr.func @plain(
// OPT:           expr.neg %{{.*}} {expr.copy_plan = {block = [4, 4], order = "tiles", stores = "elements", tile = 8 : i64}
expr.func @plain(%x: tensor<300x200xf64>) -> tensor<200x300xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<300x200xf64> to tensor<200x300xf64>
  %0 = expr.neg %t : tensor<200x300xf64>
  expr.return %0 : tensor<200x300xf64>
}


// -----

// 1 MiB of doubles in rows of whole lines, up to cached-bytes: streamed
// lines in 8 x 8 blocks, rows outermost, if the output is 64-byte aligned;
// else element streams in tiles. With cached-bytes=0 (OPT): 4 rows by one
// line, columns outermost.
// CHECK-LABEL: expr.func @cached_lines(
// CHECK:         expr.add %{{.*}} {expr.copy_plan = {block = [8, 8], order = "rows", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 256 : i64}}, expr.place = [#expr.place<output 0>]
// OPT-LABEL:     expr.func @cached_lines(
// OPT:           expr.add %{{.*}} {expr.copy_plan = {block = [4, 8], order = "columns", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 8 : i64}}
expr.func @cached_lines(%x: tensor<512x258xf64>) -> tensor<258x512xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<512x258xf64> to tensor<258x512xf64>
  %c = expr.constant dense<1.0> : tensor<258x512xf64>
  %0 = expr.add %t, %c : tensor<258x512xf64>
  expr.return %0 : tensor<258x512xf64>
}


// -----

// Doubles over cached-bytes (17 MB): 4 rows by one line, columns outermost.
// CHECK-LABEL: expr.func @large_lines(
// CHECK:         expr.neg %{{.*}} {expr.copy_plan = {block = [4, 8], order = "columns", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 256 : i64}}
expr.func @large_lines(%x: tensor<1040x2048xf64>) -> tensor<2048x1040xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<1040x2048xf64> to tensor<2048x1040xf64>
  %0 = expr.neg %t : tensor<2048x1040xf64>
  expr.return %0 : tensor<2048x1040xf64>
}


// -----

// Floats: a line is 16 of them, columns outermost whatever the size. The
// transpose is read twice, so it may be written whole (plain blocks).
// CHECK-LABEL: expr.func @floats(
// CHECK:         expr.transpose %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}
// CHECK:         expr.mul %{{.*}} {expr.copy_plan = {block = [4, 16], order = "columns", stores = "lines", unaligned = {block = [4, 4], order = "tiles", stores = "elements", tile = 256 : i64}}
expr.func @floats(%x: tensor<528x512xf32>) -> tensor<512x528xf32> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<528x512xf32> to tensor<512x528xf32>
  %0 = expr.mul %t, %t : tensor<512x528xf32>
  expr.return %0 : tensor<512x528xf32>
}


// -----

// Rows of 514 doubles are not whole lines: element streams in tiles of
// tile-columns, no alignment test.
// CHECK-LABEL: expr.func @odd_rows(
// CHECK:         expr.neg %{{.*}} {expr.copy_plan = {block = [4, 4], order = "tiles", stores = "elements", tile = 256 : i64}, expr.place = [#expr.place<output 0>]
expr.func @odd_rows(%x: tensor<514x300xf64>) -> tensor<300x514xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<514x300xf64> to tensor<300x514xf64>
  %0 = expr.neg %t : tensor<300x514xf64>
  expr.return %0 : tensor<300x514xf64>
}


// -----

// 17 MB, but in the workspace (a reduction reads it): plain blocks, in
// the streaming options too.
// CHECK-LABEL: expr.func @not_output(
// CHECK:         expr.neg %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, expr.place = [#expr.place<workspace>]
// OPT-LABEL:     expr.func @not_output(
// OPT:           expr.neg %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, expr.place = [#expr.place<workspace>]
expr.func @not_output(%x: tensor<1040x2048xf64>) -> tensor<2048xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<1040x2048xf64> to tensor<2048x1040xf64>
  %0 = expr.neg %t : tensor<2048x1040xf64>
  %1 = expr.reduce sum %0 axes [1] : tensor<2048x1040xf64> to tensor<2048xf64>
  expr.return %1 : tensor<2048xf64>
}


// -----

// A transpose returned as it is.
// CHECK-LABEL: expr.func @copy(
// CHECK:         expr.transpose %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}, expr.place = [#expr.place<output 0>]
expr.func @copy(%x: tensor<16x12xf64>) -> tensor<12x16xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<16x12xf64> to tensor<12x16xf64>
  expr.return %t : tensor<12x16xf64>
}


// -----

// A transpose a matrix product also reads: planned on the fusion marks,
// both it and the product's elementwise neighbour get a plan. The lowering
// stores the transpose for the product first (in blocks), and then finds
// that %y reads it from memory: its premise gone, %y gets the plain nest
// (transpose-blocks.mlir, @shared).
// CHECK-LABEL: expr.func @shared(
// CHECK:         expr.transpose %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}
// CHECK:         expr.matmul
// CHECK-NOT:     copy_plan
// CHECK:         expr.mul %{{.*}} {expr.copy_plan = {block = [4, 4], order = "rows", stores = "plain"}
expr.func @shared(%x: tensor<16x12xf64>, %w: tensor<16x8xf64>, %v: tensor<16xf64>) -> (tensor<12x16xf64>, tensor<12x8xf64>) attributes {arg_names = ["x", "w", "v"], res_names = ["y", "m"]} {
  %t = expr.transpose %x [1, 0] : tensor<16x12xf64> to tensor<12x16xf64>
  %m = expr.matmul %t, %w : tensor<12x16xf64>, tensor<16x8xf64> to tensor<12x8xf64>
  %b = expr.broadcast %v : tensor<16xf64> to tensor<12x16xf64>
  %y = expr.mul %t, %b : tensor<12x16xf64>
  expr.return %y, %m : tensor<12x16xf64>, tensor<12x8xf64>
}


// -----

// Negative: a libm call in the chain keeps the plain nest, whose inner
// loop vector lanes widen.
// CHECK-LABEL: expr.func @with_sin(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @with_sin(%x: tensor<10x60xf64>) -> tensor<60x10xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x60xf64> to tensor<60x10xf64>
  %0 = expr.math sin %t : tensor<60x10xf64>
  expr.return %0 : tensor<60x10xf64>
}


// -----

// Negative: nor beside the transpose (sin(y) is computed in the add's loop).
// CHECK-LABEL: expr.func @sin_beside(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @sin_beside(%x: tensor<10x60xf64>, %y: tensor<60x10xf64>) -> tensor<60x10xf64> attributes {arg_names = ["x", "y"], res_names = ["z"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x60xf64> to tensor<60x10xf64>
  %s = expr.math sin %y : tensor<60x10xf64>
  %0 = expr.add %t, %s : tensor<60x10xf64>
  expr.return %0 : tensor<60x10xf64>
}


// -----

// Negative: 48 elements, scalars.
// CHECK-LABEL: expr.func @small(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @small(%x: tensor<8x6xf64>) -> tensor<6x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<8x6xf64> to tensor<6x8xf64>
  %0 = expr.neg %t : tensor<6x8xf64>
  expr.return %0 : tensor<6x8xf64>
}


// -----

// Negative: a transpose that keeps the last axis reads rows contiguously.
// CHECK-LABEL: expr.func @keeps_last(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @keeps_last(%x: tensor<4x3x8xf64>) -> tensor<3x4x8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0, 2] : tensor<4x3x8xf64> to tensor<3x4x8xf64>
  %0 = expr.neg %t : tensor<3x4x8xf64>
  expr.return %0 : tensor<3x4x8xf64>
}


// -----

// Negative: an integer result.
// CHECK-LABEL: expr.func @ints(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @ints(%x: tensor<10x60xi64>) -> tensor<60x10xi64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<10x60xi64> to tensor<60x10xi64>
  %0 = expr.add %t, %t : tensor<60x10xi64>
  expr.return %0 : tensor<60x10xi64>
}


// -----

// Negative: 3 columns, narrower than a block.
// CHECK-LABEL: expr.func @narrow(
// CHECK-NOT:     copy_plan
// CHECK:         expr.return
expr.func @narrow(%x: tensor<3x100xf64>) -> tensor<100x3xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %t = expr.transpose %x [1, 0] : tensor<3x100xf64> to tensor<100x3xf64>
  %0 = expr.neg %t : tensor<100x3xf64>
  expr.return %0 : tensor<100x3xf64>
}
