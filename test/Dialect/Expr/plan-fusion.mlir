// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" | FileCheck %s
// RUN: not scaly-opt %s --scaly-plan-fusion="scalarize-limit=-1" 2>&1 | FileCheck %s --check-prefix=BAD
// The same nested on each function, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-plan-fusion{scalarize-limit=4}))' | FileCheck %s
// RUN: not scaly-opt %s --pass-pipeline='builtin.module(expr.func(scaly-plan-fusion{scalarize-limit=-1}))' 2>&1 | FileCheck %s --check-prefix=BAD
//
// Above scalarize-limit, an elementwise op, a concatenation or a gather
// whose result has one use is marked scaly.fused (its consumer computes it
// where it reads it); one with two uses is not (it is stored once): @chain's
// mul and add (the add is returned and reshaped). Views
// (broadcast, transpose, slice) are marked whatever their uses, except a
// slice that is a pointer into a stored value. A reshape,
// a reduction, a small op and a stale mark on an op that no longer
// qualifies carry no mark.

// CHECK-LABEL: expr.func @chain(
// CHECK:         expr.broadcast {{.*}} {scaly.fused}
// CHECK:         %[[TWICE:.*]] = expr.mul {{[^{]*}}: tensor<8xf64>{{$}}
// CHECK:         expr.math sin %[[TWICE]] {scaly.fused}
// CHECK:         expr.add {{[^{]*}}: tensor<8xf64>{{$}}
// CHECK:         expr.reshape {{[^{]*}}{{$}}
// CHECK:         expr.transpose {{.*}} {scaly.fused}
// CHECK:         expr.reduce {{[^{]*}}{{$}}
// CHECK:         expr.neg {{[^{]*}}: tensor<4xf64>{{$}}
expr.func @chain(%x: tensor<8xf64>, %s: tensor<4xf64>) -> (tensor<8xf64>, tensor<4x2xf64>, tensor<f64>, tensor<4xf64>) attributes {arg_names = ["x", "s"], res_names = ["y", "t", "r", "n"]} {
  %c = expr.constant dense<2.0> : tensor<f64>
  %b = expr.broadcast %c : tensor<f64> to tensor<8xf64>
  %twice = expr.mul %b, %x {scaly.fused} : tensor<8xf64>
  %sin = expr.math sin %twice : tensor<8xf64>
  %sum = expr.add %sin, %twice : tensor<8xf64>
  %m = expr.reshape %sum : tensor<8xf64> to tensor<2x4xf64>
  %t = expr.transpose %m [1, 0] : tensor<2x4xf64> to tensor<4x2xf64>
  %r = expr.reduce sum %x axes [0] : tensor<8xf64> to tensor<f64>
  %n = expr.neg %s : tensor<4xf64>
  expr.return %sum, %t, %r, %n : tensor<8xf64>, tensor<4x2xf64>, tensor<f64>, tensor<4xf64>
}

// -----

// A gather reads its operand from memory: the concatenation it reads is
// stored (no mark).
// CHECK-LABEL: expr.func @parts(
// CHECK:         expr.concat {{.*}} {axis = 0 : i64} :
// CHECK:         expr.gather {{.*}} {scaly.fused}
// CHECK:         %[[KEPT:.*]] = expr.concat {{.*}} {axis = 0 : i64} :
// CHECK:         expr.add %[[KEPT]], %[[KEPT]] {scaly.fused}
expr.func @parts(%x: tensor<6xf64>, %y: tensor<6xf64>) -> (tensor<12xf64>, tensor<12xf64>) attributes {arg_names = ["x", "y"], res_names = ["a", "b"]} {
  %once = expr.concat %x, %y {axis = 0 : i64} : (tensor<6xf64>, tensor<6xf64>) -> tensor<12xf64>
  %g = expr.gather %once [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0] : tensor<12xf64> to tensor<12xf64>
  %twice = expr.concat %y, %x {axis = 0 : i64} : (tensor<6xf64>, tensor<6xf64>) -> tensor<12xf64>
  %b = expr.add %twice, %twice : tensor<12xf64>
  expr.return %g, %b : tensor<12xf64>, tensor<12xf64>
}

// -----

