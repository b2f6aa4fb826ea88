// RUN: scaly-translate --emit-wasm-shim --module-name=m %s | FileCheck %s
// RUN: scaly-translate --emit-wasm-shim %s | FileCheck %s --check-prefix=DEFAULT
//
// The WebAssembly shim of a module of three entries: rollout (arrays, with the
// block-kept callee euler), scal (all scalars, one result) and pair (all
// scalars, two results). Every entry is forward-declared static before the
// module's C is included, so the archive's only global symbols are m__*; each
// entry gets a pointers and a struct export, all-scalar entries a scalar
// export too; the layout table lists the six typed structs.

// The host's error import, a declaration.
// CHECK:       __attribute__((import_module("scaly"), import_name("error"))) void scaly_wasm_error(int32_t status, const char* message, int32_t length);

// Internal linkage for the entries, declared before the include; the kept
// callee is not an entry and is not declared.
// CHECK:       static int rollout(const double**, double**, int*, double*, int);
// CHECK-NEXT:  static int scal(const void**, void**, int*, void*, int);
// CHECK-NEXT:  static int pair(const double**, double**, int*, double*, int);
// CHECK-NEXT:  #include "m.c"
// CHECK-NOT:   euler

// The status text: an if per status (EmitC 19 has no switch); the message
// appended in a counted loop that reads no byte past the terminator.
// CHECK:       static char scaly_shim_message[160];
// CHECK:       static const char* scaly_shim_status_text(int status) {
// CHECK-NEXT:    const char* text = "unknown status";
// CHECK-NEXT:    if (status == SCALY_ERR_NULL_ABI) {
// CHECK-NEXT:      text = "SCALY_ERR_NULL_ABI (arg or res is null)";
// CHECK-NEXT:    }
// CHECK:         return text;
// CHECK:       static int32_t scaly_shim_append(int32_t n, const char* text) {
// CHECK-NEXT:    int32_t end = n;
// CHECK-NEXT:    for (long long k = 0; k < 160; ++k) {
// CHECK-NEXT:      if ((end == (n + k)) && (end < 160)) {
// CHECK-NEXT:        if (text[k] != 0) {
// CHECK-NEXT:          scaly_shim_message[end] = text[k];
// CHECK-NEXT:          end = end + 1;
// CHECK:         return end;
// CHECK:       static void scaly_shim_fail(const char* entry, int status) {
// CHECK-NEXT:    int32_t n = scaly_shim_append(0, entry);
// CHECK-NEXT:    n = scaly_shim_append(n, ": ");
// CHECK-NEXT:    n = scaly_shim_append(n, scaly_shim_status_text(status));
// CHECK-NEXT:    scaly_wasm_error(status, scaly_shim_message, n);
// CHECK-NEXT:    __builtin_trap();

// rollout: pointers and struct exports, no scalar export.
// CHECK:       /* rollout: 2 input(s), 1 output(s). */
// CHECK:       static int scaly_shim_e0_call(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK-NEXT:    return rollout(arg, res, iw, w, mem);
// CHECK:       __attribute__((export_name("m__rollout"))) void m__rollout(const double** arg, double** res, int* iw, double* w, int mem) {
// CHECK-NEXT:    int status = scaly_shim_e0_call(arg, res, iw, w, mem);
// CHECK-NEXT:    if (status != SCALY_SUCCESS) {
// CHECK-NEXT:      scaly_shim_fail("rollout", status);
// CHECK-NEXT:    }
// CHECK:       static int scaly_shim_e0_struct_call(rollout_out* out, const rollout_in* in) {
// CHECK-NEXT:    const double* arg[2] = {(const double*)&in->zs, (const double*)&in->us};
// CHECK-NEXT:    double* res[1] = {(double*)&out->zn};
// CHECK-NEXT:    return rollout(arg, res, NULL, NULL, 0);
// CHECK:       __attribute__((export_name("m__rollout__struct"))) void m__rollout__struct(rollout_out* out, const rollout_in* in) {
// CHECK-NOT:   m__rollout__scalar
// CHECK:       /* scal: 2 input(s), 1 output(s). */

// scal: its scalar export takes the inputs by value and returns the result.
// CHECK:       __attribute__((export_name("m__scal"))) void m__scal(const void** arg, void** res, int* iw, void* w, int mem) {
// CHECK:       __attribute__((export_name("m__scal__struct"))) void m__scal__struct(scal_out* out, const scal_in* in) {
// CHECK:       static double scaly_shim_e1_result;
// CHECK-NEXT:  static int scaly_shim_e1_scalar_call(double a0, int32_t a1) {
// CHECK-NEXT:    const void* arg[2] = {(const void*)&a0, (const void*)&a1};
// CHECK-NEXT:    void* res[1] = {(void*)&scaly_shim_e1_result};
// CHECK-NEXT:    return scal(arg, res, NULL, NULL, 0);
// CHECK:       __attribute__((export_name("m__scal__scalar"))) double m__scal__scalar(double a0, int32_t a1) {
// CHECK-NEXT:    int status = scaly_shim_e1_scalar_call(a0, a1);
// CHECK-NEXT:    if (status != SCALY_SUCCESS) {
// CHECK-NEXT:      scaly_shim_fail("scal", status);
// CHECK-NEXT:    }
// CHECK-NEXT:    return scaly_shim_e1_result;
// CHECK-NEXT:  }

