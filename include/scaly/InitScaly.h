//===- InitScaly.h - register Scaly's dialects and passes ---------*- C++ -*-===//
//
// For tools built on Scaly (scaly-opt, scaly-translate, or another MLIR tool):
// registers exactly the dialects Scaly's pipeline uses, not MLIR's whole set.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_INITSCALY_H
#define SCALY_INITSCALY_H

namespace mlir {
class DialectRegistry;
}

namespace scaly {
/// Adds expr, prog and the upstream dialects the pipeline produces
/// (arith, math, emitc), and cdecl (the header's declarations), to `registry`.
void registerScalyDialects(mlir::DialectRegistry &registry);
/// Registers every Scaly pass, canonicalize and cse, and the `scaly-lower`
/// pass pipeline (the whole lowering from expr to prog).
void registerScalyPasses();
} // namespace scaly

#endif
