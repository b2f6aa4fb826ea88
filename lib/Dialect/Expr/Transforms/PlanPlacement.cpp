//===- PlanPlacement.cpp - where each value lives once lowered --------------===//
//
// Destination passing: a value that ends in an output of the function, or in
// the memory a loop's yield operand is written to (this iteration's slice of
// a stacked result, the next value of a large carried one), is produced there
// instead of being copied in at the end. So is a reshape's operand (a reshape
// is free), and each part of a leading-axis concatenation (sc.stack), in its
// place at an offset: the results of kept calls and loops need no copy.
// This pass records the decision on each op as expr.place, one #expr.place
// per result:
//
//   output K [offset O] / yield K [offset O]   produced in that memory
//   workspace   memory of its own, a window of the workspace, when stored
//               (a fused value is computed where it is read, a large
//               constant is a table, a view or reshape points into its
//               operand)
//   registers   scalars, no memory of its own: an array of at most
//               scalarize-limit elements, other than a result the lowering
//               always writes to memory (calls, loops, solvers, a matrix
//               product of a large operand) or a small stack produced in
//               place
//
// Two plans more: on each expr.loop with carried values, expr.next, where
// each next value is built (a window of its own when it is above the limit,
// else scalars), and on each expr.func the limit itself
// (expr.scalarize_limit), which the lowering reads instead of having an
// option of its own: one limit decides the plans and how the lowering reads
// and writes values (loops or element by element).
//
// scaly-lower-to-program reads the plan: it computes a value planned into
// registers as scalars and any other by loops (the scalarization decision),
// produces a value in its planned output or slice, gives a workspace window
// to a value planned there (and spills to one a value a reader needs in
// memory that has none: scalars, a value computed where it is read), and
// refuses a function whose ops carry no plan.
//
// Only values computed in the block of the return or yield are placed there
// (a pointer into the output would not dominate a value from an enclosing
// block, which is copied instead); a reshape's operand and a concatenation's
// parts only when that is their one use; the first placement of a value wins.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DEF_PLANPLACEMENT
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// The places of one function's values, as they are decided.
class Placement {
public:
  Placement(MLIRContext *ctx, int64_t limit) : ctx(ctx), limit(limit) {}

  /// Place `v`, computed in `block`, in `kind` number `index` at `offset`,
  /// and what it is made of with it (a reshape's operand, a leading-axis
  /// concatenation's parts at their offsets).
  void placeInto(Value v, PlaceKind kind, int64_t index, int64_t offset, Block *block) {
    if (v.getParentBlock() != block || planned.count(v))
      return;
    planned[v] = PlaceAttr::get(ctx, kind, index, offset);
    // An expr.fused is produced where its body's value is (planned after
    // scaly-form-fused-ops: the body then holds what the root was made of).
    if (auto fused = v.getDefiningOp<FusedOp>())
      placeInto(fused.getRoot(), kind, index, offset, &fused.getBody().front());
    if (auto reshape = v.getDefiningOp<ReshapeOp>())
      if (reshape.getOperand().hasOneUse())
        placeInto(reshape.getOperand(), kind, index, offset, block);
    auto concat = v.getDefiningOp<ConcatOp>();
    if (!concat || concat.getAxis().value_or(0) != 0)
      return;
    int64_t at = offset;
    for (Value part : concat.getOperands()) {
      int64_t n = numElements(part.getType());
      if (n > 0 && part.hasOneUse())
        placeInto(part, kind, index, at, block);
      at += n;
    }
  }

  /// The outputs of a function, in order.
  void placeReturned(ReturnOp ret) {
    for (auto [k, v] : llvm::enumerate(ret.getOperands()))
      placeInto(v, PlaceKind::output, k, 0, ret->getBlock());
  }

  /// Where the loop builds each carried value's next value (expr.next): a
  /// large one in a window of its own (it may read the current value while
  /// it is computed), a small one as scalars, all read before any is
  /// stored. The yield operands of its body: stacked ones into this
  /// iteration's slice, carried ones built in a window into that window.
  void placeYielded(YieldOp yield) {
    // An expr.fused's yield is its value: placed with the expr.fused.
    auto loop = dyn_cast<LoopOp>(yield->getParentOp());
    if (!loop)
      return;
    unsigned carried = loop.getNumCarried();
    planNextValues(loop);
    for (auto [k, v] : llvm::enumerate(yield.getOperands()))
      if (k >= carried || nextInWindow(loop, k))
        placeInto(v, PlaceKind::yield, k, 0, yield->getBlock());
  }

