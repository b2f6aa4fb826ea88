// RUN: scaly-opt %s --scaly-merge-entry-modules -verify-diagnostics
//
// An external function declared differently by two entries' modules cannot
// be renamed apart (it names something outside): an error.

module {
  module {
    prog.extern @lib_fn : (f64) -> f64
  }
  module {
    // expected-error @below {{declares 'lib_fn' differently from an earlier entry's module}}
    prog.extern @lib_fn : (f32) -> f32
  }
}
