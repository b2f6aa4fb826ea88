// RUN: not scaly-translate --emit-c --split-input-file %s 2>&1 | FileCheck %s
//
// The printer refuses a global whose initial value has no C form here (an
// elements attribute of a type it cannot spell) and one whose type it
// cannot spell.

// CHECK: error: 'emitc.global' op has no C form (its type or initial value)
emitc.global static const @table : !emitc.array<2xi8> = dense<[1, 2]>

// -----

// CHECK: error: 'emitc.global' op has no C form (its type or initial value)
emitc.global static @flag : i8 = 1

// -----

// CHECK: error: 'emitc.global' op has no C form (its type or initial value)
emitc.global static @work : !emitc.array<4xf64> {scaly.align = "64"}
