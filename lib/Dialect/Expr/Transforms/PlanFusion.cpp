//===- PlanFusion.cpp - which large values are computed in their consumers -===//
//
// Arrays above the scalarization limit lower to loops. An elementwise op, a
// concatenation or a gather whose result has one use need not be stored: its
// consumer's loop computes each element where it reads it, so a chain such
// as (2*x).sin() + 1 is one loop. Views (broadcast, transpose, slice) are
// always read through, whatever their uses: an element of a view is an
// element of its operand at another index. This pass makes that decision
// visible and testable on its own: it marks each such op `scaly.fused`, and
// scaly-lower-to-program stores exactly the large values that carry no mark.
// A value whose one consumer reads it from memory (a gather, a reduction by
// the pairwise helpers or a strided run) is not marked: it is stored.
// A reshape is never marked: it reads its operand's storage, or is read
// through when its operand is; nor is a slice that is one contiguous run of
// a stored operand (a pointer into it).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DEF_PLANFUSION
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Whether `user` reads its large operand `v` from memory whatever its
/// plan, so that `v` is stored before it: a gather (at computed indices),
/// a matrix product of a large operand (prog.matmul), a call, a loop or a
/// solver (operands by pointer), and a reduction over trailing axes or one
/// axis, not accumulated by rows (the reduction helpers and the strided
/// runs read memory). A reduction
/// over several other axes reads a transpose with them moved last
/// (scaly-move-reduced-axes-last), and that transpose's copy computes the
/// operand where it reads it; a float sum of everything
/// larger than one block computes it one block at a time (sumsInBlocks).
bool readsFromMemory(Operation *user, Value v, int64_t limit) {
  if (isa<GatherOp, MatmulOp, CallOp, LoopOp, QpSolveOp, NlpSolveOp>(user))
    return true;
  auto reduce = dyn_cast<ReduceOp>(user);
  if (!reduce || numElements(v.getType()) <= limit || accumulatesRows(reduce, limit) ||
      sumsInBlocks(reduce))
    return false;
  return reducesTrailingAxes(reduce) || reduce.getAxes().size() == 1;
}

/// Whether the large result of `op` is computed in its consumers (the
/// marks of the ops before it already set).
bool fusedIntoConsumers(Operation *op, int64_t limit) {
  Value result = op->getResult(0);
  bool onlyReadFromMemory =
      result.hasOneUse() && readsFromMemory(*result.getUsers().begin(), result, limit);
  // A view is read through by any number of readers, but one read only
  // from memory is stored where it is made.
  if (auto slice = dyn_cast<SliceOp>(op)) {
    bool view = !computedInPlace(slice.getOperand(), limit) && contiguousStart(slice);
    return !view && !onlyReadFromMemory;
  }
  if (isa<BroadcastOp, TransposeOp>(op))
    return !onlyReadFromMemory;
  bool singleUse = result.hasOneUse() && !onlyReadFromMemory;
  if (isa<ConcatOp, GatherOp>(op))
    return singleUse;
  return isElementwise(op) && singleUse;
}

struct PlanFusionPass : public scaly::expr::impl::PlanFusionBase<PlanFusionPass> {
  using PlanFusionBase::PlanFusionBase;

  void runOnOperation() override {
    if (failed(checkScalarizeLimit(getOperation(), getArgument(), scalarizeLimit)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](Operation *op) {
      if (op->getNumResults() != 1 || !isa<ExprDialect>(op->getDialect()))
        return;
      op->removeAttr(kFusedAttr);
      if (numElements(op->getResult(0).getType()) > scalarizeLimit &&
          fusedIntoConsumers(op, scalarizeLimit))
        op->setAttr(kFusedAttr, UnitAttr::get(ctx));
    });
  }
};

} // namespace
