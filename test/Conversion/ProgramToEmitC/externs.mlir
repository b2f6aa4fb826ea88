// RUN: scaly-opt %s --scaly-program-to-emitc | FileCheck %s
// RUN: scaly-translate --emit-c %s | FileCheck %s --check-prefix=C
//
// A prog.extern without a header is declared by a bodiless emitc.func in
// the extern "C" block (private: MLIR's rule for a declaration), its
// read-only pointers scaly.const; the printer prints it as its prototype
// without parameter names: a pointer to none is void*, a bool buffer
// uint8_t*, no parameters (void). One with a header is an #include.

// CHECK:      emitc.include "solver.h"
// CHECK:      cdecl.extern_c {
// CHECK:        emitc.func private @ext_scalar(f64, !emitc.ptr<f64> {scaly.const}) -> f64
// CHECK-NEXT:   emitc.func private @ext_buffers(!emitc.ptr<!emitc.opaque<"void">>, !emitc.ptr<i1> {scaly.const}, !emitc.ptr<i32>)
// CHECK-NEXT:   emitc.func private @ext_none() -> i32
// CHECK-NEXT:   emitc.verbatim ""
// CHECK-NOT:    emitc.func private @solver_step
// CHECK:        emitc.func @f(
// CHECK-NOT:    prog.extern

// C:      #include "solver.h"
// C:      #endif
// C-EMPTY:
// C-NEXT: double ext_scalar(double, const double*);
// C-NEXT: void ext_buffers(void*, const uint8_t*, int32_t*);
// C-NEXT: int32_t ext_none(void);
// C-EMPTY:
// C-NEXT: int f(

// The header's function is called through the #include: no prototype.
// C-NOT:  {{^}}void solver_step(
prog.extern @ext_scalar : (f64, !prog.ptr<const f64>) -> f64
prog.extern @ext_buffers : (!prog.ptr<none>, !prog.ptr<const i1>, !prog.ptr<i32>) -> ()
prog.extern @ext_none : () -> i32
prog.extern @solver_step : (!prog.ptr<f64>) -> () {header = "solver.h"}
prog.proc @f(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 1>, output_sizes = array<i64: 1>, entry} {
  %v = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %c = prog.call_extern @ext_scalar(%v, %x) : (f64, !prog.ptr<const f64>) -> f64
  prog.store %c to %y[0] : f64 into !prog.ptr<f64>
  prog.call_extern @solver_step(%y) : (!prog.ptr<f64>) -> ()
  prog.return
}
