// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// A loop's hints parse and print: a pragma (a directive, then its options
// in order), a macro line, and a conditional of pragmas inside a function,
// each right before its emitc.for, several in a row.

// CHECK-LABEL: emitc.func @hinted(
// CHECK:         cdecl.macro_line "SCALY_NO_UNROLL"
// CHECK-NEXT:    emitc.for
// CHECK:         cdecl.if_defined "__clang__" {
// CHECK-NEXT:      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      cdecl.pragma "GCC unroll" ["1"]
// CHECK-NEXT:    }
// CHECK-NEXT:    cdecl.macro_line "SCALY_NO_UNROLL"
// CHECK-NEXT:    cdecl.if_defined not "__GNUC__" {
// CHECK-NEXT:      cdecl.macro_line "NO_VECTORIZE"
// CHECK-NEXT:    }
// CHECK-NEXT:    emitc.for
emitc.func @hinted(%n: i64) attributes {specifiers = ["static"]} {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  cdecl.macro_line "SCALY_NO_UNROLL"
  emitc.for %i = %zero to %n step %one : i64 {
  }
  cdecl.if_defined "__clang__" {
    cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
  } else {
    cdecl.pragma "GCC unroll" ["1"]
  }
  cdecl.macro_line "SCALY_NO_UNROLL"
  cdecl.if_defined not "__GNUC__" {
    cdecl.macro_line "NO_VECTORIZE"
  }
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}
