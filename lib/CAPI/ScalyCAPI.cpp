//===- ScalyCAPI.cpp - C API of Scaly's dialects and passes ---------------===//
//
// MLIR's C API convention (mlir/CAPI/Registration.h) for expr and prog, plus
// the registration of Scaly's passes and of every dialect the pipeline uses.
//
//===----------------------------------------------------------------------===//

#include "scaly-c/Dialects.h"
#include "scaly-c/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Program/ProgramDialect.h"
#include "scaly/InitScaly.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

#include <mutex>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(ScalyExpr, scaly_expr, scaly::expr::ExprDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(ScalyProg, scaly_prog, scaly::prog::ProgDialect)

void scalyRegisterAllDialects(MlirDialectRegistry registry) {
  scaly::registerScalyDialects(*unwrap(registry));
}

void scalyRegisterPasses(void) {
  // MLIR's registry refuses a pass pipeline registered twice.
  static std::once_flag once;
  std::call_once(once, [] { scaly::registerScalyPasses(); });
}
