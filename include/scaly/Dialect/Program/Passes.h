//===- Passes.h - passes on the program dialect -------------------*- C++ -*-===//
#ifndef SCALY_DIALECT_PROGRAM_PASSES_H
#define SCALY_DIALECT_PROGRAM_PASSES_H

#include "mlir/Pass/Pass.h"
#include "scaly/Dialect/Program/ProgramDialect.h"

namespace scaly::prog {
/// Workspace windows start at multiples of this many bytes.
constexpr int64_t kWorkspaceAlignBytes = 64;

#define GEN_PASS_DECL
#include "scaly/Dialect/Program/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

#endif
