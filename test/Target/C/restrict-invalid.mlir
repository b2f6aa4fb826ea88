// RUN: not scaly-translate --emit-c --split-input-file %s 2>&1 | FileCheck %s
//
// The printer refuses `scaly.restrict` on an argument that is not a
// pointer. (Loop hints are ops, checked by their verifiers:
// test/Dialect/CDecl/invalid-loop-hints.mlir.)

// CHECK: error: 'emitc.func' op has scaly.restrict on argument 0, which is not a pointer
emitc.func @restricted(%n: i64 {scaly.name = "n", scaly.restrict}) attributes {specifiers = ["static"]} {
  emitc.return
}

// -----

// A declaration is checked as a definition is.
// CHECK: error: 'emitc.func' op has scaly.restrict on argument 0, which is not a pointer
emitc.func private @declared(i64 {scaly.restrict}) attributes {specifiers = ["static"]}
