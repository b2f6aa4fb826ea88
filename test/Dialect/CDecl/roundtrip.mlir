// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// The cdecl dialect parses and prints: comments, macros (no value, integer,
// token text, i32 table, function-like and variadic), includes, the region ops (ifndef, extern_c,
// namespace, struct) with EmitC's declarations inside, C++ constants and
// struct fields with and without a trailing comment.

// CHECK:      cdecl.comment "recipe\0A"
// CHECK-NEXT: cdecl.ifndef "SCALY_F_H" {
// CHECK-NEXT:   cdecl.define "SCALY_F_H"
// CHECK-NEXT:   cdecl.include standard "stdint.h"
// CHECK-NEXT:   cdecl.include "f.h"
// CHECK-NEXT:   cdecl.define "f_SZ_ARG" = 2 : i64
// CHECK-NEXT:   cdecl.define "casadi_int" = "long long int"
// CHECK-NEXT:   cdecl.define "f_J_COLIND" = array<i32: 0, 1, 3>
// CHECK-NEXT:   cdecl.define "TWICE" params ["x"] = "((x) + (x))"
// CHECK-NEXT:   cdecl.define "STORE" params ["p", "..."] = "(*(p) = (__VA_ARGS__))"
// CHECK-NEXT:   cdecl.struct "f_in" attributes {alignment = 16 : i64} {
// CHECK-NEXT:     cdecl.field "x" : !emitc.array<3xf64>
// CHECK-NEXT:     cdecl.comment "y: no values"
// CHECK-NEXT:     cdecl.field "unused_" : !emitc.opaque<"char"> {comment = "no values at all"}
// CHECK-NEXT:   }
// CHECK-NEXT:   cdecl.extern_c {
// CHECK-NEXT:     emitc.func private @f
// CHECK:        }
// CHECK-NEXT:   cdecl.namespace "g" {
// CHECK-NEXT:     cdecl.constexpr "SZ_ARG" : !emitc.opaque<"int"> = 1
// CHECK-NEXT:     cdecl.struct "In" attributes {alignment = 16 : i64, cxx} {
cdecl.comment "recipe\n"
cdecl.ifndef "SCALY_F_H" {
  cdecl.define "SCALY_F_H"
  cdecl.include standard "stdint.h"
  cdecl.include "f.h"
  cdecl.define "f_SZ_ARG" = 2
  cdecl.define "casadi_int" = "long long int"
  cdecl.define "f_J_COLIND" = array<i32: 0, 1, 3>
  cdecl.define "TWICE" params ["x"] = "((x) + (x))"
  cdecl.define "STORE" params ["p", "..."] = "(*(p) = (__VA_ARGS__))"
  cdecl.struct "f_in" attributes {alignment = 16 : i64} {
    cdecl.field "x" : !emitc.array<3xf64>
    cdecl.comment "y: no values"
    cdecl.field "unused_" : !emitc.opaque<"char"> {comment = "no values at all"}
  }
  cdecl.extern_c {
    emitc.func private @f(!emitc.opaque<"int">) -> !emitc.opaque<"int">
  }
  cdecl.namespace "g" {
    cdecl.constexpr "SZ_ARG" : !emitc.opaque<"int"> = 1
    cdecl.struct "In" attributes {alignment = 16 : i64, cxx} {
      cdecl.field "x" : !emitc.opaque<"std::int64_t">
    }
  }
}

// A conditional definition: with an #else branch, and without one.
// CHECK:      cdecl.if_defined "__clang__" {
// CHECK-NEXT:   cdecl.define "SCALY_NO_UNROLL" = "_Pragma(\22clang loop unroll(disable)\22)"
// CHECK-NEXT: } else {
// CHECK-NEXT:   cdecl.define "SCALY_NO_UNROLL"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if_defined "__GNUC__" {
// CHECK-NEXT:   cdecl.comment "GNU C"
// CHECK-NEXT: }
// CHECK-NOT:  else
cdecl.if_defined "__clang__" {
  cdecl.define "SCALY_NO_UNROLL" = "_Pragma(\"clang loop unroll(disable)\")"
} else {
  cdecl.define "SCALY_NO_UNROLL"
}
cdecl.if_defined "__GNUC__" {
  cdecl.comment "GNU C"
}
