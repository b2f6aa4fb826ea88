// RUN: scaly-translate --emit-c %s | FileCheck %s
// RUN: echo 'typedef double double2 __attribute__((vector_size(16)));' > %t.h
// RUN: scaly-translate --emit-c %s | clang -fsyntax-only -std=c17 -Wall -Wextra -Werror -x c -include %t.h -
// RUN: scaly-opt %s | scaly-opt | FileCheck %s --check-prefix=IR
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s --check-prefix=IR
//
// cdecl.compound_literal prints C's compound literal of the vector type,
// `(double2){a, b}` (EmitC's emitc.call_opaque "double2" would be the C++
// cast `double2(a, b)`), elements without their outer parentheses, where
// its value is used once like EmitC's expressions, else named. It parses
// and prints back.

// CHECK-LABEL: double2 pair(double a, double b) {
// CHECK-NEXT:    return (double2){a, b + a};
// CHECK-LABEL: void twice(double* y, double a) {
// CHECK-NEXT:    double2 v0 = (double2){a, 1.0};
// CHECK-NEXT:    *(double2*)(y) = v0;
// CHECK-NEXT:    *(double2*)(y + 2) = v0;

// IR: cdecl.compound_literal %{{.*}}, %{{.*}} : (f64, f64) -> !emitc.opaque<"double2">
emitc.func @pair(%a: f64 {scaly.name = "a"}, %b: f64 {scaly.name = "b"}) -> !emitc.opaque<"double2"> {
  %s = emitc.add %b, %a : (f64, f64) -> f64
  %v = cdecl.compound_literal %a, %s : (f64, f64) -> !emitc.opaque<"double2">
  emitc.return %v : !emitc.opaque<"double2">
}
emitc.func @twice(%y: !emitc.ptr<f64> {scaly.name = "y"}, %a: f64 {scaly.name = "a"}) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %two = "emitc.constant"() <{value = 2 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1.0 : f64}> : () -> f64
  %v = cdecl.compound_literal %a, %one : (f64, f64) -> !emitc.opaque<"double2">
  %p = emitc.cast %y : !emitc.ptr<f64> to !emitc.ptr<!emitc.opaque<"double2">>
  %s0 = emitc.subscript %p[%zero] : (!emitc.ptr<!emitc.opaque<"double2">>, i64) -> !emitc.opaque<"double2">
  emitc.assign %v : !emitc.opaque<"double2"> to %s0 : !emitc.opaque<"double2">
  %y2 = emitc.add %y, %two : (!emitc.ptr<f64>, i64) -> !emitc.ptr<f64>
  %p2 = emitc.cast %y2 : !emitc.ptr<f64> to !emitc.ptr<!emitc.opaque<"double2">>
  %s1 = emitc.subscript %p2[%zero] : (!emitc.ptr<!emitc.opaque<"double2">>, i64) -> !emitc.opaque<"double2">
  emitc.assign %v : !emitc.opaque<"double2"> to %s1 : !emitc.opaque<"double2">
  emitc.return
}
