// RUN: scaly-opt %s --scaly-program-to-emitc -verify-diagnostics
//
// An op no pattern of the body conversion converts (Patterns.h) is refused
// by name (the full conversion leaves no op that is not EmitC).
prog.proc @g(%x: !prog.ptr<const i64>, %y: !prog.ptr<i64>, %w: !prog.ptr<i64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  %i = prog.load %x[0] : !prog.ptr<const i64> -> i64
  // expected-error @+1 {{failed to legalize operation 'arith.shli'}}
  %s = arith.shli %i, %i : i64
  prog.store %s to %y[0] : i64 into !prog.ptr<i64>
  prog.return
}
