// RUN: scaly-opt %s -split-input-file --scaly-form-fused-ops | FileCheck %s
// Twice: marks inside expr.fused bodies are not grouped again.
// RUN: scaly-opt %s -split-input-file --scaly-form-fused-ops --scaly-form-fused-ops | FileCheck %s
// The same nested on each function, as the render pipeline runs it:
// RUN: scaly-opt %s -split-input-file --pass-pipeline='builtin.module(expr.func(scaly-form-fused-ops))' | FileCheck %s
// Planned from scratch, fused, and lowered: the marks are gone from the
// function body, and the lowering accepts what the pass forms.
// RUN: scaly-opt %s -split-input-file --scaly-plan-fusion="scalarize-limit=4" --scaly-plan-placement="scalarize-limit=4" --scaly-form-fused-ops --scaly-lower-to-program | FileCheck %s --check-prefix=LOWER
//
// The marks of scaly-plan-fusion (scaly.fused, written here by hand) become
// expr.fused ops: a marked op read once by a marked op of its block joins
// that op's group; any other marked op roots one.

// A chain of single-use marked ops is one group, rooted at the op the
// unmarked reader (here the return) reads; unmarked ops stay outside. The
// ops in the body lose their mark (the body says it).
// CHECK-LABEL: expr.func @chain(
// CHECK:         %[[STORED:.*]] = expr.mul %arg0, %arg0 : tensor<8xf64>
// CHECK:         %[[F:.*]] = expr.fused : tensor<8xf64> {
// CHECK-NEXT:      %[[S:.*]] = expr.math sin %[[STORED]] : tensor<{{[^{]*}}{{$}}
// CHECK-NEXT:      %[[A:.*]] = expr.add %[[S]], %[[STORED]] : tensor<{{[^{]*}}{{$}}
// CHECK-NEXT:      expr.yield %[[A]] : tensor<8xf64>
// CHECK-NEXT:    }
// CHECK-NEXT:    expr.return %[[F]], %[[STORED]]
// Lowered: the stored product, then one nest computing the group's sin and
// add per element.
// LOWER-LABEL:   prog.proc @chain(
// LOWER:         scf.parallel
// LOWER:           arith.mulf
// LOWER:         scf.parallel
// LOWER-NOT:       prog.store
// LOWER:           math.sin
// LOWER-NEXT:      prog.offset
// LOWER-NEXT:      prog.load
// LOWER-NEXT:      arith.addf
// LOWER-NOT:     scf.parallel
// LOWER:         prog.return
expr.func @chain(%x: tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>) attributes {arg_names = ["x"], res_names = ["y", "z"]} {
  %twice = expr.mul %x, %x : tensor<8xf64>
  %sin = expr.math sin %twice {scaly.fused} : tensor<8xf64>
  %sum = expr.add %sin, %twice {scaly.fused} : tensor<8xf64>
  expr.return %sum, %twice : tensor<8xf64>, tensor<8xf64>
}

// -----

// A view read twice roots a group of its own, which both groups read:
// nothing is cloned, so a reader that needs it in memory stores it once.
// A reshape of a marked op joins its group.
// CHECK-LABEL: expr.func @shared(
// CHECK:         %[[T:.*]] = expr.fused : tensor<8x6xf64> {
// CHECK-NEXT:      expr.transpose
// CHECK-NEXT:      expr.yield
// CHECK-NEXT:    }
// CHECK:         %[[N:.*]] = expr.fused : tensor<48xf64> {
// CHECK-NEXT:      %[[NEG:.*]] = expr.neg %[[T]] : tensor<{{[^{]*}}{{$}}
// CHECK-NEXT:      %[[R:.*]] = expr.reshape %[[NEG]]
// CHECK-NEXT:      expr.yield %[[R]]
// CHECK-NEXT:    }
// CHECK:         %[[E:.*]] = expr.fused : tensor<8x6xf64> {
// CHECK-NEXT:      expr.math exp %[[T]] : tensor<{{[^{]*}}{{$}}
// CHECK-NEXT:      expr.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    expr.return %[[N]], %[[E]]
// CHECK-NOT:     expr.transpose
// Lowered: two nests, each reading x transposed; nothing stored between.
// LOWER-LABEL:   prog.proc @shared(
// LOWER-SAME:    workspace = 0
// LOWER:         scf.parallel
// LOWER:           arith.negf
// LOWER:         scf.parallel
// LOWER:           math.exp
// LOWER:         prog.return
expr.func @shared(%x: tensor<6x8xf64>) -> (tensor<48xf64>, tensor<8x6xf64>) attributes {arg_names = ["x"], res_names = ["a", "b"]} {
  %t = expr.transpose %x [1, 0] {scaly.fused} : tensor<6x8xf64> to tensor<8x6xf64>
  %n = expr.neg %t {scaly.fused} : tensor<8x6xf64>
  %r = expr.reshape %n : tensor<8x6xf64> to tensor<48xf64>
  %e = expr.math exp %t {scaly.fused} : tensor<8x6xf64>
  expr.return %r, %e : tensor<48xf64>, tensor<8x6xf64>
}

