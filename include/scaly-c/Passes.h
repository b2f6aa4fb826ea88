/*===-- scaly-c/Passes.h - C API of Scaly's passes ----------------*- C -*-===*\
|*                                                                            *|
|* Registers Scaly's passes and pass pipelines in MLIR's global registry, so  *|
|* mlirParsePassPipeline and mlirOpPassManagerAddPipeline know them by their  *|
|* command-line names, as scaly-opt does: `scaly-lower` (the whole lowering   *|
|* from expr to prog), `scaly-program-to-emitc`, `scaly-simplify`, ... plus   *|
|* `canonicalize` and `cse`. See docs/passes.md for the list.                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef SCALY_C_PASSES_H
#define SCALY_C_PASSES_H

#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every Scaly pass and the `scaly-lower` pipeline. Safe to call more
   than once, and from several threads (only the first call registers). */
MLIR_CAPI_EXPORTED void scalyRegisterPasses(void);

#ifdef __cplusplus
}
#endif

#endif /* SCALY_C_PASSES_H */
