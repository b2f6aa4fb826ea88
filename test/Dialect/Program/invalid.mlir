// RUN: scaly-opt %s -split-input-file -verify-diagnostics
//
// Verifier errors of the program dialect: procedure signatures (pointer
// count vs input/output sizes, names, const inputs, writable outputs),
// loads/stores (types, read-only pointers, void pointers), offsets, windows,
// loops and calls, with negative sizes, steps, offsets and workspaces
// rejected (signed attribute values).

// expected-error @+1 {{'prog.proc' op takes 2 pointers but its 1 inputs, 1 outputs and workspace need 3}}
prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>) attributes {arg_names = ["x", "y"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op needs one name per argument (3), got 2}}
prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op input #0 must be a read-only pointer (!prog.ptr<const T>)}}
prog.proc @p(%x: !prog.ptr<f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op argument #1 is written and must not be const}}
prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op argument #2 is written and must not be const}}
prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<const f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op argument #0 must be a !prog.ptr, got 'f64'}}
prog.proc @p(%x: f64, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op returns nothing: outputs are written through pointers}}
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) -> f64 attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

// expected-error @+1 {{pointer element must be f64, f32, i32, i64, i1 or none, got 'f16'}}
prog.proc @p(%y: !prog.ptr<f16>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.load' op loads 'f32' through '!prog.ptr<const f64>'}}
  %0 = prog.load %x[0] : !prog.ptr<const f64> -> f32
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64>} {
  %0 = prog.load %x[0] : !prog.ptr<const f64> -> f64
  // expected-error @+1 {{'prog.store' op cannot store through read-only pointer '!prog.ptr<const f64>'}}
  "prog.store"(%0, %x) <{offset = 0 : i64}> : (f64, !prog.ptr<const f64>) -> ()
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 2>} {
  %c = arith.constant 1 : i32
  // expected-error @+1 {{'prog.store' op stores 'i32' through '!prog.ptr<f64>'}}
  "prog.store"(%c, %y) <{offset = 0 : i64}> : (i32, !prog.ptr<f64>) -> ()
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 2>} {
  // expected-error @+1 {{'prog.store' op needs at least one value}}
  "prog.store"(%y) <{offset = 0 : i64}> : (!prog.ptr<f64>) -> ()
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.offset' op result type '!prog.ptr<f64>' must be the base type '!prog.ptr<const f64>' or its const version}}
  %0 = prog.offset %x {bias = 1} : !prog.ptr<const f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.window' op size must be positive, got 0}}
  %0 = prog.window %w size 0 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.window' op must be a writable window of a writable workspace}}
  %0 = prog.window %w size 2 : !prog.ptr<f64> -> !prog.ptr<const f64>
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.window' op must be a writable window of a writable workspace}}
  %0 = prog.window %x size 2 : !prog.ptr<const f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.window' op offset must be -1 (unplanned) or a multiple of 64 bytes}}
  %0 = prog.window %w size 2 {offset = -2} : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.window' op offset must be -1 (unplanned) or a multiple of 64 bytes}}
  %0 = prog.window %w size 2 {offset = 32} : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<none>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.load' op loads 'f64' through '!prog.ptr<none>'}}
  %0 = prog.load %w[0] : !prog.ptr<none> -> f64
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.call' op calls 'nowhere_raw', which is not a prog.proc}}
  prog.call @nowhere_raw(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @g_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.return
}
prog.proc @p(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.call' op operand types do not match the arguments of @g_raw}}
  prog.call @g_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @g_raw(%y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  prog.return
}
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.call' op operand types do not match the arguments of @g_raw}}
  prog.call @g_raw(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @main(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, entry} {
  prog.return
}
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.call' op cannot call the entry procedure @main}}
  prog.call @main(%y, %w) : !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 4 : i64
  %st2 = arith.constant 1 : i64
  scf.for %i = %lo2 to %hi2 step %st2 : i64 {
    // expected-error @+1 {{'prog.return' op expects parent op 'prog.proc'}}
    prog.return
  }
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  // expected-error @+1 {{'prog.window' op size must be positive, got -3}}
  %0 = prog.window %w size -3 : !prog.ptr<f64> -> !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%x: !prog.ptr<const f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.load' op offset must not be negative, got -1}}
  %0 = prog.load %x[-1] : !prog.ptr<const f64> -> f64
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %c = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op offset must not be negative, got -2}}
  "prog.store"(%c, %y) <{offset = -2 : i64}> : (f64, !prog.ptr<f64>) -> ()
  prog.return
}

// -----

// expected-error @+1 {{'prog.proc' op workspace size must not be negative}}
prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>, workspace = -4} {
  prog.return
}

// -----

prog.proc @table_type(%w: !prog.ptr<f64>) attributes {arg_names = ["w"], input_sizes = array<i64>, output_sizes = array<i64>} {
  // expected-error @+1 {{'prog.table' op table of 'i64' values must point to 'i64'}}
  %t = prog.table dense<[1, 2]> : tensor<2xi64> : !prog.ptr<const f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %c = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op streaming stores whole 32-byte vectors of consecutive float scalars, not 3 x 'f64' with stride 1}}
  prog.store %c, %c, %c to %y[0] {streaming} : f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %c = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op element_aligned qualifies a streaming store only}}
  prog.store %c, %c, %c to %y[0] {element_aligned} : f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<i64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %c = arith.constant 1 : i64
  // expected-error @+1 {{'prog.store' op an element-aligned streaming store stores 2, 4, 8 or 16 consecutive float scalars, not 4 x 'i64' with stride 1}}
  prog.store %c, %c, %c, %c to %y[0] {streaming, element_aligned} : i64, i64, i64, i64 into !prog.ptr<i64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %c = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op an element-aligned streaming store stores 2, 4, 8 or 16 consecutive float scalars, not 3 x 'f64' with stride 1}}
  prog.store %c, %c, %c to %y[0] {streaming, element_aligned} : f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 1>} {
  %c = arith.constant 1.0 : f64
  // expected-error @+1 {{'prog.store' op an element-aligned streaming store stores 2, 4, 8 or 16 consecutive float scalars, not 1 x 'f64' with stride 1}}
  prog.store %c to %y[0] {streaming, element_aligned} : f64 into !prog.ptr<f64>
  prog.return
}

// -----

prog.proc @p(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  // expected-error @+1 {{'prog.is_aligned' op alignment must be a positive power of two, got 48}}
  %ok = prog.is_aligned %y, 48 : !prog.ptr<f64>
  prog.return
}