// -----

// A marked op read inside a loop body roots its own group before the loop;
// the body's group reads it from there.
// CHECK-LABEL: expr.func @across(
// CHECK:         %[[B:.*]] = expr.fused : tensor<3x8xf64> {
// CHECK-NEXT:      expr.broadcast
// CHECK-NEXT:      expr.yield
// CHECK-NEXT:    }
// CHECK:         expr.loop 3
// CHECK:           %[[F:.*]] = expr.fused : tensor<3x8xf64> {
// CHECK-NEXT:        expr.mul %[[B]], %{{.*}} : tensor<{{[^{]*}}{{$}}
// CHECK-NEXT:        expr.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      expr.yield %[[F]]
// Lowered: the broadcast read inside the loop's nest.
// LOWER-LABEL:   prog.proc @across(
// LOWER-SAME:    workspace = 0
// LOWER:         scf.for
// LOWER:           scf.parallel
// LOWER:             arith.mulf
// LOWER:         prog.return
expr.func @across(%v: tensor<8xf64>, %m: tensor<3x3x8xf64>) -> tensor<3x3x8xf64> attributes {arg_names = ["v", "m"], res_names = ["y"]} {
  %b = expr.broadcast %v {scaly.fused} : tensor<8xf64> to tensor<3x8xf64>
  %y = expr.loop 3 (%m) : (tensor<3x3x8xf64>) -> tensor<3x3x8xf64> {
  ^bb0(%row: tensor<3x8xf64>):
    %p = expr.mul %b, %row {scaly.fused} : tensor<3x8xf64>
    expr.yield %p : tensor<3x8xf64>
  }
  expr.return %y : tensor<3x3x8xf64>
}

// -----

// Negative: nothing marked, nothing formed.
// CHECK-LABEL: expr.func @unmarked(
// CHECK-NOT:     expr.fused
// CHECK:         expr.return
expr.func @unmarked(%x: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.neg %x : tensor<8xf64>
  %e = expr.math exp %n : tensor<8xf64>
  expr.return %e : tensor<8xf64>
}

// -----

// A marked op read by nothing is erased, with the members only it read.
// CHECK-LABEL: expr.func @dead(
// CHECK-NOT:     expr.fused
// CHECK-NOT:     expr.math
// CHECK:         expr.return %arg0
expr.func @dead(%x: tensor<8xf64>) -> tensor<8xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
  %n = expr.neg %x {scaly.fused} : tensor<8xf64>
  %e = expr.math exp %n {scaly.fused} : tensor<8xf64>
  expr.return %x : tensor<8xf64>
}

// -----

// A concatenation of parts produced in their place in a loop's yielded
// slice is that slice, also as the root of a group: the lowering copies
// nothing (no nest) after the two products.
// CHECK-LABEL: expr.func @stacked(
// CHECK:         expr.loop 3
// CHECK:           expr.fused : tensor<16xf64> {
// CHECK-NEXT:        expr.concat
// CHECK-NEXT:        expr.reshape
// LOWER-LABEL:   prog.proc @stacked(
// LOWER:         scf.for
// LOWER-COUNT-2:   prog.matmul
// LOWER-NOT:       scf.parallel
// LOWER:         prog.return
expr.func @stacked(%a: tensor<4x4xf64>, %b: tensor<4x2xf64>) -> tensor<3x16xf64> attributes {arg_names = ["a", "b"], res_names = ["s"]} {
  %r = expr.loop 3 () : () -> tensor<3x16xf64> {
  ^bb0:
    %m = expr.matmul %a, %b : tensor<4x4xf64>, tensor<4x2xf64> to tensor<4x2xf64>
    %n = expr.matmul %a, %b : tensor<4x4xf64>, tensor<4x2xf64> to tensor<4x2xf64>
    %c = expr.concat %m, %n {scaly.fused} : (tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<8x2xf64>
    %q = expr.reshape %c : tensor<8x2xf64> to tensor<16xf64>
    expr.yield %q : tensor<16xf64>
  }
  expr.return %r : tensor<3x16xf64>
}
