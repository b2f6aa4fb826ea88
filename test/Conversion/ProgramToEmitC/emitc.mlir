// RUN: scaly-opt %s -split-input-file --scaly-program-to-emitc | FileCheck %s
// RUN: scaly-opt %s -split-input-file --scaly-program-to-emitc="recipe=built-by-test header=run.h" | FileCheck %s --check-prefix=OPTS
//
// scaly-program-to-emitc: the module layout (includes, vector typedefs,
// status codes as cdecl.define, the procedures in a cdecl.extern_c block
// after a blank line), raw procedures
// as `static inline` emitc.func with scaly.name/scaly.const argument
// attributes, the entry with the five-argument ABI returning int and its
// null checks (cdecl.return_if), scalar ops as EmitC ops and libm calls (f32 names end in f),
// scf.for as emitc.for keeping its name, NULL workspaces, multi-value
// float stores through vector types (a cdecl.compound_literal of the
// values), void* entries with one named cast per
// port, ports renamed away from the ABI's names. Input stores are in the
// generic form (the custom form is covered by Dialect/Program/store-roundtrip.mlir).

// OPTS:        cdecl.comment "built-by-test\0A"
// OPTS-NEXT:   emitc.include "run.h"
// OPTS:        emitc.include <"math.h">

// CHECK-LABEL: module {
// CHECK-NEXT:    emitc.include <"math.h">
// CHECK-NEXT:    emitc.include <"stddef.h">
// CHECK-NEXT:    emitc.include <"stdint.h">
// CHECK-NEXT:    cdecl.typedef "double2" = f64 {aligned = 8 : i64, may_alias, vector_size = 16 : i64}
// CHECK-NEXT:    emitc.verbatim ""
// CHECK-NEXT:    cdecl.define "SCALY_SUCCESS" = 0 : i64
// CHECK-NEXT:    cdecl.define "SCALY_ERR_NULL_ABI" = 1 : i64
// CHECK-NEXT:    cdecl.define "SCALY_ERR_NULL_WORK" = 2 : i64
// CHECK-NEXT:    cdecl.define "SCALY_ERR_NULL_RESULT" = 3 : i64
// CHECK-NEXT:    cdecl.define "SCALY_ERR_NULL_INPUT" = 4 : i64
// CHECK-NEXT:    emitc.verbatim ""
// CHECK-NEXT:    cdecl.extern_c {
// CHECK-NEXT:      emitc.verbatim ""

// CHECK-LABEL: emitc.func @step_raw(
// CHECK-SAME:    %[[Z:[^:]*]]: !emitc.ptr<f64> {scaly.const, scaly.name = "z"}, %[[U:[^:]*]]: !emitc.ptr<f64> {scaly.const, scaly.name = "u"},
// CHECK-SAME:    %[[ZN:[^:]*]]: !emitc.ptr<f64> {scaly.name = "znext"}, %{{[^:]*}}: !emitc.ptr<f64> {scaly.name = "w"})
// CHECK-SAME:    attributes {specifiers = ["static", "inline"]}
// CHECK-NEXT:    emitc.cast %{{[^ ]*}} : !emitc.ptr<f64> to !emitc.opaque<"void">
// CHECK:         %[[Z0:.*]] = emitc.subscript %[[Z]][%{{.*}}] : (!emitc.ptr<f64>, i64) -> f64
// CHECK:         %[[Z1:.*]] = emitc.subscript %[[Z]][%{{.*}}] : (!emitc.ptr<f64>, i64) -> f64
// CHECK:         %[[U0:.*]] = emitc.subscript %[[U]][%{{.*}}] : (!emitc.ptr<f64>, i64) -> f64
// CHECK-NEXT:    %[[S:.*]] = emitc.call_opaque "sin"(%[[U0]]) : (f64) -> f64
// CHECK-NEXT:    %[[M:.*]] = emitc.mul %[[S]], %{{.*}} : (f64, f64) -> f64
// CHECK-NEXT:    %[[A:.*]] = emitc.add %[[Z0]], %[[M]] : (f64, f64) -> f64
// CHECK-NEXT:    %[[N:.*]] = emitc.unary_minus %[[Z1]] : (f64) -> f64
// CHECK-NEXT:    %[[VP:.*]] = emitc.cast %[[ZN]] : !emitc.ptr<f64> to !emitc.ptr<!emitc.opaque<"double2">>
// CHECK:         %[[SLOT:.*]] = emitc.subscript %[[VP]][%{{.*}}]
// CHECK-NEXT:    %[[VEC:.*]] = cdecl.compound_literal %[[A]], %[[N]] : (f64, f64) -> !emitc.opaque<"double2">
// CHECK-NEXT:    emitc.assign %[[VEC]] : !emitc.opaque<"double2"> to %[[SLOT]]
// CHECK-NEXT:    emitc.return
prog.proc @step_raw(%z: !prog.ptr<const f64>, %u: !prog.ptr<const f64>, %zn: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["z", "u", "znext", "w"], input_sizes = array<i64: 2, 1>, output_sizes = array<i64: 2>} {
  %c = arith.constant 1.000000e-01 : f64
  %z0 = prog.load %z[0] : !prog.ptr<const f64> -> f64
  %z1 = prog.load %z[1] : !prog.ptr<const f64> -> f64
  %u0 = prog.load %u[0] : !prog.ptr<const f64> -> f64
  %s = math.sin %u0 : f64
  %m = arith.mulf %s, %c : f64
  %a = arith.addf %z0, %m : f64
  %n = arith.negf %z1 : f64
  "prog.store"(%a, %n, %zn) <{offset = 0 : i64}> : (f64, f64, !prog.ptr<f64>) -> ()
  prog.return
}

