// RUN: scaly-opt %s -split-input-file -scaly-program-to-emitc -verify-diagnostics
//
// C's < <= > >= == on floats are false when an operand is NaN (the ordered
// predicates) and != is true (une); the other float predicates have no one C
// operator. C's integers here are int32_t/int64_t, compared signed: unsigned
// predicates are taken on bools (i1) only. Both are refused by name, not
// printed as a C operator that means something else; the conversion then
// names the op it could not convert.

prog.proc @ordered_ne(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 1>} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = prog.load %x[1] : !prog.ptr<const f64> -> f64
  // expected-error @+2 {{predicate 'one' has no C operator}}
  // expected-error @+1 {{failed to legalize operation 'arith.cmpf'}}
  %c = arith.cmpf one, %a, %b : f64
  %r = arith.select %c, %a, %b : f64
  prog.store %r to %y[0] : f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @unsigned_i64(%x: !prog.ptr<const i64>, %y: !prog.ptr<i64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 1>} {
  %a = prog.load %x[0] : !prog.ptr<const i64> -> i64
  %b = prog.load %x[1] : !prog.ptr<const i64> -> i64
  // expected-error @+2 {{unsigned predicate 'ult' on a signed C integer}}
  // expected-error @+1 {{failed to legalize operation 'arith.cmpi'}}
  %c = arith.cmpi ult, %a, %b : i64
  %r = arith.select %c, %a, %b : i64
  prog.store %r to %y[0] : i64 into !prog.ptr<i64>
  prog.return
}
