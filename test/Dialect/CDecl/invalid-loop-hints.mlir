// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// A loop hint prints right before the statement after it, and a loop
// pragma must come right before its loop: so a hint sits in a function and
// is followed, through other hints only, by an emitc.for. A conditional in
// a function holds hints only. A pragma's directive is identifiers, each
// option one token; a macro line names an identifier.

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  // expected-error @+1 {{is a loop hint: it must be followed by an emitc.for (through other loop hints only)}}
  cdecl.macro_line "SCALY_NO_UNROLL"
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f() {
  // expected-error @+1 {{is a loop hint: it must be followed by an emitc.for (through other loop hints only)}}
  cdecl.pragma "clang loop" ["unroll(disable)"]
  emitc.return
}

// -----

emitc.func @f() {
  // expected-error @+1 {{is a loop hint: it must be followed by an emitc.for (through other loop hints only)}}
  cdecl.if_defined "__clang__" {
    cdecl.pragma "clang loop" ["unroll(disable)"]
  }
  cdecl.loop {
    cdecl.break
  }
  emitc.return
}

// -----

// expected-error @+1 {{is a loop hint: it must be inside an emitc.func, before an emitc.for}}
cdecl.macro_line "SCALY_NO_UNROLL"

// -----

// expected-error @+1 {{is a loop hint: it must be inside an emitc.func, before an emitc.for}}
cdecl.pragma "once" ["x"]

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  cdecl.if_defined "__clang__" {
    // expected-error @+1 {{cannot be in a cdecl.if_defined inside a function (it holds loop hints only: cdecl.pragma, cdecl.macro_line)}}
    cdecl.define "X"
  }
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  // expected-error @+1 {{directive 'clang  loop' is not identifiers apart by single spaces}}
  cdecl.pragma "clang  loop" ["unroll(disable)"]
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  // expected-error @+1 {{option 'unroll(disable)}}
  cdecl.pragma "clang loop" ["unroll(disable)\n#define X"]
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  // expected-error @+1 {{option 'a b' is not one token}}
  cdecl.pragma "clang loop" ["a b"]
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  // expected-error @+1 {{has no options}}
  cdecl.pragma "clang loop" []
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}

// -----

emitc.func @f(%n: i64) {
  %zero = "emitc.constant"() <{value = 0 : i64}> : () -> i64
  %one = "emitc.constant"() <{value = 1 : i64}> : () -> i64
  // expected-error @+1 {{macro name 'NO UNROLL' is not a C identifier}}
  cdecl.macro_line "NO UNROLL"
  emitc.for %i = %zero to %n step %one : i64 {
  }
  emitc.return
}
