// RUN: scaly-opt %s | FileCheck %s
// RUN: scaly-opt %s --mlir-print-op-generic | scaly-opt | FileCheck %s
//
// The cdecl statements parse and print: an endless loop whose body leaves
// it through cdecl.break in an emitc.if, early returns with and without a
// value, of one condition or several.

// CHECK-LABEL: emitc.func @entry(
// CHECK:         %[[A:.*]] = emitc.logical_not %arg0
// CHECK-NEXT:    %[[B:.*]] = emitc.logical_not %arg1
// CHECK-NEXT:    %[[CODE:.*]] = emitc.literal "SCALY_ERR_NULL_ABI"
// CHECK-NEXT:    cdecl.return_if %[[A]], %[[B]] -> %[[CODE]] : !emitc.opaque<"int">
// CHECK-NEXT:    cdecl.loop {
// CHECK-NEXT:      %[[STOP:.*]] = emitc.logical_not %arg2 : i1
// CHECK-NEXT:      emitc.if %[[STOP]] {
// CHECK-NEXT:        cdecl.break
// CHECK-NEXT:      }
// CHECK-NEXT:    }
emitc.func @entry(%arg0: !emitc.ptr<f64>, %arg1: !emitc.ptr<f64>, %arg2: i1) -> !emitc.opaque<"int"> {
  %a = emitc.logical_not %arg0 : !emitc.ptr<f64>
  %b = emitc.logical_not %arg1 : !emitc.ptr<f64>
  %code = emitc.literal "SCALY_ERR_NULL_ABI" : !emitc.opaque<"int">
  cdecl.return_if %a, %b -> %code : !emitc.opaque<"int">
  cdecl.loop {
    %stop = emitc.logical_not %arg2 : i1
    emitc.if %stop {
      cdecl.break
    }
  }
  %ok = emitc.literal "SCALY_SUCCESS" : !emitc.opaque<"int">
  emitc.return %ok : !emitc.opaque<"int">
}

// CHECK-LABEL: emitc.func @void_fn(
// CHECK:         cdecl.return_if %{{.*}}{{$}}
emitc.func @void_fn(%arg0: !emitc.ptr<f64>) {
  %a = emitc.logical_not %arg0 : !emitc.ptr<f64>
  cdecl.return_if %a
  emitc.return
}
