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

/// The C names of an scf.parallel nest's counters, one per dimension
/// (scaly-parallel-to-loops names its loops with them).
inline constexpr llvm::StringLiteral kNestNamesAttr = "scaly.names";

/// How the nest writing a value computed through a transpose is blocked:
/// the value's expr.copy_plan, handed on by the lowering and executed by
/// scaly-tile-copies.
inline constexpr llvm::StringLiteral kCopyPlanNestAttr = "scaly.copy_plan";

/// Marks the loop over the rows of a reduction over an axis that is not the
/// last (row accumulation), which scaly-accumulate-rows interchanges with the
/// nest around it.
inline constexpr llvm::StringLiteral kAccumulateRowsAttr = "scaly.accumulate_rows";

/// Marks a helper sum of a window a nest writes whole, which
/// scaly-sum-in-blocks computes and sums one block of the helper's at a time.
inline constexpr llvm::StringLiteral kSumInBlocksAttr = "scaly.sum_in_blocks";

/// One dimension of a loop nest: from `lower` to `upper` by `step`, its
/// counter named `name` in C.
struct NestDim {
  int64_t lower = 0, upper = 0, step = 1;
  llvm::StringRef name;
};

/// An scf.parallel nest over `dims` (index bounds, as scf.parallel has) whose
/// body starts by casting each counter to i64, the type of the program
/// dialect's index arithmetic; `counters` receives the casts, one per
/// dimension. The builder is left in the body, after the casts.
mlir::scf::ParallelOp createNest(mlir::OpBuilder &b, mlir::Location loc,
                                 llvm::ArrayRef<NestDim> dims,
                                 llvm::SmallVectorImpl<mlir::Value> &counters);

/// The constant bounds of `nest`, one NestDim per dimension named by its
/// scaly.names; an error on the nest naming what is wrong otherwise.
mlir::FailureOr<llvm::SmallVector<NestDim>> nestDims(mlir::scf::ParallelOp nest);

class StoreOp;
class OffsetOp;

/// The i64 cast of a nest's counter `iv` when that cast is the counter's one
/// use (as createNest makes it), else null.
mlir::Value counterCast(mlir::Value iv);

/// The store ending a nest's `body` (the op before its terminator) and the
/// prog.offset it stores through; null for what the body does not end with.
std::pair<StoreOp, OffsetOp> finalStore(mlir::Block *body);

/// Whether a loop pass may clone `op`, run it more or fewer times in
/// another order, or drop it unused: it holds no region and writes no
/// memory (it computes, or only reads; integer division, which may trap
/// but has no effect on memory, included).
bool onlyComputesOrReads(mlir::Operation *op);

/// The ops of a nest's `body` that compute `element` (the value its last
/// op, `store`, stores), in order, the counters' casts (`counters`)
/// excepted. Refused through `refuse` when one of them writes memory, holds
/// a region or reads `written` (the array the nest writes, which a loop
/// pass writes in another order), or when the body holds another op that
/// writes memory (it would be lost).
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
elementOps(mlir::Block *body, mlir::Value element, llvm::ArrayRef<mlir::Value> counters,
           mlir::Operation *store, mlir::Value written,
           llvm::function_ref<mlir::InFlightDiagnostic(const llvm::Twine &)> refuse);

/// Clone `op`, one of a nest's element ops, with `map`. A load at a place
/// fixed in `nest` (its operands defined outside it) is cloned once per
/// `shared` map and reused, as the lowering reads such an element once per
/// loop body.
void cloneElementOp(mlir::OpBuilder &b, mlir::Operation *op, mlir::IRMapping &map,
                    mlir::IRMapping &shared, mlir::Operation *nest);

/// Erase `nest` and the index constants of its bounds nothing else reads.
void eraseNest(mlir::scf::ParallelOp nest);

/// The yield ending a loop's body.
inline mlir::scf::YieldOp yieldOf(mlir::scf::ForOp loop) {
  return llvm::cast<mlir::scf::YieldOp>(loop.getBody()->getTerminator());
}

} // namespace scaly::prog

#endif
