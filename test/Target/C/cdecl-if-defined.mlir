// RUN: scaly-translate --emit-c %s | FileCheck %s --match-full-lines
//
// cdecl.if_defined prints `#if defined(NAME)`, its first body, `#else` and
// the second body only when there is one, and `#endif`; a body's ops print
// at the margin like the module's (the loop macro of a C module).

// CHECK:      #if defined(__clang__)
// CHECK-NEXT: #define SCALY_NO_UNROLL _Pragma("clang loop unroll(disable)")
// CHECK-NEXT: #else
// CHECK-NEXT: #define SCALY_NO_UNROLL
// CHECK-NEXT: #endif
// CHECK-EMPTY:
// CHECK-NEXT: #if defined(__GNUC__)
// CHECK-NEXT: /* GNU C */
// CHECK-NEXT: #endif
// CHECK-NOT:  {{.}}
cdecl.if_defined "__clang__" {
  cdecl.define "SCALY_NO_UNROLL" = "_Pragma(\"clang loop unroll(disable)\")"
} else {
  cdecl.define "SCALY_NO_UNROLL"
}
emitc.verbatim ""
cdecl.if_defined "__GNUC__" {
  cdecl.comment "GNU C"
}
