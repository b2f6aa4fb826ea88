//===- PlanLoopOrders.cpp - loop orders that avoid large strides -----------===//
//
// "One loop per result axis, in order" walks memory with a large stride in
// two cases, and this pass marks the ops that scaly-lower-to-program lowers
// in another order (scaly.loop_order, LoopStrategies.cpp builds them):
//
//  * "rows": a reduction over one axis that is not the last, into a large
//    result (`X.sum(axis=0)`): the first row is copied into the result and
//    every later row combined into it, the innermost loop running over the
//    contiguous trailing axes (NumPy's own order, so its result bit for bit).
//
//  * "blocks": a large float result of rank 2 or more (its last two axes at
//    least 4) computed, with arithmetic only, through a transpose that moves
//    the last axis (`X.T + 0`, `2 * X.T - Y`): it is stored in 4 x 4 register
//    blocks, each block's 16 elements read before its four row stores. A
//    result with libm calls keeps the plain nest, whose inner loop vector
//    lanes widen. The mark applies when the value is computed into memory
//    (not when a stored value is copied).
//
// What is computed where is scaly-plan-fusion's decision, so this pass runs
// after it and reads its marks.
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

class Planner {
public:
  explicit Planner(int64_t limit) : limit(limit) {}

  bool isLarge(Value v) const { return numElements(v.getType()) > limit; }

  /// Row accumulation applies: one reduced axis, not the last, at least two
  /// rows of at least two contiguous elements, a large operand and result.
  bool accumulatesRows(ReduceOp o) const {
    ArrayRef<int64_t> axes = o.getAxes();
    if (axes.size() != 1 || !isLarge(o.getOperand()) || !isLarge(o.getResult()))
      return false;
    ArrayRef<int64_t> shape = cast<RankedTensorType>(o.getOperand().getType()).getShape();
    int64_t axis = axes[0], rank = static_cast<int64_t>(shape.size());
    if (axis == rank - 1 || shape[axis] < 2)
      return false;
    int64_t run = 1;
    for (int64_t n : shape.drop_front(axis + 1))
      run *= n;
    return run >= 2;
  }

  /// Register blocks apply to the value `op` computes.
  bool storesInBlocks(Operation *op) const {
    if (op->getNumResults() != 1 || !isLarge(op->getResult(0)))
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
      return false;
    ArrayRef<int64_t> shape = type.getShape();
    if (shape[shape.size() - 2] < kBlock || shape.back() < kBlock)
      return false;
    bool found = false;
    return readsTransposed(op, found) && found;
  }

private:
  static constexpr int64_t kBlock = 4;
  int64_t limit;

  bool computedInPlace(Value v) const { return scaly::expr::computedInPlace(v, limit); }

  /// Whether computing `op`'s value takes arithmetic only, reading values in
  /// memory and constants; `found` is set when it reads a transpose that
  /// moves the last axis (strided reads along the result's rows).
  bool readsTransposed(Operation *op, bool &found) const {
    auto operand = [&](Value x) {
      return !computedInPlace(x) || readsTransposed(x.getDefiningOp(), found);
    };
    if (auto t = dyn_cast<TransposeOp>(op)) {
      ArrayRef<int64_t> perm = t.getPermutation();
      found |= !perm.empty() && perm.back() != static_cast<int64_t>(perm.size()) - 1;
      return operand(t.getOperand());
    }
    if (isa<ConstantOp>(op))
      return true;
    if (isa<BroadcastOp, SliceOp>(op))
      return operand(op->getOperand(0));
    if (!isa<AddOp, SubOp, MulOp, DivOp, NegOp, CastOp, CmpOp, SelectOp>(op))
      return false;
    return llvm::all_of(op->getOperands(), operand);
  }
};

struct PlanLoopOrdersPass : public scaly::expr::impl::PlanLoopOrdersBase<PlanLoopOrdersPass> {
  using PlanLoopOrdersBase::PlanLoopOrdersBase;

  void runOnOperation() override {
    if (scalarizeLimit < 0) {
      getOperation().emitError("scaly-plan-loop-orders: scalarize-limit must be at least 0, got ")
          << static_cast<int64_t>(scalarizeLimit);
      return signalPassFailure();
    }
    Planner plan(scalarizeLimit);
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](Operation *op) {
      if (!isa<ExprDialect>(op->getDialect()))
        return;
      op->removeAttr(kLoopOrderAttr);
      auto reduce = dyn_cast<ReduceOp>(op);
      if (reduce ? plan.accumulatesRows(reduce) : plan.storesInBlocks(op))
        op->setAttr(kLoopOrderAttr, StringAttr::get(ctx, reduce ? "rows" : "blocks"));
    });
  }
};

} // namespace
