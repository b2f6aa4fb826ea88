// RUN: scaly-translate --emit-c %s | FileCheck %s --match-full-lines
//
// What a header (lib/Codegen/ModuleHeader.cpp) prints with: the cdecl
// dialect's comments, macros (an i32 table as an initializer list of 16
// values a continued line), includes, #ifndef and extern "C" blocks, C and
// C++ structs (a member without values as a comment, a trailing comment),
// a C++ namespace with constexpr constants, and bodiless emitc.func as
// prototypes (parameter names, const inputs, an extern "C" specifier).

// CHECK:      /* Scaly build recipe
// CHECK-NEXT:  */
// CHECK-NEXT: #ifndef SCALY_F_H
// CHECK-NEXT: #define SCALY_F_H
// CHECK-EMPTY:
// CHECK-NEXT: #include <stddef.h>
// CHECK-NEXT: #include "f_extra.h"
// CHECK-NEXT: #define f_SZ_ARG 2
// CHECK-NEXT: #define casadi_int long long int
// CHECK-NEXT: #define STORE(p, ...) (*(p) = (__VA_ARGS__))
// CHECK-NEXT: #define f_J_ROW { \
// CHECK-NEXT:     0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, \
// CHECK-NEXT:     16, -17 }
// CHECK-NEXT: /* res[0] J is sparse:
// CHECK-NEXT:  * in compressed-column order. */
// CHECK-NEXT: typedef struct __attribute__((aligned(16))) {
// CHECK-NEXT:   double x[2][3];
// CHECK-NEXT:   /* y: no values */
// CHECK-NEXT:   char unused_; /* no values at all */
// CHECK-NEXT: } f_in;
// CHECK-NEXT: #ifdef __cplusplus
// CHECK-NEXT: extern "C" {
// CHECK-NEXT: #endif
// CHECK-NEXT: int f(const double** arg, double** res, int* iw, double* w, int mem);
// CHECK-NEXT: void f_incref(void);
// CHECK-NEXT: #ifdef __cplusplus
// CHECK-NEXT: }
// CHECK-NEXT: #endif
// CHECK-NEXT: namespace g {
// CHECK-NEXT: constexpr int SZ_W = 12;
// CHECK-NEXT: struct alignas(16) In {
// CHECK-NEXT:   std::int64_t n[4];
// CHECK-NEXT:   float s;
// CHECK-NEXT: };
// CHECK-NEXT: extern "C" int g(const void** arg, void** res, int* iw, void* w, int mem);
// CHECK-NEXT: } // namespace g
// CHECK-NEXT: #endif
cdecl.comment "Scaly build recipe\n"
cdecl.ifndef "SCALY_F_H" {
  cdecl.define "SCALY_F_H"
  emitc.verbatim ""
  cdecl.include standard "stddef.h"
  cdecl.include "f_extra.h"
  cdecl.define "f_SZ_ARG" = 2
  cdecl.define "casadi_int" = "long long int"
  cdecl.define "STORE" params ["p", "..."] = "(*(p) = (__VA_ARGS__))"
  cdecl.define "f_J_ROW" = array<i32: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, -17>
  cdecl.comment "res[0] J is sparse:\n * in compressed-column order."
  cdecl.struct "f_in" attributes {alignment = 16 : i64} {
    cdecl.field "x" : !emitc.array<2x3xf64>
    cdecl.comment "y: no values"
    cdecl.field "unused_" : !emitc.opaque<"char"> {comment = "no values at all"}
  }
  cdecl.extern_c {
    emitc.func private @f(!emitc.ptr<!emitc.ptr<f64>> {scaly.const, scaly.name = "arg"},
                          !emitc.ptr<!emitc.ptr<f64>> {scaly.name = "res"},
                          !emitc.ptr<!emitc.opaque<"int">> {scaly.name = "iw"},
                          !emitc.ptr<f64> {scaly.name = "w"},
                          !emitc.opaque<"int"> {scaly.name = "mem"}) -> !emitc.opaque<"int">
    emitc.func private @f_incref()
  }
  cdecl.namespace "g" {
    cdecl.constexpr "SZ_W" : !emitc.opaque<"int"> = 12
    cdecl.struct "In" attributes {alignment = 16 : i64, cxx} {
      cdecl.field "n" : !emitc.array<4x!emitc.opaque<"std::int64_t">>
      cdecl.field "s" : f32
    }
    emitc.func private @g(!emitc.ptr<!emitc.ptr<!emitc.opaque<"void">>> {scaly.const, scaly.name = "arg"},
                          !emitc.ptr<!emitc.ptr<!emitc.opaque<"void">>> {scaly.name = "res"},
                          !emitc.ptr<!emitc.opaque<"int">> {scaly.name = "iw"},
                          !emitc.ptr<!emitc.opaque<"void">> {scaly.name = "w"},
                          !emitc.opaque<"int"> {scaly.name = "mem"}) -> !emitc.opaque<"int">
      attributes {specifiers = ["extern \"C\""]}
  }
}
