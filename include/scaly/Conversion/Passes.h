//===- Passes.h - conversions between Scaly's dialects ------------*- C++ -*-===//
#ifndef SCALY_CONVERSION_PASSES_H
#define SCALY_CONVERSION_PASSES_H

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Pass/Pass.h"
#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Program/ProgramDialect.h"

namespace scaly {
#define GEN_PASS_DECL
#include "scaly/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "scaly/Conversion/Passes.h.inc"
} // namespace scaly

#endif