// CHECK-LABEL: emitc.func @run(
// CHECK-SAME:    %[[ARG:[^:]*]]: !emitc.ptr<!emitc.ptr<f64>> {scaly.const, scaly.name = "arg"}, %[[RES:[^:]*]]: !emitc.ptr<!emitc.ptr<f64>> {scaly.name = "res"},
// CHECK-SAME:    %[[IW:[^:]*]]: !emitc.ptr<!emitc.opaque<"int">> {scaly.name = "iw"}, %[[W:[^:]*]]: !emitc.ptr<f64> {scaly.name = "w"}, %[[MEM:[^:]*]]: !emitc.opaque<"int"> {scaly.name = "mem"})
// CHECK-SAME:    -> !emitc.opaque<"int"> {
// CHECK-NEXT:    emitc.cast %[[IW]] : !emitc.ptr<!emitc.opaque<"int">> to !emitc.opaque<"void">
// CHECK-NEXT:    emitc.cast %[[MEM]] : !emitc.opaque<"int"> to !emitc.opaque<"void">
// CHECK-NEXT:    %[[NA:.*]] = emitc.logical_not %[[ARG]]
// CHECK-NEXT:    %[[NR:.*]] = emitc.logical_not %[[RES]]
// CHECK-NEXT:    %[[ABI:.*]] = emitc.literal "SCALY_ERR_NULL_ABI"
// CHECK-NEXT:    cdecl.return_if %[[NA]], %[[NR]] -> %[[ABI]] : !emitc.opaque<"int">
// CHECK-NEXT:    emitc.cast %[[W]] : !emitc.ptr<f64> to !emitc.opaque<"void">
// CHECK-NEXT:    %[[K0:.*]] = "emitc.constant"() <{value = 0 : i64}>
// CHECK-NEXT:    %[[A0:.*]] = emitc.subscript %[[ARG]][%[[K0]]]
// CHECK-NEXT:    %[[NA0:.*]] = emitc.logical_not %[[A0]]
// CHECK-NEXT:    %[[IN:.*]] = emitc.literal "SCALY_ERR_NULL_INPUT"
// CHECK-NEXT:    cdecl.return_if %[[NA0]] -> %[[IN]]
// CHECK:         cdecl.return_if %{{.*}} -> %{{.*}}
// CHECK:         %[[R0:.*]] = emitc.subscript %[[RES]]
// CHECK-NEXT:    %[[NR0:.*]] = emitc.logical_not %[[R0]]
// CHECK-NEXT:    %[[RESULT:.*]] = emitc.literal "SCALY_ERR_NULL_RESULT"
// CHECK-NEXT:    cdecl.return_if %[[NR0]] -> %[[RESULT]]
// CHECK:         %[[ZS:.*]] = emitc.subscript %[[ARG]][%{{.*}}] : (!emitc.ptr<!emitc.ptr<f64>>, i64) -> !emitc.ptr<f64>
// CHECK:         %[[US:.*]] = emitc.subscript %[[ARG]][%{{.*}}] : (!emitc.ptr<!emitc.ptr<f64>>, i64) -> !emitc.ptr<f64>
// CHECK:         %[[OUT:.*]] = emitc.subscript %[[RES]][%{{.*}}] : (!emitc.ptr<!emitc.ptr<f64>>, i64) -> !emitc.ptr<f64>
// CHECK:         emitc.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} : i64 {
// CHECK:           %[[S2:.*]] = emitc.mul %{{.*}}, %[[I]] : (i64, i64) -> i64
// CHECK-NEXT:      %[[ZI:.*]] = emitc.add %[[ZS]], %[[S2]] : (!emitc.ptr<f64>, i64) -> !emitc.ptr<f64>
// CHECK-NEXT:      %[[UI:.*]] = emitc.add %[[US]], %[[I]] : (!emitc.ptr<f64>, i64) -> !emitc.ptr<f64>
// CHECK:           %[[OI:.*]] = emitc.add %[[OUT]], %{{.*}} : (!emitc.ptr<f64>, i64) -> !emitc.ptr<f64>
// CHECK-NEXT:      %[[NUL:.*]] = emitc.literal "NULL" : !emitc.ptr<f64>
// CHECK-NEXT:      emitc.call @step_raw(%[[ZI]], %[[UI]], %[[OI]], %[[NUL]])
// CHECK-NEXT:    } {scaly.name = "it_out"}
// CHECK-NEXT:    %[[OK:.*]] = emitc.literal "SCALY_SUCCESS" : !emitc.opaque<"int">
// CHECK-NEXT:    emitc.return %[[OK]] : !emitc.opaque<"int">
// CHECK-NEXT:  }
// CHECK-NEXT:  emitc.verbatim ""
// CHECK-NEXT:  }
// CHECK-NEXT:  }
// CHECK-NOT:     prog.
prog.proc @run(%zs: !prog.ptr<const f64>, %us: !prog.ptr<const f64>, %out: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["zs", "us", "out", "w"], input_sizes = array<i64: 8, 4>, output_sizes = array<i64: 8>, entry} {
  %lo1 = arith.constant 0 : i64
  %hi1 = arith.constant 4 : i64
  %st1 = arith.constant 1 : i64
  scf.for %i = %lo1 to %hi1 step %st1 : i64 {
    %z = prog.offset %zs[%i] {scale = 2} : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %u = prog.offset %us[%i] : !prog.ptr<const f64> -> !prog.ptr<const f64>
    %o = prog.offset %out[%i] {scale = 2} : !prog.ptr<f64> -> !prog.ptr<f64>
    %n = prog.null : !prog.ptr<f64>
    prog.call @step_raw(%z, %u, %o, %n) : !prog.ptr<const f64>, !prog.ptr<const f64>, !prog.ptr<f64>, !prog.ptr<f64>
  } {scaly.name = "it_out"}
  prog.return
}

