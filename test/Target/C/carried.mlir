// RUN: scaly-translate --emit-c %s | FileCheck %s
// RUN: scaly-translate --emit-c --lanes=4 %s | FileCheck %s --check-prefix=LANES
//
// prog.for's carried values (iter_args) in C: one variable per carried value
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
  %a, %b = prog.for %i = 0 to 10 iter_args(%p = %zero, %q = %one) -> (f64, f64) {
    %n = arith.addf %p, %q : f64
    prog.yield %q, %n : f64, f64
  } {name = "i"}
  %s:2 = prog.for %j = 0 to 3 iter_args(%p = %zero, %q = %one) -> (f64, f64) {
    prog.yield %q, %p : f64, f64
  } {name = "j"}
  %dot = prog.for %k = 0 to 8 iter_args(%acc = %zero) -> (f64) {
    %xk = prog.offset %x[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %zk = prog.offset %z[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %u = prog.load %xk[0] : !prog.ptr<const f64> -> f64
    %v = prog.load %zk[0] : !prog.ptr<const f64> -> f64
    %m = arith.mulf %u, %v : f64
    %t = arith.addf %acc, %m : f64
    prog.yield %t : f64
  } {name = "k"}
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
  %r:5 = prog.for %i = 0 to 5 iter_args(%f = %two, %n = %c0, %b = %t, %keep = %two, %dead = %half) -> (f64, i64, i1, f64, f64) {
    %inner = prog.for %j = 0 to 3 iter_args(%m = %n) -> (i64) {
      %m2 = arith.addi %m, %j : i64
      prog.yield %m2 : i64
    } {name = "j"}
    %nf = arith.sitofp %n : i64 to f64
    %f2 = arith.addf %f, %nf : f64
    %h = arith.mulf %f, %half : f64
    prog.store %h to %y[0] : f64 into !prog.ptr<f64>
    %nb = arith.xori %b, %t : i1
    prog.yield %f2, %inner, %nb, %keep, %h : f64, i64, i1, f64, f64
  } {name = "i"}
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
  %m:3 = prog.for %i = 0 to 3 iter_args(%a = %two, %b = %half, %c = %two) -> (f64, f64, f64) {
    %s = arith.addf %a, %b : f64
    %p = arith.mulf %a, %b : f64
    %d = arith.subf %a, %b : f64
    prog.yield %s, %p, %d : f64, f64, f64
  } {name = "i"}
  %r:3 = prog.for %j = 0 to 4 iter_args(%a = %m#0, %b = %m#1, %c = %m#2) -> (f64, f64, f64) {
    prog.yield %b, %c, %a : f64, f64, f64
  } {name = "j"}
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
  %acc = prog.for %i = 0 to 4 iter_args(%s = %z4) -> (vector<4xf64>) {
    %xi = prog.offset %x[%i] {scale = 4 : i64} : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> vector<4xf64>
    %s2 = arith.addf %s, %v : vector<4xf64>
    prog.yield %s2 : vector<4xf64>
  } {name = "i"}
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
  %r:2 = prog.for %i = 0 to 4 iter_args(%a = %zero, %b = %zero) -> (f64, f64) {
    %t = arith.addf %a, %one : f64
    %xi = prog.offset %x[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %v = prog.load %xi[0] : !prog.ptr<const f64> -> f64
    %u = arith.mulf %b, %v : f64
    prog.store %v to %y[0] : f64 into !prog.ptr<f64>
    prog.yield %v, %u : f64, f64
  } {name = "i"}
  prog.return
}
