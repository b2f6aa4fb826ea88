//===- Passes.h - passes on the expression dialect ----------------*- C++ -*-===//
#ifndef SCALY_DIALECT_EXPR_PASSES_H
#define SCALY_DIALECT_EXPR_PASSES_H

#include "mlir/Pass/Pass.h"
#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DECL
#include "scaly/Dialect/Expr/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

#endif
