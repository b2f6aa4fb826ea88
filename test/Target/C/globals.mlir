// RUN: scaly-translate --emit-c %s | FileCheck %s
//
// What the CasADi layer (lib/Codegen/CasadiInterface.cpp) prints with:
// file-scope tables (emitc.global, opaque initializers; a const pointer
// element is `T* const`), their reads (emitc.get_global, printed in place),
// a local array of const pointers (scaly.const on the variable), `(void)x;`
// for a cast to void, and `(void)` for a function without parameters. Also
// the module's prog.table constants (dense elements attributes, 8 values a
// line, bools 0 or 1, INT64_MIN by name).

// CHECK:      static const casadi_int f_sp[5] = {1, 1, 0, 1, 0};
// CHECK-NEXT: static const char* const f_names[2] = {"x", 0};
// CHECK-NEXT: static const casadi_int* const f_sps[2] = {f_sp, 0};
// CHECK-NEXT: static double scale = 2.5;
// CHECK-NEXT: extern int count;
// CHECK-NEXT: static const double scaly_table_0[9] = {
// CHECK-NEXT:   0.5, (-1.0), 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
// CHECK-NEXT:   1e-300
// CHECK-NEXT: };
// CHECK-NEXT: static const int scaly_table_1[3] = {
// CHECK-NEXT:   1, 0, 1
// CHECK-NEXT: };
// CHECK-NEXT: static const int64_t scaly_table_2[2] = {
// CHECK-NEXT:   INT64_MIN, -7
// CHECK-NEXT: };
emitc.global static const @f_sp : !emitc.array<5x!emitc.opaque<"casadi_int">> = #emitc.opaque<"{1, 1, 0, 1, 0}">
emitc.global static const @f_names : !emitc.array<2x!emitc.ptr<!emitc.opaque<"const char">>> = #emitc.opaque<"{\"x\", 0}">
emitc.global static const @f_sps : !emitc.array<2x!emitc.ptr<!emitc.opaque<"const casadi_int">>> = #emitc.opaque<"{f_sp, 0}">
emitc.global static @scale : f64 = 2.5
emitc.global extern @count : !emitc.opaque<"int">
emitc.global static const @scaly_table_0 : !emitc.array<9xf64> = dense<[0.5, -1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 1.0e-300]>
emitc.global static const @scaly_table_1 : !emitc.array<3xi1> = dense<[true, false, true]>
emitc.global static const @scaly_table_2 : !emitc.array<2xi64> = dense<[-9223372036854775808, -7]>

// CHECK-LABEL: int f_n_in(void) {
// CHECK-NEXT:    return 1;
emitc.func @f_n_in() -> !emitc.opaque<"int"> {
  %one = "emitc.constant"() <{value = #emitc.opaque<"1">}> : () -> !emitc.opaque<"int">
  emitc.return %one : !emitc.opaque<"int">
}

// CHECK-LABEL: const char* f_name(casadi_int i) {
// CHECK-NEXT:    return ((i >= 0) && (i < 1)) ? f_names[i] : 0;
emitc.func @f_name(%i: !emitc.opaque<"casadi_int"> {scaly.name = "i"}) -> !emitc.ptr<!emitc.opaque<"const char">> {
  %zero = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !emitc.opaque<"casadi_int">
  %n = "emitc.constant"() <{value = #emitc.opaque<"1">}> : () -> !emitc.opaque<"casadi_int">
  %ge = emitc.cmp ge, %i, %zero : (!emitc.opaque<"casadi_int">, !emitc.opaque<"casadi_int">) -> i1
  %lt = emitc.cmp lt, %i, %n : (!emitc.opaque<"casadi_int">, !emitc.opaque<"casadi_int">) -> i1
  %in = emitc.logical_and %ge, %lt : i1, i1
  %names = emitc.get_global @f_names : !emitc.array<2x!emitc.ptr<!emitc.opaque<"const char">>>
  %name = emitc.subscript %names[%i] : (!emitc.array<2x!emitc.ptr<!emitc.opaque<"const char">>>, !emitc.opaque<"casadi_int">) -> !emitc.ptr<!emitc.opaque<"const char">>
  %null = emitc.literal "0" : !emitc.ptr<!emitc.opaque<"const char">>
  %r = emitc.conditional %in, %name, %null : !emitc.ptr<!emitc.opaque<"const char">>
  emitc.return %r : !emitc.ptr<!emitc.opaque<"const char">>
}

// CHECK-LABEL: int eval(const double** arg, int mem) {
// CHECK-NEXT:    const double* a[2];
// CHECK-NEXT:    (void)mem;
// CHECK-NEXT:    a[0] = arg[0];
// CHECK-NEXT:    return 0;
emitc.func @eval(%arg: !emitc.ptr<!emitc.ptr<f64>> {scaly.name = "arg", scaly.const}, %mem: !emitc.opaque<"int"> {scaly.name = "mem"}) -> !emitc.opaque<"int"> {
  %a = "emitc.variable"() <{value = #emitc.opaque<"">}> {scaly.name = "a", scaly.const} : () -> !emitc.array<2x!emitc.ptr<f64>>
  %v = emitc.cast %mem : !emitc.opaque<"int"> to !emitc.opaque<"void">
  %k = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !emitc.opaque<"long long">
  %from = emitc.subscript %arg[%k] : (!emitc.ptr<!emitc.ptr<f64>>, !emitc.opaque<"long long">) -> !emitc.ptr<f64>
  %to = emitc.subscript %a[%k] : (!emitc.array<2x!emitc.ptr<f64>>, !emitc.opaque<"long long">) -> !emitc.ptr<f64>
  emitc.assign %from : !emitc.ptr<f64> to %to : !emitc.ptr<f64>
  %zero = "emitc.constant"() <{value = #emitc.opaque<"0">}> : () -> !emitc.opaque<"int">
  emitc.return %zero : !emitc.opaque<"int">
}
