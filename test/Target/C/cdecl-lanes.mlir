// RUN: scaly-translate --emit-c %s | FileCheck %s --match-full-lines
//
// The cdecl ops of a module's lane support print as C's preprocessor and
// GNU C write them: a conditional whose else body is one conditional as its
// #elif (an #if on a macro compared with an integer, or on [!]defined(NAME),
// alike), #error with
// its message quoted, typedefs with the GNU attributes given (none: a plain
// typedef; a size in bytes times a macro), function-like macros (cdecl.define with params) whose body
// lines continue with ` \` (an empty first line starts the body on the
// next), prototypes of parameter types only.

// CHECK:      #if defined(__AVX512F__)
// CHECK-NEXT: #define SCALY_LANES 8
// CHECK-NEXT: #elif defined(__AVX2__)
// CHECK-NEXT: #define SCALY_LANES 4
// CHECK-NEXT: #else
// CHECK-NEXT: #define SCALY_LANES 2
// CHECK-NEXT: #endif
// CHECK-NEXT: typedef double doubleN __attribute__((vector_size(8 * SCALY_LANES), aligned(8), may_alias));
// CHECK-NEXT: typedef long long scaly_m64x4 __attribute__((vector_size(32)));
// CHECK-NEXT: typedef float real;
// CHECK-NEXT: #if !defined(__x86_64__)
// CHECK-NEXT: #error "vector_libm=glibc width auto requires __x86_64__ and -lmvec"
// CHECK-NEXT: #endif
// CHECK-NEXT: scaly_f64x4 _ZGVdN4vv_pow(scaly_f64x4, scaly_f64x4);
// CHECK-NEXT: #if SCALY_LANES == 8
// CHECK-NEXT: scaly_f64xN _ZGVeN8v_exp(scaly_f64xN);
// CHECK-NEXT: #define scaly_exp_f64xN(x) _ZGVeN8v_exp(x)
// CHECK-NEXT: #elif SCALY_LANES == 4
// CHECK-NEXT: #define scaly_exp_f64xN(x) _ZGVdN4v_exp(x)
// CHECK-NEXT: #else
// CHECK-NEXT: #define scaly_exp_f64xN(x) __extension__({ \
// CHECK-NEXT:   scaly_f64xN scaly_x_ = (x); \
// CHECK-NEXT:   scaly_x_; })
// CHECK-NEXT: #endif
// CHECK-EMPTY:
// CHECK-NEXT: #define scaly_select_f64x4(m, a, b) \
// CHECK-NEXT:   ((scaly_f64x4)(((m) & (scaly_m64x4)(a)) | (~(m) & (scaly_m64x4)(b))))
// CHECK-NEXT: #if SCALY_LANES == 2
// CHECK-NEXT: #define TWO
// CHECK-NEXT: #else
// CHECK-NEXT: #if defined(X)
// CHECK-NEXT: #define X_AND_NOT_TWO
// CHECK-NEXT: #endif
// CHECK-NEXT: #define NOT_TWO
// CHECK-NEXT: #endif
// CHECK-NEXT: #if W != 1
// CHECK-NEXT: #define NE
// CHECK-NEXT: #elif W < 2
// CHECK-NEXT: #define LT
// CHECK-NEXT: #elif W <= -3
// CHECK-NEXT: #define LE
// CHECK-NEXT: #elif W > 4
// CHECK-NEXT: #define GT
// CHECK-NEXT: #elif !defined(Y)
// CHECK-NEXT: #define NY
// CHECK-NEXT: #elif W >= 5
// CHECK-NEXT: #define GE
// CHECK-NEXT: #endif
// CHECK-NOT:  {{.}}
cdecl.if_defined "__AVX512F__" {
  cdecl.define "SCALY_LANES" = 8
} else {
  cdecl.if_defined "__AVX2__" {
    cdecl.define "SCALY_LANES" = 4
  } else {
    cdecl.define "SCALY_LANES" = 2
  }
}
cdecl.typedef "doubleN" = f64 {vector_size = 8 : i64, vector_size_times = "SCALY_LANES", aligned = 8 : i64, may_alias}
cdecl.typedef "scaly_m64x4" = !emitc.opaque<"long long"> {vector_size = 32 : i64}
cdecl.typedef "real" = f32
cdecl.if_defined not "__x86_64__" {
  cdecl.error "vector_libm=glibc width auto requires __x86_64__ and -lmvec"
}
cdecl.prototype "_ZGVdN4vv_pow" : (!emitc.opaque<"scaly_f64x4">, !emitc.opaque<"scaly_f64x4">) -> !emitc.opaque<"scaly_f64x4">
cdecl.if "SCALY_LANES" eq 8 {
  cdecl.prototype "_ZGVeN8v_exp" : (!emitc.opaque<"scaly_f64xN">) -> !emitc.opaque<"scaly_f64xN">
  cdecl.define "scaly_exp_f64xN" params ["x"] = "_ZGVeN8v_exp(x)"
} else {
  cdecl.if "SCALY_LANES" eq 4 {
    cdecl.define "scaly_exp_f64xN" params ["x"] = "_ZGVdN4v_exp(x)"
  } else {
    cdecl.define "scaly_exp_f64xN" params ["x"] = "__extension__({\n  scaly_f64xN scaly_x_ = (x);\n  scaly_x_; })"
  }
}
emitc.verbatim ""
cdecl.define "scaly_select_f64x4" params ["m", "a", "b"] = "\n  ((scaly_f64x4)(((m) & (scaly_m64x4)(a)) | (~(m) & (scaly_m64x4)(b))))"
// An else body of more than one op is no #elif.
cdecl.if "SCALY_LANES" eq 2 {
  cdecl.define "TWO"
} else {
  cdecl.if_defined "X" {
    cdecl.define "X_AND_NOT_TWO"
  }
  cdecl.define "NOT_TWO"
}
// Every comparison; a negated defined as an #elif.
cdecl.if "W" ne 1 {
  cdecl.define "NE"
} else {
  cdecl.if "W" lt 2 {
    cdecl.define "LT"
  } else {
    cdecl.if "W" le -3 {
      cdecl.define "LE"
    } else {
      cdecl.if "W" gt 4 {
        cdecl.define "GT"
      } else {
        cdecl.if_defined not "Y" {
          cdecl.define "NY"
        } else {
          cdecl.if "W" ge 5 {
            cdecl.define "GE"
          }
        }
      }
    }
  }
}
