/* One side of a host linking two Scaly modules that both have an entry named
 * `step` (test_wasm_engine.py): compiled once with -DSIDE=alpha
 * -DSIDE_HEADER='"alpha_wasm.h"' and once for beta. The two modules' headers
 * both declare step_in/step_out, so each side is its own translation unit. */
#include <string.h>

#include "host_alloc.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define STR2(a) #a
#define STR(a) STR2(a)

#include SIDE_HEADER

/* host_<side>_step(dst, src): step through the typed-struct export, on
 * structs from the host's malloc. */
HOST_EXPORT(STR(CAT(CAT(host_, SIDE), _step))) void CAT(CAT(host_, SIDE), _step)(step_out* dst,
                                                                               const step_in* src) {
  step_in* in = host_malloc(sizeof *in);
  step_out* out = host_malloc(sizeof *out);
  memcpy(in, src, sizeof *in);
  CAT(SIDE, __step__struct)(out, in);
  memcpy(dst, out, sizeof *out);
  host_free(out);
  host_free(in);
}
