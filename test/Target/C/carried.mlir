// RUN: scaly-translate --emit-c %s | FileCheck %s
// RUN: scaly-translate --emit-c --lanes=4 %s | FileCheck %s --check-prefix=LANES
//
// scf.for's carried values (iter_args) in C: one variable per carried value
// declared before the loop with its init value, read in the body and after
// the loop, assigned at the end of the body. The assignments act at once: a
// value that reads a variable assigned before it in the same yield (the
// fibonacci step a, b = b, a + b; a swap) goes through a temporary declared
// before the first assignment. An unchanged value is not assigned, a value
// nothing reads has no variable. Lane vectors are carried in the lanes'
// value type.

// CHECK-LABEL: int fib(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK:         double v0 = 0.0;
// CHECK-NEXT:    double v1 = 1.0;
// CHECK-NEXT:    for (long long i = 0; i < 10; ++i) {
// CHECK-NEXT:      double v2 = v0 + v1;
// CHECK-NEXT:      v0 = v1;
// CHECK-NEXT:      v1 = v2;
// CHECK-NEXT:    }
// CHECK-NEXT:    double v3 = 0.0;
// CHECK-NEXT:    double v4 = 1.0;
// CHECK-NEXT:    for (long long j = 0; j < 3; ++j) {
// CHECK-NEXT:      double v5 = v3;
// CHECK-NEXT:      v3 = v4;
// CHECK-NEXT:      v4 = v5;
// CHECK-NEXT:    }
// CHECK-NEXT:    double v6 = 0.0;
// CHECK-NEXT:    for (long long k = 0; k < 8; ++k) {
// CHECK-NEXT:      v6 = v6 + (arg[0][k] * arg[1][k]);
// CHECK-NEXT:    }
// CHECK-NEXT:    *(double4*)(res[0]) = (double4){v0, v1, v3, v6};
// CHECK-NEXT:    return SCALY_SUCCESS;
// CHECK-NEXT:  }
prog.proc @fib(%x: !prog.ptr<const f64>, %z: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "z", "y", "w"], entry, input_sizes = array<i64: 8, 8>, output_sizes = array<i64: 4>} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 10 : i64
  %st1 = arith.constant 1 : i64
  %a, %b = scf.for %i = %lo1 to %hi1 step %st1 iter_args(%p = %zero, %q = %one) -> (f64, f64) : i64 {
    %n = arith.addf %p, %q : f64
    scf.yield %q, %n : f64, f64
  } {scaly.name = "i"}
  %lo2 = arith.constant 0 : i64
  %hi2 = arith.constant 3 : i64
  %st2 = arith.constant 1 : i64
  %s:2 = scf.for %j = %lo2 to %hi2 step %st2 iter_args(%p = %zero, %q = %one) -> (f64, f64) : i64 {
    scf.yield %q, %p : f64, f64
  } {scaly.name = "j"}
  %lo3 = arith.constant 0 : i64
  %hi3 = arith.constant 8 : i64
  %st3 = arith.constant 1 : i64
  %dot = scf.for %k = %lo3 to %hi3 step %st3 iter_args(%acc = %zero) -> (f64) : i64 {
    %xk = prog.offset %x[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %zk = prog.offset %z[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %u = prog.load %xk[0] : !prog.ptr<const f64> -> f64
    %v = prog.load %zk[0] : !prog.ptr<const f64> -> f64
    %m = arith.mulf %u, %v : f64
    %t = arith.addf %acc, %m : f64
    scf.yield %t : f64
  } {scaly.name = "k"}
  prog.store %a, %b, %s#0, %dot to %y[0] : f64, f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// Unchanged and unread carried values get no variable; integer and bool
// ones; a loop that carries a value through an inner loop. No value here
// reads a variable assigned before it: no temporary.
// CHECK-LABEL: static inline void kinds_raw(double* y, double* w) {
// CHECK-NEXT:    (void)w;
// CHECK-NEXT:    double v0 = 2.0;
// CHECK-NEXT:    int64_t v1 = 0;
// CHECK-NEXT:    int v2 = 1;
// CHECK-NEXT:    for (long long i = 0; i < 5; ++i) {
// CHECK-NEXT:      int64_t v3 = v1;
// CHECK-NEXT:      for (long long j = 0; j < 3; ++j) {
// CHECK-NEXT:        v3 = (int64_t)((uint64_t)v3 + (uint64_t)j);
// CHECK-NEXT:      }
// CHECK-NEXT:      y[0] = v0 * 0.5;
// CHECK-NEXT:      v0 = v0 + ((double)v1);
// CHECK-NEXT:      v1 = v3;
// CHECK-NEXT:      v2 = !v2;
// CHECK-NEXT:    }
// CHECK-NEXT:    y[1] = v0;
// CHECK-NEXT:    y[2] = v2 ? 1.0 : 0.0;
// CHECK-NEXT:  }
prog.proc @kinds_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %two = arith.constant 2.0 : f64
  %half = arith.constant 0.5 : f64
  %c0 = arith.constant 0 : i64
  %t = arith.constant true
  %lo4 = arith.constant 0 : i64
  %hi4 = arith.constant 5 : i64
  %st4 = arith.constant 1 : i64
  %r:5 = scf.for %i = %lo4 to %hi4 step %st4 iter_args(%f = %two, %n = %c0, %b = %t, %keep = %two, %dead = %half) -> (f64, i64, i1, f64, f64) : i64 {
    %lo5 = arith.constant 0 : i64
    %hi5 = arith.constant 3 : i64
    %st5 = arith.constant 1 : i64
    %inner = scf.for %j = %lo5 to %hi5 step %st5 iter_args(%m = %n) -> (i64) : i64 {
      %m2 = arith.addi %m, %j : i64
      scf.yield %m2 : i64
    } {scaly.name = "j"}
    %nf = arith.sitofp %n : i64 to f64
    %f2 = arith.addf %f, %nf : f64
    %h = arith.mulf %f, %half : f64
    prog.store %h to %y[0] : f64 into !prog.ptr<f64>
    %nb = arith.xori %b, %t : i1
    scf.yield %f2, %inner, %nb, %keep, %h : f64, i64, i1, f64, f64
  } {scaly.name = "i"}
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %sel = arith.select %r#2, %one, %zero : f64
  prog.store %r#0 to %y[1] : f64 into !prog.ptr<f64>
  prog.store %sel to %y[2] : f64 into !prog.ptr<f64>
  prog.return
}

// Temporaries: computed, in order, before the first assignment; a rotation
// needs one, for the value assigned last.
// CHECK-LABEL: static inline void mix_raw(double* y, double* w) {
// CHECK-NEXT:    (void)w;
// CHECK-NEXT:    double v0 = 2.0;
// CHECK-NEXT:    double v1 = 0.5;
// CHECK-NEXT:    double v2 = 2.0;
// CHECK-NEXT:    for (long long i = 0; i < 3; ++i) {
// CHECK-NEXT:      double v3 = v0 * v1;
// CHECK-NEXT:      double v4 = v0 - v1;
// CHECK-NEXT:      v0 = v0 + v1;
// CHECK-NEXT:      v1 = v3;
// CHECK-NEXT:      v2 = v4;
// CHECK-NEXT:    }
// CHECK-NEXT:    double v5 = v0;
// CHECK-NEXT:    double v6 = v1;
// CHECK-NEXT:    double v7 = v2;
// CHECK-NEXT:    for (long long j = 0; j < 4; ++j) {
// CHECK-NEXT:      double v8 = v5;
// CHECK-NEXT:      v5 = v6;
// CHECK-NEXT:      v6 = v7;
// CHECK-NEXT:      v7 = v8;
// CHECK-NEXT:    }
// CHECK-NEXT:    *(double2*)(y) = (double2){v5, v6};
// CHECK-NEXT:    y[2] = v7;
// CHECK-NEXT:  }
prog.proc @mix_raw(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], input_sizes = array<i64>, output_sizes = array<i64: 3>} {
  %two = arith.constant 2.0 : f64
  %half = arith.constant 0.5 : f64
  %lo6 = arith.constant 0 : i64
  %hi6 = arith.constant 3 : i64
  %st6 = arith.constant 1 : i64
  %m:3 = scf.for %i = %lo6 to %hi6 step %st6 iter_args(%a = %two, %b = %half, %c = %two) -> (f64, f64, f64) : i64 {
    %s = arith.addf %a, %b : f64
    %p = arith.mulf %a, %b : f64
    %d = arith.subf %a, %b : f64
    scf.yield %s, %p, %d : f64, f64, f64
  } {scaly.name = "i"}
  %lo7 = arith.constant 0 : i64
  %hi7 = arith.constant 4 : i64
  %st7 = arith.constant 1 : i64
  %r:3 = scf.for %j = %lo7 to %hi7 step %st7 iter_args(%a = %m#0, %b = %m#1, %c = %m#2) -> (f64, f64, f64) : i64 {
    scf.yield %b, %c, %a : f64, f64, f64
  } {scaly.name = "j"}
  prog.store %r#0, %r#1, %r#2 to %y[0] : f64, f64, f64 into !prog.ptr<f64>
  prog.return
}