// -----

// float32 with workspace: float vector typedef, libm names with the f
// suffix, no "(void)w;" in a raw procedure that uses w, and the entry checks
// w for NULL.
// CHECK-LABEL: module {
// CHECK:         cdecl.typedef "float2" = f32 {aligned = 4 : i64, may_alias, vector_size = 8 : i64}
// CHECK-LABEL: emitc.func @tmp_raw(
// CHECK-SAME:    !emitc.ptr<f32> {scaly.const, scaly.name = "x"}
// CHECK-SAME:    attributes {specifiers = ["static", "inline"]}
// CHECK-NOT:     (void)w;
// CHECK:         emitc.call_opaque "sinf"
// CHECK:         emitc.call_opaque "sqrtf"
// CHECK:         emitc.cast %{{.*}} : !emitc.ptr<f32> to !emitc.ptr<!emitc.opaque<"float2">>
// CHECK:         cdecl.compound_literal {{.*}} -> !emitc.opaque<"float2">
// CHECK:         emitc.call_opaque "powf"
// CHECK:         emitc.call_opaque "fabsf"
// CHECK-LABEL: emitc.func @f32mod(
// CHECK-SAME:    !emitc.ptr<!emitc.ptr<f32>> {scaly.const, scaly.name = "arg"}
// CHECK-SAME:    %[[W:[^:]*]]: !emitc.ptr<f32> {scaly.name = "w"}
// CHECK:         emitc.literal "SCALY_ERR_NULL_ABI"
// CHECK-NEXT:    cdecl.return_if
// CHECK-NEXT:    %[[NW:.*]] = emitc.logical_not %[[W]] : !emitc.ptr<f32>
// CHECK-NEXT:    %[[WORK:.*]] = emitc.literal "SCALY_ERR_NULL_WORK"
// CHECK-NEXT:    cdecl.return_if %[[NW]] -> %[[WORK]]
// CHECK:         emitc.literal "SCALY_ERR_NULL_INPUT"
// CHECK:         emitc.call @tmp_raw(%{{.*}}, %{{.*}}, %[[W]])
prog.proc @tmp_raw(%x: !prog.ptr<const f32>, %y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>, workspace = 64} {
  %a = prog.load %x[0] : !prog.ptr<const f32> -> f32
  %b = prog.load %x[1] : !prog.ptr<const f32> -> f32
  %s = math.sin %a : f32
  %c = math.sqrt %b : f32
  "prog.store"(%s, %c, %w) <{offset = 0 : i64}> : (f32, f32, !prog.ptr<f32>) -> ()
  %t0 = prog.load %w[0] : !prog.ptr<f32> -> f32
  %t1 = prog.load %w[1] : !prog.ptr<f32> -> f32
  %k = arith.constant 2.5 : f32
  %p = math.powf %t0, %k : f32
  %q = math.absf %t1 : f32
  "prog.store"(%p, %q, %y) <{offset = 0 : i64}> : (f32, f32, !prog.ptr<f32>) -> ()
  prog.return
}
prog.proc @f32mod(%x: !prog.ptr<const f32>, %y: !prog.ptr<f32>, %w: !prog.ptr<f32>) attributes {arg_names = ["x", "y", "w"], input_sizes = array<i64: 2>, output_sizes = array<i64: 2>, entry, workspace = 64} {
  prog.call @tmp_raw(%x, %y, %w) : !prog.ptr<const f32>, !prog.ptr<f32>, !prog.ptr<f32>
  prog.return
}