  /// The limit the plans follow, on `func`: the lowering reads it there.
  void recordLimit(FuncOp func) {
    func->setAttr(kScalarizeLimitAttr, IntegerAttr::get(IntegerType::get(ctx, 64), limit));
  }

  /// Record the plan on each op with results: its destination when it is
  /// produced there, else the workspace or registers. A small value the
  /// lowering scalarizes is registers even on its way to an output (its
  /// scalars are stored there by the consumer's copy).
  void record(Operation *op) {
    // Most ops have one result and no destination: their plan is one of two
    // attributes, made once (uniquing one per op was most of the pass).
    if (op->getNumResults() == 1 && !planned.count(op->getResult(0))) {
      PlaceKind kind =
          mayNeedMemory(op->getResult(0), limit) ? PlaceKind::workspace : PlaceKind::registers;
      ArrayAttr &plan = kind == PlaceKind::workspace ? onlyWorkspace : onlyRegisters;
      if (!plan)
        plan = ArrayAttr::get(ctx, PlaceAttr::get(ctx, kind, 0, 0));
      op->setAttr(kPlaceAttr, plan);
      return;
    }
    SmallVector<Attribute> places;
    for (OpResult r : op->getResults()) {
      bool memory = mayNeedMemory(r, limit);
      PlaceAttr p = planned.lookup(r);
      if (!p || !(memory || smallInPlace(r)))
        p = PlaceAttr::get(ctx, memory ? PlaceKind::workspace : PlaceKind::registers, 0, 0);
      places.push_back(p);
    }
    op->setAttr(kPlaceAttr, ArrayAttr::get(ctx, places));
  }

private:
  void planNextValues(LoopOp loop) {
    unsigned carried = loop.getNumCarried();
    if (carried == 0) {
      loop->removeAttr(kNextAttr);
      return;
    }
    SmallVector<Attribute> next;
    for (unsigned k = 0; k < carried; ++k) {
      bool large = numElements(loop.getResult(k).getType()) > limit;
      next.push_back(
          PlaceAttr::get(ctx, large ? PlaceKind::workspace : PlaceKind::registers, 0, 0));
    }
    loop->setAttr(kNextAttr, ArrayAttr::get(ctx, next));
  }

  /// Whether the small value `v` is in memory at its planned destination
  /// once lowered: a result the lowering always writes to memory (a call's,
  /// a loop's, ...), a reshape of such a value planned in the same place, a
  /// leading-axis concatenation whose non-empty parts all are, each at its
  /// offset (the concatenation is then that memory, nothing copied). Any
  /// other small value is scalars.
  bool smallInPlace(Value v) {
    PlaceAttr p = planned.lookup(v);
    auto r = dyn_cast<OpResult>(v);
    if (!p || !r)
      return false;
    if (mayNeedMemory(r, limit))
      return true;
    if (auto reshape = dyn_cast<ReshapeOp>(r.getOwner()))
      return planned.lookup(reshape.getOperand()) == p && smallInPlace(reshape.getOperand());
    auto concat = dyn_cast<ConcatOp>(r.getOwner());
    if (!concat || concat.getAxis().value_or(0) != 0)
      return false;
    int64_t at = p.getOffset();
    for (Value part : concat.getOperands()) {
      int64_t n = numElements(part.getType());
      auto expected = PlaceAttr::get(ctx, p.getKind(), p.getIndex(), at);
      if (n > 0 && (planned.lookup(part) != expected || !smallInPlace(part)))
        return false;
      at += n;
    }
    return true;
  }

  MLIRContext *ctx;
  /// Arrays with more elements than this lower to loops.
  int64_t limit;
  /// The plans of a single result in registers, or in the workspace (made
  /// on first use: the expr dialect is loaded once there is an expr op).
  ArrayAttr onlyRegisters, onlyWorkspace;
  DenseMap<Value, PlaceAttr> planned;
};

struct PlanPlacementPass : public scaly::expr::impl::PlanPlacementBase<PlanPlacementPass> {
  using PlanPlacementBase::PlanPlacementBase;

  void runOnOperation() override {
    if (failed(checkScalarizeLimit(getOperation(), getArgument(), scalarizeLimit)))
      return signalPassFailure();
    Placement placement(&getContext(), scalarizeLimit);
    getOperation()->walk([&](Operation *op) {
      if (auto func = dyn_cast<FuncOp>(op))
        placement.recordLimit(func);
      else if (auto ret = dyn_cast<ReturnOp>(op))
        placement.placeReturned(ret);
      else if (auto yield = dyn_cast<YieldOp>(op))
        placement.placeYielded(yield);
    });
    getOperation()->walk([&](Operation *op) {
      if (needsPlacement(op))
        placement.record(op);
    });
  }
};

} // namespace
