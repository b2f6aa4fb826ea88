// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// The cdecl statements sit where C's meaning is the op's: inside a function,
// a break in the cdecl.loop it leaves (no emitc.for in between, whose loop C
// would leave instead), an early return with at least one condition and
// the function's result type (none from a void function). A compound
// literal has elements, scalars, and a type name (a typedef, one identifier).

// expected-error @+1 {{is a statement: it must be inside an emitc.func}}
cdecl.loop {
}

// -----

emitc.func @f() {
  // expected-error @+1 {{must be inside a cdecl.loop}}
  cdecl.break
  emitc.return
}

// -----

emitc.func @f(%n: index) {
  %c0 = "emitc.constant"() <{value = 0 : index}> : () -> index
  %c1 = "emitc.constant"() <{value = 1 : index}> : () -> index
  cdecl.loop {
    emitc.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{must be inside a cdecl.loop, through emitc.if only (it would leave the innermost loop, here emitc.for)}}
      cdecl.break
    }
  }
  emitc.return
}

// -----

emitc.func @f() -> !emitc.opaque<"int"> {
  %v = emitc.literal "1" : !emitc.opaque<"int">
  // expected-error @+1 {{has no condition}}
  cdecl.return_if -> %v : !emitc.opaque<"int">
  emitc.return %v : !emitc.opaque<"int">
}

// -----

emitc.func @f(%c: i1) -> !emitc.opaque<"int"> {
  %v = emitc.literal "1" : !emitc.opaque<"int">
  // expected-error @+1 {{returns no value from a function returning '!emitc.opaque<"int">'}}
  cdecl.return_if %c
  emitc.return %v : !emitc.opaque<"int">
}

// -----

emitc.func @f(%c: i1) {
  %v = emitc.literal "1" : !emitc.opaque<"int">
  // expected-error @+1 {{returns a value from a function returning void}}
  cdecl.return_if %c -> %v : !emitc.opaque<"int">
  emitc.return
}

// -----

emitc.func @f(%c: i1) -> i32 {
  %v = emitc.literal "1" : !emitc.opaque<"int">
  // expected-error @+1 {{returns '!emitc.opaque<"int">' from a function returning 'i32'}}
  cdecl.return_if %c -> %v : !emitc.opaque<"int">
  %r = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  emitc.return %r : i32
}

// -----

// expected-error @+1 {{is a statement: it must be inside an emitc.func}}
"cdecl.return_if"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> ()

// -----

// expected-error @+1 {{is an expression: it must be inside an emitc.func}}
"cdecl.compound_literal"() : () -> !emitc.opaque<"double2">

// -----

emitc.func @f() {
  // expected-error @+1 {{has no elements: '{}' is no ISO C initializer}}
  %v = cdecl.compound_literal : () -> !emitc.opaque<"double2">
  emitc.return
}

// -----

emitc.func @f(%a: f64) {
  // expected-error @+1 {{type 'f64' is not a type name (an !emitc.opaque typedef)}}
  %v = cdecl.compound_literal %a, %a : (f64, f64) -> f64
  emitc.return
}

// -----

emitc.func @f(%a: f64) {
  // expected-error @+1 {{type '!emitc.opaque<"unsigned long">' is not a type name (an !emitc.opaque typedef)}}
  %v = cdecl.compound_literal %a, %a : (f64, f64) -> !emitc.opaque<"unsigned long">
  emitc.return
}

// -----

emitc.func @f(%p: !emitc.ptr<f64>) {
  // expected-error @+1 {{element type '!emitc.ptr<f64>' is no scalar C spells}}
  %v = cdecl.compound_literal %p, %p : (!emitc.ptr<f64>, !emitc.ptr<f64>) -> !emitc.opaque<"double2">
  emitc.return
}