// -----

// Mixed dtypes: a void* ABI; each port is cast once under its own name,
// ports named like the ABI's arguments get a trailing underscore, an input
// holding no values gets no null check and no named variable, integer and bool stores are scalar.
// CHECK-LABEL: emitc.func @mix(
// CHECK-SAME:    %[[ARG:[^:]*]]: !emitc.ptr<!emitc.ptr<!emitc.opaque<"void">>> {scaly.const, scaly.name = "arg"}
// CHECK-SAME:    %[[RES:[^:]*]]: !emitc.ptr<!emitc.ptr<!emitc.opaque<"void">>> {scaly.name = "res"}
// CHECK-SAME:    !emitc.ptr<!emitc.opaque<"void">> {scaly.name = "w"}
// CHECK-SAME:    -> !emitc.opaque<"int">
// CHECK:         emitc.cast %{{[^ ]*}} : !emitc.ptr<!emitc.opaque<"void">> to !emitc.opaque<"void">
// CHECK:         emitc.literal "SCALY_ERR_NULL_INPUT"
// CHECK:         emitc.literal "SCALY_ERR_NULL_RESULT"
// CHECK:         emitc.literal "SCALY_ERR_NULL_RESULT"
// CHECK-NOT:     emitc.literal "SCALY_ERR_NULL_RESULT"
// CHECK:         %[[X:.*]] = emitc.cast %{{.*}} {scaly.name = "x"} : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<f64>
// CHECK:         emitc.cast %{{.*}} : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<f64>
// CHECK:         %[[WO:.*]] = emitc.cast %{{.*}} {scaly.name = "w_"} : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<i32>
// CHECK:         %[[B:.*]] = emitc.cast %{{.*}} {scaly.name = "b"} : !emitc.ptr<!emitc.opaque<"void">> to !emitc.ptr<i1>
// CHECK-NOT:     opaque<"int2">
// CHECK:         %[[I:.*]] = emitc.cast %{{.*}} : f64 to i32
// CHECK:         %[[MIN:.*]] = emitc.literal "INT32_MIN" : i32
// CHECK:         %[[SAFE:.*]] = emitc.conditional %{{.*}}, %[[I]], %[[MIN]] : i32
// CHECK:         emitc.subscript %[[WO]]
// CHECK-NEXT:    emitc.assign %[[SAFE]] : i32 to
// CHECK:         %[[LT:.*]] = emitc.cmp lt, %{{.*}}, %{{.*}} : (f64, f64) -> i1
// CHECK:         emitc.subscript %[[B]]
// CHECK-NEXT:    emitc.assign %[[LT]] : i1 to
prog.proc @mix(%x: !prog.ptr<const f64>, %e: !prog.ptr<const f64>, %wo: !prog.ptr<i32>, %b: !prog.ptr<i1>, %w: !prog.ptr<none>) attributes {arg_names = ["x", "arg", "w", "b", "w"], input_sizes = array<i64: 2, 0>, output_sizes = array<i64: 2, 1>, entry} {
  %a = prog.load %x[0] : !prog.ptr<const f64> -> f64
  %c = prog.load %x[1] : !prog.ptr<const f64> -> f64
  %i = arith.fptosi %a : f64 to i32
  %j = arith.fptosi %c : f64 to i32
  "prog.store"(%i, %j, %wo) <{offset = 0 : i64}> : (i32, i32, !prog.ptr<i32>) -> ()
  %t = arith.cmpf olt, %a, %c : f64
  "prog.store"(%t, %b) <{offset = 0 : i64}> : (i1, !prog.ptr<i1>) -> ()
  prog.return
}
