//===- CountedLoop.h - scf.for loops of constant bounds -------------*- C++ -*-===//
//
// The program dialect's loops are upstream scf.for with an i64 counter and
// arith.constant bounds: `for (long long i = lower; i < upper; i += step)`.
// The counter's C name is the discardable attribute `scaly.name`. Every pass
// that creates or reads such a loop goes through these helpers.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_DIALECT_PROGRAM_COUNTEDLOOP_H
#define SCALY_DIALECT_PROGRAM_COUNTEDLOOP_H

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace scaly::prog {

/// The counter's C name on an scf.for (the C printer reads the same name on
/// values).
inline constexpr llvm::StringLiteral kLoopNameAttr = "scaly.name";

/// A loop's constant bounds.
struct CountedBounds {
  int64_t lower = 0, upper = 0, step = 1;
  /// How many times the body runs.
  int64_t tripCount() const { return upper > lower ? (upper - lower + step - 1) / step : 0; }
};

/// The bounds of `loop` when all three are constants.
std::optional<CountedBounds> countedBounds(mlir::scf::ForOp loop);

/// The bounds of a loop the lowering made (all constant; asserted).
CountedBounds boundsOf(mlir::scf::ForOp loop);

/// A loop from `lower` to `upper` by `step` over an i64 counter named `name`
/// (none when empty), carrying `inits`. Its body ends with an scf.yield of
/// the carried block arguments (each iteration keeps the values until the
/// caller inserts code before the yield and sets its operands).
mlir::scf::ForOp createCountedLoop(mlir::OpBuilder &b, mlir::Location loc, int64_t lower,
                                   int64_t upper, int64_t step, llvm::StringRef name,
                                   mlir::ValueRange inits = {});

/// The yield ending a loop's body.
inline mlir::scf::YieldOp yieldOf(mlir::scf::ForOp loop) {
  return llvm::cast<mlir::scf::YieldOp>(loop.getBody()->getTerminator());
}

} // namespace scaly::prog

#endif
