// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// The cdecl ops of a module's lane support parse and print: #if on a
// macro compared with an integer (every comparison) with an #elif chain as
// nested else bodies, #if !defined, #error, typedefs with and without GNU
// attributes (a vector size in bytes, or in bytes times a macro),
// function-like macros (cdecl.define with params, a body of
// several lines among them), prototypes that are no symbol.

// CHECK:      cdecl.typedef "double4" = f64 {aligned = 8 : i64, may_alias, vector_size = 32 : i64}
// CHECK-NEXT: cdecl.typedef "scaly_m64xN" = !emitc.opaque<"long long"> {vector_size = 8 : i64, vector_size_times = "SCALY_LANES"}
// CHECK-NEXT: cdecl.typedef "real" = f64
// CHECK-NEXT: cdecl.if_defined not "__AVX2__" {
// CHECK-NEXT:   cdecl.error "needs AVX2"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "SCALY_LANES" eq 8 {
// CHECK-NEXT:   cdecl.prototype "_ZGVeN8v_exp" : (!emitc.opaque<"scaly_f64xN">) -> !emitc.opaque<"scaly_f64xN">
// CHECK-NEXT:   cdecl.define "scaly_exp_f64xN" params ["x"] = "_ZGVeN8v_exp(x)"
// CHECK-NEXT: } else {
// CHECK-NEXT:   cdecl.if "SCALY_LANES" eq 4 {
// CHECK-NEXT:     cdecl.define "scaly_exp_f64xN" params ["x"] = "exp4(x)"
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "W" ne 1 {
// CHECK-NEXT:   cdecl.define "NE"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "W" lt 2 {
// CHECK-NEXT:   cdecl.define "LT"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "W" le -3 {
// CHECK-NEXT:   cdecl.define "LE"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "W" gt 4 {
// CHECK-NEXT:   cdecl.define "GT"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.if "W" ge 5 {
// CHECK-NEXT:   cdecl.define "GE"
// CHECK-NEXT: }
// CHECK-NEXT: cdecl.define "sel" params ["m", "a", "b"] = "\0A  ((m) ? (a) : (b))"
cdecl.typedef "double4" = f64 {vector_size = 32 : i64, aligned = 8 : i64, may_alias}
cdecl.typedef "scaly_m64xN" = !emitc.opaque<"long long"> {vector_size = 8 : i64, vector_size_times = "SCALY_LANES"}
cdecl.typedef "real" = f64
cdecl.if_defined not "__AVX2__" {
  cdecl.error "needs AVX2"
}
cdecl.if "SCALY_LANES" eq 8 {
  cdecl.prototype "_ZGVeN8v_exp" : (!emitc.opaque<"scaly_f64xN">) -> !emitc.opaque<"scaly_f64xN">
  cdecl.define "scaly_exp_f64xN" params ["x"] = "_ZGVeN8v_exp(x)"
} else {
  cdecl.if "SCALY_LANES" eq 4 {
    cdecl.define "scaly_exp_f64xN" params ["x"] = "exp4(x)"
  }
}
cdecl.if "W" ne 1 {
  cdecl.define "NE"
}
cdecl.if "W" lt 2 {
  cdecl.define "LT"
}
cdecl.if "W" le -3 {
  cdecl.define "LE"
}
cdecl.if "W" gt 4 {
  cdecl.define "GT"
}
cdecl.if "W" ge 5 {
  cdecl.define "GE"
}
cdecl.define "sel" params ["m", "a", "b"] = "\n  ((m) ? (a) : (b))"