// A slice that is one contiguous run of a stored value is a view (a pointer
// into it): no mark. A strided slice, or any slice of a value computed in
// place, is read through: marked.
// CHECK-LABEL: expr.func @slices(
// CHECK:         expr.slice %{{.*}} starts [1, 0] steps [1, 1] : tensor<4x4xf64> to tensor<3x4xf64>
// CHECK:         expr.slice %{{.*}} starts [0, 0] steps [2, 1] {scaly.fused}
// CHECK:         %[[NEG:.*]] = expr.neg %{{.*}} {scaly.fused}
// CHECK:         expr.slice %[[NEG]] starts [1, 0] steps [1, 1] {scaly.fused}
expr.func @slices(%x: tensor<4x4xf64>) -> (tensor<3x4xf64>, tensor<2x4xf64>, tensor<3x4xf64>) attributes {arg_names = ["x"], res_names = ["a", "b", "c"]} {
  %a = expr.slice %x starts [1, 0] steps [1, 1] : tensor<4x4xf64> to tensor<3x4xf64>
  %b = expr.slice %x starts [0, 0] steps [2, 1] : tensor<4x4xf64> to tensor<2x4xf64>
  %n = expr.neg %x : tensor<4x4xf64>
  %c = expr.slice %n starts [1, 0] steps [1, 1] : tensor<4x4xf64> to tensor<3x4xf64>
  expr.return %a, %b, %c : tensor<3x4xf64>, tensor<2x4xf64>, tensor<3x4xf64>
}

// BAD: scaly-plan-fusion: scalarize-limit must be at least 0, got -1
expr.func @bad(%x: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  expr.return %x : tensor<8xf64>
}

// -----

// Reductions: the pairwise helpers and strided runs read their operand from
// memory (a full sum, one trailing axis, one leading axis of a small
// result); row accumulation (one leading axis into a large result) and the
// copy that moves several leading axes last compute it where they read it.
// CHECK-LABEL: expr.func @reductions(
// CHECK:         %[[P:.*]] = expr.mul %{{.*}}, %{{.*}} : tensor<100x100xf64>
// CHECK-NEXT:    expr.reduce sum %[[P]] axes [0, 1]
// CHECK:         %[[T:.*]] = expr.add %{{.*}}, %{{.*}} : tensor<100x100xf64>
// CHECK-NEXT:    expr.reduce sum %[[T]] axes [1]
// CHECK:         %[[R:.*]] = expr.sub %{{.*}}, %{{.*}} {scaly.fused} : tensor<100x100xf64>
// CHECK-NEXT:    expr.reduce sum %[[R]] axes [0]
// CHECK:         %[[C:.*]] = expr.neg %{{.*}} {scaly.fused} : tensor<10x10x100xf64>
// CHECK-NEXT:    expr.reduce max %[[C]] axes [0, 1]
expr.func @reductions(%x: tensor<100x100xf64>, %y: tensor<100x100xf64>, %z: tensor<10x10x100xf64>) -> (tensor<f64>, tensor<100xf64>, tensor<100xf64>, tensor<100xf64>) attributes {arg_names = ["x", "y", "z"], res_names = ["a", "b", "c", "d"]} {
  %p = expr.mul %x, %y : tensor<100x100xf64>
  %a = expr.reduce sum %p axes [0, 1] : tensor<100x100xf64> to tensor<f64>
  %t = expr.add %x, %y : tensor<100x100xf64>
  %b = expr.reduce sum %t axes [1] : tensor<100x100xf64> to tensor<100xf64>
  %r = expr.sub %x, %y : tensor<100x100xf64>
  %c = expr.reduce sum %r axes [0] : tensor<100x100xf64> to tensor<100xf64>
  %n = expr.neg %z : tensor<10x10x100xf64>
  %d = expr.reduce max %n axes [0, 1] : tensor<10x10x100xf64> to tensor<100xf64>
  expr.return %a, %b, %c, %d : tensor<f64>, tensor<100xf64>, tensor<100xf64>, tensor<100xf64>
}

// -----

