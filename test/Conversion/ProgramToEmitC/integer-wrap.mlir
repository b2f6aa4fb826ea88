// RUN: scaly-opt %s --scaly-program-to-emitc | FileCheck %s
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=C
//
// Model arithmetic on int64 and int32 wraps around as NumPy's does; in C,
// signed overflow is undefined, so the IR computes it in the unsigned type
// of the same width and converts back (emitc.cast), and the printer has no
// rule of its own for it. Index arithmetic (overflow flag nsw) stays signed.

// CHECK-LABEL: emitc.func @ints_raw(
// CHECK:         %[[A:.*]] = emitc.cast %{{.*}} : i64 to ui64
// CHECK-NEXT:    %[[B:.*]] = emitc.cast %{{.*}} : i64 to ui64
// CHECK-NEXT:    %[[S:.*]] = emitc.add %[[A]], %[[B]] : (ui64, ui64) -> ui64
// CHECK-NEXT:    %{{.*}} = emitc.cast %[[S]] : ui64 to i64
// CHECK:         emitc.cast %{{.*}} : i32 to ui32
// CHECK:         emitc.mul %{{.*}}, %{{.*}} : (ui32, ui32) -> ui32
// CHECK:         emitc.cast %{{.*}} : ui32 to i32
// CHECK:         emitc.sub %{{.*}}, %{{.*}} : (i64, i64) -> i64
// CHECK-NOT:     ui64

// C-LABEL: static inline void ints_raw(
// C:         y[0] = (int64_t)((uint64_t)v0 + (uint64_t)v1);
// C:         z[0] = (int32_t)((uint32_t)s[0] * (uint32_t)s[1]);
// C:         y[1] = v0 - v1;
prog.proc @ints_raw(%a: !prog.ptr<const i64>, %s: !prog.ptr<const i32>, %y: !prog.ptr<i64>, %z: !prog.ptr<i32>, %w: !prog.ptr<f64>) attributes {arg_names = ["a", "s", "y", "z", "w"], input_sizes = array<i64: 2, 2>, output_sizes = array<i64: 2, 1>} {
  %a0 = prog.load %a[0] : !prog.ptr<const i64> -> i64
  %a1 = prog.load %a[1] : !prog.ptr<const i64> -> i64
  %sum = arith.addi %a0, %a1 : i64
  prog.store %sum to %y[0] : i64 into !prog.ptr<i64>
  %s0 = prog.load %s[0] : !prog.ptr<const i32> -> i32
  %s1 = prog.load %s[1] : !prog.ptr<const i32> -> i32
  %prod = arith.muli %s0, %s1 : i32
  prog.store %prod to %z[0] : i32 into !prog.ptr<i32>
  %diff = arith.subi %a0, %a1 overflow<nsw> : i64
  prog.store %diff to %y[1] : i64 into !prog.ptr<i64>
  prog.return
}
