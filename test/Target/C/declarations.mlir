// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// What the WebAssembly shim (lib/Codegen/WasmShim.cpp) declares: a function
// without a body prints as its prototype (its specifiers, its parameters'
// names when it has them, `(void)` without parameters), in its place among
// the definitions; scaly.const in a result's attributes makes the result a
// pointer to const; scaly.align on a global prints `_Alignas(n)`.

// CHECK:      __attribute__((import_module("scaly"))) void host_error(int32_t status, const char* message);
// CHECK-NEXT: static int entry(const double**, double**, int*, double*, int);
// CHECK-NEXT: static int32_t count(void);
// CHECK-NEXT: static _Alignas(64) double work[32];
// CHECK-NEXT: static _Alignas(16) const int32_t table[3] = {0, 1, 3};
// CHECK-NEXT: const int32_t* table_address(void) {
// CHECK-NEXT:   return &table[0];
// CHECK-NEXT: }
// CHECK-NOT:  table_address(void);
emitc.func private @host_error(i32 {scaly.name = "status"}, !emitc.ptr<!emitc.opaque<"char">> {scaly.name = "message", scaly.const}) attributes {specifiers = ["__attribute__((import_module(\"scaly\")))"]}
emitc.func private @entry(!emitc.ptr<!emitc.ptr<f64>> {scaly.const}, !emitc.ptr<!emitc.ptr<f64>>, !emitc.ptr<!emitc.opaque<"int">>, !emitc.ptr<f64>, !emitc.opaque<"int">) -> !emitc.opaque<"int"> attributes {specifiers = ["static"]}
emitc.func private @count() -> i32 attributes {specifiers = ["static"]}
emitc.global static @work : !emitc.array<32xf64> {scaly.align = 64 : i64}
emitc.global static const @table : !emitc.array<3xi32> = #emitc.opaque<"{0, 1, 3}"> {scaly.align = 16 : i64}
emitc.func @table_address() -> (!emitc.ptr<i32> {scaly.const}) {
  %t = emitc.get_global @table : !emitc.array<3xi32>
  %zero = "emitc.constant"() <{value = 0 : i32}> : () -> i32
  %first = emitc.subscript %t[%zero] : (!emitc.array<3xi32>, i32) -> i32
  %p = emitc.apply "&"(%first) : (i32) -> !emitc.ptr<i32>
  emitc.return %p : !emitc.ptr<i32>
}
