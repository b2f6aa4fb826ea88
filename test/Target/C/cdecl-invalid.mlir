// RUN: not scaly-translate --emit-c --split-input-file %s 2>&1 | FileCheck %s
//
// Inside a declaration's region the printer refuses what it refuses at a
// module's top level: an op with no file-scope form (a constant), a global
// of a type it cannot spell. A declaration is no statement in a function,
// and emitc.verbatim is a blank line, never C text.

// CHECK: error: 'emitc.constant' op cannot be printed at the top level of a C module
cdecl.extern_c {
  %0 = "emitc.constant"() <{value = 1 : i32}> : () -> i32
}

// -----

// CHECK: error: 'emitc.global' op has no C form (its type or initial value)
cdecl.ifndef "X" {
  emitc.global static const @table : !emitc.array<2xi8> = dense<[1, 2]>
}

// -----

// Either body of a conditional is refused the same.
// CHECK: error: 'emitc.constant' op cannot be printed at the top level of a C module
cdecl.if_defined "__clang__" {
  cdecl.define "X"
} else {
  %0 = "emitc.constant"() <{value = 1 : i32}> : () -> i32
}

// -----

// A declaration is no statement: inside a function the printer refuses it.
// CHECK: error: 'cdecl.typedef' op has no C statement form
emitc.func @f() {
  cdecl.typedef "real" = f64
  emitc.return
}

// -----

// emitc.verbatim is a blank line only: C text in it would be meaning only
// the printer sees (a cdecl op says it instead).
// CHECK: error: 'emitc.verbatim' op holds C text; Scaly's C printer prints emitc.verbatim only as a blank line ("")
emitc.verbatim "#define X 1"
