// RUN: scaly-opt %s -split-input-file -verify-diagnostics

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.load' op a stride needs a lane vector result, got 'f64'}}
  %v = prog.load %x[0] {stride = 2 : i64} : <const f64> -> f64
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.load' op loads 'vector<4xf32>' through '!prog.ptr<const f64>'}}
  %v = prog.load %x[0] : <const f64> -> vector<4xf32>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 8>} {
  %s = arith.constant 1.0 : f64
  %v = vector.broadcast %s : f64 to vector<4xf64>
  // expected-error @+1 {{'prog.store' op stores lane vectors of one type or scalars, not a mix of 'f64' and 'vector<4xf64>'}}
  prog.store %s, %v to %y[0] : f64, vector<4xf64> into <f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 8>} {
  %s = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op a stride needs lane vector values}}
  prog.store %s to %y[0] {stride = 2 : i64} : f64 into <f64>
  prog.return
}
