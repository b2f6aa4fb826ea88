/* A host program linking libkern.a (test_wasm_engine.py): every buffer the
 * kernels see comes from the host's own malloc (host_alloc.c). The JS side
 * hands in struct images (laid out by the manifest); each wrapper copies them
 * into fresh host_malloc'd structs, builds the five-argument call's arrays
 * with host_malloc too, calls the Scaly export and copies the outputs back. */
#include <string.h>

#include "host_alloc.h"
#include "kern_wasm.h"

/* host_<E>(dst, src): the five-argument export kern__<E>. SETUP fills arg[]
 * and res[] from in and out; W is the workspace (NULL: the shim's own). */
#define HOST_POINTERS(E, T, NIN, NOUT, W_ELEMS, SETUP)                                      \
  HOST_EXPORT("host_" #E) void host_##E(E##_out* dst, const E##_in* src) {                \
    E##_in* in = host_malloc(sizeof *in);                                                \
    E##_out* out = host_malloc(sizeof *out);                                             \
    const T** arg = host_malloc((NIN) * sizeof *arg);                                    \
    T** res = host_malloc((NOUT) * sizeof *res);                                         \
    T* w = (W_ELEMS) ? host_malloc((W_ELEMS) * sizeof(double)) : NULL;                   \
    memcpy(in, src, sizeof *in);                                                         \
    memset(out, 0x5a, sizeof *out);                                                      \
    SETUP                                                                                \
    kern__##E(arg, res, NULL, w, 0);                                                     \
    memcpy(dst, out, sizeof *out);                                                       \
    host_free(w);                                                                        \
    host_free(res);                                                                      \
    host_free(arg);                                                                      \
    host_free(out);                                                                      \
    host_free(in);                                                                       \
  }

/* host_<E>_struct(dst, src): the typed-struct export kern__<E>__struct. */
#define HOST_STRUCT(E)                                                                   \
  HOST_EXPORT("host_" #E "_struct") void host_##E##_struct(E##_out* dst, const E##_in* src) { \
    E##_in* in = host_malloc(sizeof *in);                                                \
    E##_out* out = host_malloc(sizeof *out);                                             \
    memcpy(in, src, sizeof *in);                                                         \
    kern__##E##__struct(out, in);                                                        \
    memcpy(dst, out, sizeof *out);                                                       \
    host_free(out);                                                                      \
    host_free(in);                                                                       \
  }

HOST_POINTERS(rollout, double, 2, 1, 0,
              arg[0] = in->zs; arg[1] = in->us; res[0] = out->zn;)
HOST_POINTERS(zoo, void, 5, 5, 0,
              arg[0] = &in->d; arg[1] = &in->f; arg[2] = &in->i; arg[3] = &in->k; arg[4] = &in->b;
              res[0] = &out->d2; res[1] = &out->f2; res[2] = &out->i2; res[3] = &out->k2;
              res[4] = &out->b2;)
HOST_POINTERS(ints, void, 4, 3, 0,
              arg[0] = in->n; arg[1] = &in->m; arg[2] = in->k; arg[3] = &in->j;
              res[0] = out->a; res[1] = &out->t; res[2] = out->kk;)
HOST_POINTERS(flags, void, 2, 3, 0,
              arg[0] = in->b; arg[1] = in->x; res[0] = out->y; res[1] = out->c; res[2] = &out->cnt;)
HOST_POINTERS(trans, void, 2, 4, 0,
              arg[0] = in->x; arg[1] = in->y;
              res[0] = out->ex; res[1] = out->sx; res[2] = out->sy; res[3] = out->ey;)
HOST_POINTERS(mat, double, 2, 2, 0,
              arg[0] = &in->A[0][0]; arg[1] = in->v; res[0] = out->w_; res[1] = &out->At[0][0];)
HOST_POINTERS(fvec, float, 2, 2, 0,
              arg[0] = in->x; arg[1] = &in->s; res[0] = out->y; res[1] = &out->n;)
/* The caller's workspace: spill_SZ_W doubles from the host's malloc. */
HOST_POINTERS(spill, double, 1, 1, spill_SZ_W,
              arg[0] = in->x; res[0] = out->y;)
HOST_POINTERS(mixlay, void, 5, 4, 0,
              arg[0] = in->flag; arg[1] = in->big; arg[2] = in->small; arg[3] = &in->grid[0][0][0];
              arg[4] = &in->last; res[0] = out->o1; res[1] = &out->o2[0][0]; res[2] = &out->o3;
              res[3] = &out->o4[0][0][0];)

HOST_STRUCT(rollout)
HOST_STRUCT(zoo)
HOST_STRUCT(ints)
HOST_STRUCT(trans)
HOST_STRUCT(mat)
HOST_STRUCT(spill)
HOST_STRUCT(mixlay)

/* The scalar exports, by value. */
HOST_EXPORT("host_hyp_scalar") double host_hyp_scalar(double x, double y) {
  return kern__hyp__scalar(x, y);
}

HOST_EXPORT("host_kscal_scalar") int64_t host_kscal_scalar(int64_t k, int32_t i) {
  return kern__kscal__scalar(k, i);
}

HOST_EXPORT("host_fsc_scalar") float host_fsc_scalar(float f, double d) {
  return kern__fsc__scalar(f, d);
}

HOST_EXPORT("host_isbig_scalar") uint8_t host_isbig_scalar(double x, float f) {
  return kern__isbig__scalar(x, f);
}

HOST_EXPORT("host_zoo_scalar") void host_zoo_scalar(zoo_out* dst, double d, float f, int32_t i,
                                                    int64_t k, uint8_t b) {
  zoo_out* out = host_malloc(sizeof *out);
  kern__zoo__scalar(out, d, f, i, k, b);
  memcpy(dst, out, sizeof *out);
  host_free(out);
}
