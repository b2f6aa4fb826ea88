// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// What the printer relies on for the lane support's ops: a condition names
// a macro (an identifier) compared by a keyword, no free text; a
// conditional holds no symbol, an #error message cannot end its
// string, a typedef names an identifier of a type C spells with a positive
// vector size and a power-of-two alignment, a function-like macro's body
// is not empty and never continued twice (an object-like one is one line),
// a prototype has C types and at most one result.

// expected-error @+1 {{macro name 'A || B' is not a C identifier}}
cdecl.if "A || B" eq 1 {
  cdecl.define "X"
}

// -----

// expected-error @+1 {{invalid comparison attribute specification: "=="}}
cdecl.if "A" "==" 1 {
  cdecl.define "X"
}

// -----

// expected-error @+1 {{macro name 'defined(X)' is not a C identifier}}
cdecl.if_defined not "defined(X)" {
  cdecl.define "X"
}

// -----

cdecl.if "X" eq 1 {
  // expected-error @+1 {{cannot be in a cdecl.if (it holds definitions, not declarations of symbols)}}
  emitc.func private @f(f64) -> f64
}

// -----

// expected-error @+1 {{message must be one line without '"' or '\', got 'say "no"'}}
cdecl.error "say \"no\""

// -----

// expected-error @+1 {{type name 'double 4' is not a C identifier}}
cdecl.typedef "double 4" = f64

// -----

// expected-error @+1 {{type 'i8' has no C spelling}}
cdecl.typedef "byte4" = i8 {vector_size = 4 : i64}

// -----

// expected-error @+1 {{vector_size must be positive, got 0}}
cdecl.typedef "double0" = f64 {vector_size = 0 : i64}

// -----

// expected-error @+1 {{vector_size_times macro '8 * N' is not a C identifier}}
cdecl.typedef "doubleN" = f64 {vector_size = 8 : i64, vector_size_times = "8 * N"}

// -----

// expected-error @+1 {{has vector_size_times without vector_size}}
cdecl.typedef "doubleN" = f64 {vector_size_times = "SCALY_LANES"}

// -----

// A size as free text is no longer taken.
// expected-error @+1 {{attribute 'vector_size' failed to satisfy constraint: 64-bit signless integer attribute}}
cdecl.typedef "doubleN" = f64 {vector_size = "8 * SCALY_LANES"}

// -----

// expected-error @+1 {{aligned must be a positive power of two, got 12}}
cdecl.typedef "double4" = f64 {vector_size = 32 : i64, aligned = 12 : i64}

// -----

// expected-error @+1 {{function-like macro 'f' has an empty body}}
cdecl.define "f" params ["x"] = "\n "

// -----

// expected-error @+1 {{body line 'do { \' ends in a backslash}}
cdecl.define "f" params ["x"] = "do { \\\n} while (0)"

// -----

// An object-like macro stays one line.
// expected-error @+1 {{value must be one non-empty line}}
cdecl.define "F" = "do {\n} while (0)"

// -----

// expected-error @+1 {{function name 'a-b' is not a C identifier}}
cdecl.prototype "a-b" : (f64) -> f64

// -----

// expected-error @+1 {{has 2 results; a C function has one}}
cdecl.prototype "f" : (f64) -> (f64, f64)

// -----

// expected-error @+1 {{type 'tensor<2xf64>' has no C spelling}}
cdecl.prototype "f" : (tensor<2xf64>) -> f64