// A lane vector carried (four partial sums), summed after the loop.
// LANES-LABEL: static inline void partial_raw(const double* x, double* y, double* w) {
// LANES-NEXT:    (void)w;
// LANES-NEXT:    scaly_f64x4 v0 = scaly_splat_f64x4(0.0);
// LANES-NEXT:    for (long long i = 0; i < 4; ++i) {
// LANES-NEXT:      v0 = v0 + ((const double4*)(x + (4 * i)))[0];
// LANES-NEXT:    }
// LANES-NEXT:    *(double4*)(y) = (double4)v0;
// LANES-NEXT:  }
prog.proc @partial_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 16>, output_sizes = array<i64: 4>} {
  %zero = arith.constant 0.0 : f64
  %z4 = vector.broadcast %zero : f64 to vector<4xf64>
  %lo8 = arith.constant 0 : i64
  %hi8 = arith.constant 4 : i64
  %st8 = arith.constant 1 : i64
  %acc = scf.for %i = %lo8 to %hi8 step %st8 iter_args(%s = %z4) -> (vector<4xf64>) : i64 {
    %xi = prog.offset %x[%i] {scale = 4 : i64} : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> vector<4xf64>
    %s2 = arith.addf %s, %v : vector<4xf64>
    scf.yield %s2 : vector<4xf64>
  } {scaly.name = "i"}
  prog.store %acc to %y[0] : vector<4xf64> into !prog.ptr<f64>
  prog.return
}

// A carried value read only by an op nothing uses (%t), or only to compute
// its own next value while nothing reads it (%b), gets no variable: the C
// would set it and never read it (gcc's -Wunused-but-set-variable).
// CHECK-LABEL: static inline void deadreads_raw(const double* x, double* y, double* w) {
// CHECK-NEXT:    (void)w;
// CHECK-NEXT:    for (long long i = 0; i < 4; ++i) {
// CHECK-NEXT:      double v0 = x[i];
// CHECK-NEXT:      y[0] = v0;
// CHECK-NEXT:    }
// CHECK-NEXT:  }
prog.proc @deadreads_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 4>, output_sizes = array<i64: 1>} {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %lo9 = arith.constant 0 : i64
  %hi9 = arith.constant 4 : i64
  %st9 = arith.constant 1 : i64
  %r:2 = scf.for %i = %lo9 to %hi9 step %st9 iter_args(%a = %zero, %b = %zero) -> (f64, f64) : i64 {
    %t = arith.addf %a, %one : f64
    %xi = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> f64
    %u = arith.mulf %b, %v : f64
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
    scf.yield %v, %u : f64, f64
  } {scaly.name = "i"}
  prog.return
}