// A float sum of every element, larger than one block of 8192: the lowering
// computes the operand one block at a time where it sums it (marked); an
// integer sum reads its operand from memory (no mark).
// CHECK-LABEL: expr.func @sums_in_blocks(
// CHECK:         %[[P:.*]] = expr.mul %{{.*}}, %{{.*}} {scaly.fused} : tensor<20000xf64>
// CHECK-NEXT:    expr.reduce sum %[[P]] axes [0]
// CHECK:         %[[K:.*]] = expr.add %{{.*}}, %{{.*}} : tensor<20000xi64>
// CHECK-NEXT:    expr.reduce sum %[[K]] axes [0]
expr.func @sums_in_blocks(%x: tensor<20000xf64>, %k: tensor<20000xi64>) -> (tensor<f64>, tensor<i64>) attributes {arg_names = ["x", "k"], res_names = ["a", "b"]} {
  %p = expr.mul %x, %x : tensor<20000xf64>
  %a = expr.reduce sum %p axes [0] : tensor<20000xf64> to tensor<f64>
  %q = expr.add %k, %k : tensor<20000xi64>
  %b = expr.reduce sum %q axes [0] : tensor<20000xi64> to tensor<i64>
  expr.return %a, %b : tensor<f64>, tensor<i64>
}

// -----

// A matrix product, a kept call and a loop read their operands from memory:
// an elementwise value or a view each reads once is stored (no mark); a view
// an elementwise op also reads stays marked.
// CHECK-LABEL: expr.func @memory_readers(
// CHECK:         %[[P:.*]] = expr.neg %{{.*}} : tensor<8x8xf64>{{$}}
// CHECK-NEXT:    expr.matmul %[[P]]
// CHECK:         %[[T:.*]] = expr.transpose {{[^{]*}}: tensor<8x8xf64> to tensor<8x8xf64>{{$}}
// CHECK-NEXT:    expr.matmul %[[T]]
// CHECK:         %[[U:.*]] = expr.broadcast {{.*}} {scaly.fused}
// CHECK-NEXT:    expr.matmul %[[U]]
// CHECK-NEXT:    expr.add %[[U]], %[[U]] {scaly.fused}
// CHECK:         %[[C:.*]] = expr.math exp %{{.*}} : tensor<8x8xf64>{{$}}
// CHECK-NEXT:    expr.call @g(%[[C]])
// CHECK:         %[[L:.*]] = expr.math sin %{{.*}} : tensor<8x8xf64>{{$}}
// CHECK-NEXT:    expr.loop 8{{ ?}}(%[[L]])
expr.func @memory_readers(%x: tensor<8x8xf64>) -> (tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>) attributes {arg_names = ["x"], res_names = ["a", "b", "c", "d"]} {
  %p = expr.neg %x : tensor<8x8xf64>
  %a = expr.matmul %p, %x : tensor<8x8xf64>, tensor<8x8xf64> to tensor<8x8xf64>
  %t = expr.transpose %x [1, 0] : tensor<8x8xf64> to tensor<8x8xf64>
  %b0 = expr.matmul %t, %x : tensor<8x8xf64>, tensor<8x8xf64> to tensor<8x8xf64>
  %v = expr.reduce sum %x axes [0] : tensor<8x8xf64> to tensor<8xf64>
  %u = expr.broadcast %v : tensor<8xf64> to tensor<8x8xf64>
  %um = expr.matmul %u, %x : tensor<8x8xf64>, tensor<8x8xf64> to tensor<8x8xf64>
  %ua = expr.add %u, %u : tensor<8x8xf64>
  %b1 = expr.add %b0, %um : tensor<8x8xf64>
  %b = expr.add %b1, %ua : tensor<8x8xf64>
  %e = expr.math exp %x : tensor<8x8xf64>
  %c = expr.call @g(%e) {block} : (tensor<8x8xf64>) -> tensor<8x8xf64>
  %s = expr.math sin %x : tensor<8x8xf64>
  %d = expr.loop 8 (%s) : (tensor<8x8xf64>) -> tensor<8x8xf64> {
  ^bb0(%row: tensor<8xf64>):
    %n = expr.neg %row : tensor<8xf64>
    expr.yield %n : tensor<8xf64>
  }
  expr.return %a, %b, %c, %d : tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>, tensor<8x8xf64>
}
expr.func @g(%z: tensor<8x8xf64>) -> tensor<8x8xf64> attributes {arg_names = ["z"], res_names = ["y"], block} {
  expr.return %z : tensor<8x8xf64>
}
