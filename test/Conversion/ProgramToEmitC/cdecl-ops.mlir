// RUN: scaly-opt %s --scaly-program-to-emitc="auto-lanes=1 vector-libm=glibc" | FileCheck %s
//
// The C the printer writes beyond EmitC comes from the conversion as cdecl
// ops, none as an attribute the printer interprets or as free text: a loop
// kept rolled is preceded by the line SCALY_NO_UNROLL (cdecl.macro_line,
// right before its emitc.for), lanes=auto tests the lane width as a macro
// compared with an integer (cdecl.if "SCALY_LANES" eq N), libmvec's guard
// is a negated cdecl.if_defined, and a vector typedef's size is one lane's
// bytes times SCALY_LANES (vector_size_times). (The helpers' Clang loop
// pragmas: helpers.mlir.)

// CHECK:       cdecl.typedef "doubleN" = f64 {aligned = 8 : i64, may_alias, vector_size = 8 : i64, vector_size_times = "SCALY_LANES"}
// CHECK-NEXT:  cdecl.typedef "scaly_f64xN" = f64 {vector_size = 8 : i64, vector_size_times = "SCALY_LANES"}
// CHECK:       cdecl.if_defined not "__x86_64__" {
// CHECK-NEXT:    cdecl.error "vector_libm=glibc width auto requires __x86_64__ and -lmvec"
// CHECK-NEXT:  }
// CHECK:       cdecl.if "SCALY_LANES" eq 8 {
// CHECK-NEXT:    cdecl.prototype "_ZGVeN8v_sin"
// CHECK:       } else {
// CHECK-NEXT:    cdecl.if "SCALY_LANES" eq 4 {
// CHECK:         } else {
// CHECK-NEXT:      cdecl.if "SCALY_LANES" eq 2 {
// CHECK:       cdecl.if_defined "__clang__" {
// CHECK-NEXT:    cdecl.define "SCALY_NO_UNROLL" = "_Pragma(\22clang loop unroll(disable)\22)"
// CHECK-LABEL: emitc.func @waves(
// CHECK:         cdecl.macro_line "SCALY_NO_UNROLL"
// CHECK-NEXT:    emitc.for
// CHECK:         } {scaly.name = "i"}
// CHECK:         cdecl.macro_line "SCALY_NO_UNROLL"
// CHECK-NEXT:    emitc.for
// CHECK-NOT:     cdecl.macro_line
// CHECK:         emitc.return
// CHECK-NOT:   scaly.no_unroll
// CHECK-NOT:   scaly.clang_loop
prog.proc @waves(%arg0: !prog.ptr<const f64>, %arg1: !prog.ptr<f64>, %arg2: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 10>, output_sizes = array<i64: 10>, workspace = 0 : i64} {
  %cst = arith.constant 2.000000e+00 : f64
  %0 = vector.broadcast %cst : f64 to vector<4xf64>
  %c10_i64 = arith.constant 10 : i64
  %c1_i64 = arith.constant 1 : i64
  %c0_i64 = arith.constant 0 : i64
  %c8_i64 = arith.constant 8 : i64
  %c4_i64 = arith.constant 4 : i64
  scf.for %arg3 = %c0_i64 to %c8_i64 step %c4_i64  : i64 {
    %2 = prog.offset %arg0[%arg3] : <const f64> -> <const f64>
    %3 = prog.offset %arg1[%arg3] : <f64> -> <f64>
    %4 = prog.load %2[0] : <const f64> -> vector<4xf64>
    %5 = arith.mulf %4, %0 : vector<4xf64>
    %6 = math.sin %5 : vector<4xf64>
    prog.store %6 to %3[0] : vector<4xf64> into <f64>
  } {scaly.lanes = 4 : i64, scaly.name = "i"}
  scf.for %arg3 = %c8_i64 to %c10_i64 step %c1_i64  : i64 {
    %2 = prog.offset %arg0[%arg3] : <const f64> -> <const f64>
    %3 = prog.offset %arg1[%arg3] : <f64> -> <f64>
    %4 = prog.load %2[0] : <const f64> -> f64
    %5 = arith.mulf %4, %cst : f64
    %6 = math.sin %5 : f64
    prog.store %6 to %3[0] : f64 into <f64>
  } {scaly.name = "i_"}
  prog.return
}
