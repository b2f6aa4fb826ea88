// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// What the C printer relies on, checked by the verifiers: names are C
// identifiers, comments cannot end early, a macro is one line, a table or a
// struct is never empty, a struct holds only fields and comments, a field
// has a C type, an alignment is a power of two, an include names a file.

// expected-error @+1 {{text contains '*/', which would end the comment early}}
cdecl.comment "a */ b"

// -----

// expected-error @+1 {{macro name 'a b' is not a C identifier}}
cdecl.define "a b" = 1

// -----

// expected-error @+1 {{macro name '1x' is not a C identifier}}
cdecl.ifndef "1x" {
}

// -----

// expected-error @+1 {{value must be one non-empty line}}
cdecl.define "A" = "x\ny"

// -----

// expected-error @+1 {{table has no values: '{ }' is no ISO C initializer}}
cdecl.define "T" = array<i32>

// -----

// expected-error @+1 {{include 'a>b' is not a file name}}
cdecl.include standard "a>b"

// -----

// expected-error @+1 {{namespace name 'a::b' is not a C identifier}}
cdecl.namespace "a::b" {
}

// -----

// expected-error @+1 {{type must be an integer type C spells (i1, i32, i64, ui32, ui64) or an opaque type, got 'f64'}}
cdecl.constexpr "N" : f64 = 1

// -----

// expected-error @+1 {{has no field (ISO C has no empty structs)}}
cdecl.struct "s" {
  cdecl.comment "x: no values"
}

// -----

// expected-error @+1 {{alignment must be a positive power of two, got 12}}
cdecl.struct "s" attributes {alignment = 12 : i64} {
  cdecl.field "x" : f64
}

// -----

cdecl.struct "s" {
  cdecl.field "x" : f64
  // expected-error @+1 {{cannot be a member of a cdecl.struct (only cdecl.field and cdecl.comment)}}
  cdecl.define "Y" = 1
}

// -----

cdecl.struct "s" {
  // expected-error @+1 {{type 'tensor<2xf64>' has no C spelling}}
  cdecl.field "x" : tensor<2xf64>
}

// -----

cdecl.struct "s" {
  // expected-error @+1 {{field name 'x[2]' is not a C identifier}}
  cdecl.field "x[2]" : f64
}

// -----

// The printer has no spelling for an 8-bit integer or a half float.
cdecl.struct "s" {
  // expected-error @+1 {{type 'i8' has no C spelling}}
  cdecl.field "x" : i8
}

// -----

cdecl.struct "s" {
  // expected-error @+1 {{type 'f16' has no C spelling}}
  cdecl.field "x" : f16
}

// -----

// expected-error @+1 {{type must be an integer type C spells (i1, i32, i64, ui32, ui64) or an opaque type, got 'i16'}}
cdecl.constexpr "N" : i16 = 1

// -----

// expected-error @+1 {{alignment must be a positive power of two, got -9223372036854775808}}
cdecl.struct "s" attributes {alignment = -9223372036854775808 : i64} {
  cdecl.field "x" : f64
}

// -----

// expected-error @+1 {{constant name 'a b' is not a C identifier}}
cdecl.constexpr "a b" : i32 = 1

// -----

// expected-error @+1 {{struct name 's-t' is not a C identifier}}
cdecl.struct "s-t" {
  cdecl.field "x" : f64
}

// -----

// expected-error @+1 {{macro name 'A-B' is not a C identifier}}
cdecl.ifndef "A-B" {
}

// -----

// expected-error @+1 {{'cdecl.field' op expects parent op 'cdecl.struct'}}
cdecl.field "x" : f64

// -----

// expected-error @+1 {{macro name 'defined(x)' is not a C identifier}}
cdecl.if_defined "defined(x)" {
  cdecl.define "X"
}

// -----

cdecl.if_defined "__clang__" {
  cdecl.define "X"
} else {
  // A function declared here would be in no symbol table.
  // expected-error @+1 {{'emitc.func' op cannot be in a cdecl.if_defined (it holds definitions, not declarations of symbols)}}
  emitc.func private @f()
}

// -----

// expected-error @+1 {{function-like macro 'TWICE' needs a body string}}
cdecl.define "TWICE" params ["x"]

// -----

// expected-error @+1 {{macro parameter}}
cdecl.define "F" params ["...", "x"] = "x"
