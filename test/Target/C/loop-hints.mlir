// RUN: scaly-translate --emit-c %s | FileCheck %s --match-full-lines
// RUN: scaly-translate --emit-c --line-comments %s | FileCheck %s --check-prefix=COMMENTS
//
// A loop's hints print right before the loop, in order: a macro line
// indented with the statements (no semicolon), a conditional's and a
// pragma's lines at the margin, an else body and a negated defined as
// anywhere. They belong to the loop: with line comments the loop's origin
// comment comes above them, and they add no origin of their own. They are
// no statement for the printer's order of reads and writes: a read before
// them is still printed inside the loop's bound.

// CHECK:      static void hinted(const int64_t* n) {
// CHECK-NEXT:   SCALY_NO_UNROLL
// CHECK-NEXT:   for (long long i = 0; i < n[0]; ++i) {
// CHECK-NEXT:   }
// CHECK-NEXT: #if defined(__clang__)
// CHECK-NEXT: #pragma clang loop vectorize(disable) unroll(disable)
// CHECK-NEXT: #else
// CHECK-NEXT: #pragma GCC unroll 1
// CHECK-NEXT: #endif
// CHECK-NEXT:   SCALY_NO_UNROLL
// CHECK-NEXT: #if !defined(__GNUC__)
// CHECK-NEXT:   NO_VECTORIZE
// CHECK-NEXT: #endif
// CHECK-NEXT:   for (long long j = 0; j < 4; ++j) {
// CHECK-NEXT:     if (j > 1) {
// CHECK-NEXT: #if defined(__clang__)
// CHECK-NEXT: #pragma clang loop unroll(disable)
// CHECK-NEXT: #endif
// CHECK-NEXT:       for (long long k = 0; k < j; ++k) {
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }

// COMMENTS:      static void hinted(const int64_t* n) {
// COMMENTS-NEXT:   /* {{.*}}m.py:3 */
// COMMENTS-NEXT:   SCALY_NO_UNROLL
// COMMENTS-NEXT:   for (long long i = 0; i < n[0]; ++i) {
// COMMENTS-NEXT:   }
// COMMENTS-NEXT:   /* {{.*}}m.py:5 */
// COMMENTS-NEXT: #if defined(__clang__)
emitc.func @hinted(%n: !emitc.ptr<i64> {scaly.name = "n", scaly.const}) attributes {specifiers = ["static"]} {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  %four = "emitc.constant"() <{value = 4 : i64}> : () -> i64
  %count = emitc.subscript %n[%zero] : (!emitc.ptr<i64>, i64) -> i64 loc("m.py":3:0)
  cdecl.macro_line "SCALY_NO_UNROLL" loc("m.py":4:0)
  emitc.for %i = %zero to %count step %one : i64 {
  } {scaly.name = "i"} loc("m.py":3:0)
  cdecl.if_defined "__clang__" {
    cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
  } else {
    cdecl.pragma "GCC unroll" ["1"]
  } loc("m.py":4:0)
  cdecl.macro_line "SCALY_NO_UNROLL"
  cdecl.if_defined not "__GNUC__" {
    cdecl.macro_line "NO_VECTORIZE"
  }
  emitc.for %j = %zero to %four step %one : i64 {
    %more = emitc.cmp gt, %j, %one : (i64, i64) -> i1
    emitc.if %more {
      cdecl.if_defined "__clang__" {
        cdecl.pragma "clang loop" ["unroll(disable)"]
      }
      emitc.for %k = %zero to %j step %one : i64 {
      } {scaly.name = "k"}
    }
  } {scaly.name = "j"} loc("m.py":5:0)
  emitc.return
}
