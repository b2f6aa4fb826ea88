// RUN: scaly-opt %s --split-input-file --scaly-merge-entry-modules -verify-diagnostics
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

// -----

// Nor can an earlier module's declaration give way to an entry of its name.
module {
  module {
    prog.extern @e : (f64) -> f64
    expr.func @f(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      expr.return %x : tensor<f64>
    }
  }
  module {
    // expected-error @below {{is an entry named like 'e', which an earlier entry's module declares}}
    expr.func @e(%x: tensor<f64>) -> tensor<f64> attributes {arg_names = ["x"], res_names = ["y"], entry} {
      expr.return %x : tensor<f64>
    }
  }
}
