/*===-- scaly-c/Dialects.h - C API of Scaly's dialects ------------*- C -*-===*\
|*                                                                            *|
|* For tools written against MLIR's C API (mlir-c/IR.h): handles of Scaly's   *|
|* two dialects in MLIR's convention, so                                      *|
|*                                                                            *|
|*   mlirDialectHandleRegisterDialect(mlirGetDialectHandle__scaly_expr__(),   *|
|*                                    ctx);                                   *|
|*                                                                            *|
|* registers the `expr` dialect in a context. The handles' namespaces carry a *|
|* `scaly_` prefix (the dialects themselves are `expr` and `prog`). Declared  *|
|* by libScalyCAPI, which also exports MLIR's own C API (mlirContextCreate,   *|
|* mlirPassManagerCreate, ...) built against the shared libMLIR; see          *|
|* docs/design.md, "C API".                                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
#ifndef SCALY_C_DIALECTS_H
#define SCALY_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MlirDialectHandle mlirGetDialectHandle__scaly_expr__(void): the expression
   dialect (`expr`), what tracing produces and Scaly's passes start from. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(ScalyExpr, scaly_expr);

/* MlirDialectHandle mlirGetDialectHandle__scaly_prog__(void): the program
   dialect (`prog`), what `scaly-lower` produces. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(ScalyProg, scaly_prog);

/* Inserts every dialect Scaly's pipeline uses into `registry`: expr, prog and
   cdecl (a header's declarations), and the upstream arith, math, vector and
   emitc (the same set as the C++ scaly::registerScalyDialects). Use it with
   mlirContextAppendDialectRegistry when the input or the output of a pass can
   hold ops of any of them. */
MLIR_CAPI_EXPORTED void scalyRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif /* SCALY_C_DIALECTS_H */
