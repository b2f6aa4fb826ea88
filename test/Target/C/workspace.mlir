// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// C from program-dialect input: a raw procedure that uses its workspace
// (no "(void)w;"), multi-value double stores through the double2 vector type
// with the odd value left over as a plain store, a value read once it was
// overwritten named first, libm calls, and an entry whose workspace size is
// not 0, so it refuses a NULL w. The recipe names the entry. Stores are in the
// generic form (the custom form is covered by Dialect/Program/store-roundtrip.mlir).

// CHECK-LABEL: /* Scaly build recipe
// CHECK:        * gcc -O3 -fno-math-errno -c spilly.c
// CHECK:       #include "spilly.h"
// CHECK:       typedef double double2 __attribute__((vector_size(16), aligned(8), may_alias));
// CHECK-NOT:   typedef
// CHECK:       extern "C" {
// CHECK-LABEL: static inline void scratch_raw(const double* x, double* y, double* w) {
// CHECK-NEXT:    *(double2*)(w) = (double2){exp(x[0]), log1p(x[1])};
// CHECK-NEXT:    w[2] = tanh(x[2]);
// CHECK-NEXT:    double [[V:v[0-9]+]] = w[2];
// CHECK-NEXT:    *(double2*)(y) = (double2){fmax(w[0], w[1]), [[V]] / (-0.5)};
// CHECK-NEXT:    y[2] = [[V]];
// CHECK-NEXT:  }
// CHECK-LABEL: int spilly(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK-NEXT:    (void)iw;
// CHECK-NEXT:    (void)mem;
// CHECK-NEXT:    if (!arg || !res) return SCALY_ERR_NULL_ABI;
// CHECK-NEXT:    if (!w) return SCALY_ERR_NULL_WORK;
// CHECK-NEXT:    if (!arg[0]) return SCALY_ERR_NULL_INPUT;
// CHECK-NEXT:    if (!res[0]) return SCALY_ERR_NULL_RESULT;
// CHECK-NEXT:    scratch_raw(arg[0], res[0], w);
// CHECK-NEXT:    return SCALY_SUCCESS;
// CHECK-NEXT:  }
// CHECK-NOT:   (void)w;

prog.proc @scratch_raw(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 3>, output_sizes = array<i64: 3>, workspace = 64} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %b = prog.load %x[1] : !prog.ptr<const f64> -> f64
  %c = prog.load %x[2] : !prog.ptr<const f64> -> f64
  %e = math.exp %a : f64
  %l = math.log1p %b : f64
  %t = math.tanh %c : f64
  "prog.store"(%e, %l, %t, %w) <{offset = 0 : i64}> : (f64, f64, f64, !prog.ptr<f64>) -> ()
  %r0 = prog.load %w[0] : !prog.ptr<f64> -> f64
  %r1 = prog.load %w[1] : !prog.ptr<f64> -> f64
  %r2 = prog.load %w[2] : !prog.ptr<f64> -> f64
  %m = arith.maxnumf %r0, %r1 : f64
  %k = arith.constant -0.5 : f64
  %d = arith.divf %r2, %k : f64
  "prog.store"(%m, %d, %r2, %y) <{offset = 0 : i64}> : (f64, f64, f64, !prog.ptr<f64>) -> ()
  prog.return
}
prog.proc @spilly(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 3>, output_sizes = array<i64: 3>, entry, workspace = 64} {
  prog.call @scratch_raw(%x, %y, %w) : !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  prog.return
}
