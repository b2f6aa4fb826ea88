//===- PlanLoopOrders.cpp - loop orders that avoid large strides -----------===//
//
// "One loop per result axis, in order" walks memory with a large stride for
// a reduction over one axis that is not the last, into a large result
// (`X.sum(axis=0)`). This pass marks such a reduction scaly.loop_order =
// "rows", and scaly-lower-to-program lowers it by row accumulation
// (LoopStrategies.cpp): the first row is copied into the result and every
// later row combined into it, the innermost loop running over the
// contiguous trailing axes (NumPy's own order, so its result bit for bit).
//
// The other order, 4 x 4 register blocks for a value computed through a
// transpose, stays a decision of the lowering: whether the transpose is read
// in place or from memory depends on what the lowering has already stored
// (a transpose that a matrix product needed in memory is read from there),
// which an expression-level plan cannot see without also deciding storage.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DEF_PLANLOOPORDERS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

struct PlanLoopOrdersPass : public scaly::expr::impl::PlanLoopOrdersBase<PlanLoopOrdersPass> {
  using PlanLoopOrdersBase::PlanLoopOrdersBase;

  void runOnOperation() override {
    if (failed(checkScalarizeLimit(getOperation(), getArgument(), scalarizeLimit)))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](Operation *op) {
      if (!isa<ExprDialect>(op->getDialect()))
        return;
      op->removeAttr(kLoopOrderAttr);
      if (auto reduce = dyn_cast<ReduceOp>(op); reduce && accumulatesRows(reduce, scalarizeLimit))
        op->setAttr(kLoopOrderAttr, StringAttr::get(ctx, "rows"));
    });
  }
};

} // namespace
