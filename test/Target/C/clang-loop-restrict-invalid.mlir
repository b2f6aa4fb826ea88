// RUN: not scaly-translate --emit-c --split-input-file %s 2>&1 | FileCheck %s
//
// The printer refuses Clang loop hints that are not a string and
// `scaly.restrict` on an argument that is not a pointer.

// CHECK: error: 'emitc.for' op has a scaly.clang_loop that is not a string
emitc.func @hints(%n: i64 {scaly.name = "n"}) attributes {specifiers = ["static"]} {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  emitc.for %i = %zero to %n step %one : i64 {
  } {scaly.clang_loop = 4 : i64}
  emitc.return
}

// -----

// CHECK: error: 'emitc.func' op has scaly.restrict on argument 0, which is not a pointer
emitc.func @restricted(%n: i64 {scaly.name = "n", scaly.restrict}) attributes {specifiers = ["static"]} {
  emitc.return
}

// -----

// A declaration is checked as a definition is.
// CHECK: error: 'emitc.func' op has scaly.restrict on argument 0, which is not a pointer
emitc.func private @declared(i64 {scaly.restrict}) attributes {specifiers = ["static"]}