// pair: two scalar results are written through `out`.
// CHECK:       /* pair: 1 input(s), 2 output(s). */
// CHECK:       static int scaly_shim_e2_scalar_call(pair_out* out, double a0) {
// CHECK-NEXT:    const double* arg[1] = {(const double*)&a0};
// CHECK-NEXT:    double* res[2] = {(double*)&out->s, (double*)&out->d};
// CHECK:       __attribute__((export_name("m__pair__scalar"))) void m__pair__scalar(pair_out* out, double a0) {
// CHECK-NEXT:    int status = scaly_shim_e2_scalar_call(out, a0);
// CHECK-NEXT:    if (status != SCALY_SUCCESS) {
// CHECK-NEXT:      scaly_shim_fail("pair", status);
// CHECK-NEXT:    }
// CHECK-NEXT:  }

// The layout table: six structs, each with sizeof, _Alignof, its number of
// fields, their offsets and their sizes (1 + 6 * 3 + 2 * 9 = 37 values).
// CHECK:       static const uint32_t scaly_shim_layout_table[37] = {
// CHECK-NEXT:    6,
// CHECK-NEXT:    sizeof(rollout_in), _Alignof(rollout_in), 2, offsetof(rollout_in, zs), offsetof(rollout_in, us), sizeof(((rollout_in*)0)->zs), sizeof(((rollout_in*)0)->us),
// CHECK-NEXT:    sizeof(rollout_out), _Alignof(rollout_out), 1, offsetof(rollout_out, zn), sizeof(((rollout_out*)0)->zn),
// CHECK-NEXT:    sizeof(scal_in), _Alignof(scal_in), 2, offsetof(scal_in, x), offsetof(scal_in, k), sizeof(((scal_in*)0)->x), sizeof(((scal_in*)0)->k),
// CHECK-NEXT:    sizeof(scal_out), _Alignof(scal_out), 1, offsetof(scal_out, y), sizeof(((scal_out*)0)->y),
// CHECK-NEXT:    sizeof(pair_in), _Alignof(pair_in), 1, offsetof(pair_in, x), sizeof(((pair_in*)0)->x),
// CHECK-NEXT:    sizeof(pair_out), _Alignof(pair_out), 2, offsetof(pair_out, s), offsetof(pair_out, d), sizeof(((pair_out*)0)->s), sizeof(((pair_out*)0)->d),
// CHECK-NEXT:  };
// CHECK-NEXT:  __attribute__((export_name("m__scaly_layout"))) const uint32_t* m__scaly_layout(void) {
// CHECK-NEXT:    return &scaly_shim_layout_table[0];
// CHECK-NEXT:  }

// Without --module-name the module is named after its first entry.
// DEFAULT:     #include "rollout.c"
// DEFAULT:     __attribute__((export_name("rollout__rollout")))
// DEFAULT:     __attribute__((export_name("rollout__scal__scalar")))
// DEFAULT:     __attribute__((export_name("rollout__scaly_layout")))

module {
  expr.func @rollout(%zs: tensor<20xf64>, %us: tensor<10xf64>) -> tensor<20xf64> attributes {arg_names = ["zs", "us"], res_names = ["zn"], entry} {
    %0 = expr.reshape %zs : tensor<20xf64> to tensor<10x2xf64>
    %1 = expr.map @euler(%0, %us) count 10 {block} : (tensor<10x2xf64>, tensor<10xf64>) -> tensor<10x2xf64>
    %2 = expr.reshape %1 : tensor<10x2xf64> to tensor<20xf64>
    expr.return %2 : tensor<20xf64>
  }
  expr.func @euler(%z: tensor<2xf64>, %u: tensor<f64>) -> tensor<2xf64> attributes {arg_names = ["z", "u"], res_names = ["znext"], block} {
    %c = expr.constant dense<0.1> : tensor<f64>
    %z0 = expr.gather %z [0] : tensor<2xf64> to tensor<f64>
    %z1 = expr.gather %z [1] : tensor<2xf64> to tensor<f64>
    %a = expr.mul %c, %z1 : tensor<f64>
    %b = expr.add %z0, %a : tensor<f64>
    %s = expr.math sin %u : tensor<f64>
    %d = expr.mul %c, %s : tensor<f64>
    %e = expr.add %z1, %d : tensor<f64>
    %r = expr.concat %b, %e : (tensor<f64>, tensor<f64>) -> tensor<2xf64>
    expr.return %r : tensor<2xf64>
  }
  expr.func @scal(%x: tensor<f64>, %k: tensor<i32>) -> tensor<f64> attributes {arg_names = ["x", "k"], res_names = ["y"], entry} {
    %kf = expr.cast %k : tensor<i32> to tensor<f64>
    %y = expr.mul %x, %kf : tensor<f64>
    expr.return %y : tensor<f64>
  }
  expr.func @pair(%x: tensor<f64>) -> (tensor<f64>, tensor<f64>) attributes {arg_names = ["x"], res_names = ["s", "d"], entry} {
    %s = expr.add %x, %x : tensor<f64>
    %d = expr.mul %x, %x : tensor<f64>
    expr.return %s, %d : tensor<f64>, tensor<f64>
  }
}
