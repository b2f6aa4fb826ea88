//===- ProgramCanonicalization.cpp - prog folders, patterns, loop interface ===//
//
// What the upstream passes need to work on the program dialect: prog.for as
// a LoopLikeOpInterface (so upstream loop-invariant-code-motion hoists out of
// it), and the folders and canonicalization patterns ODS declares (run by
// upstream canonicalize and by scaly-canonicalize-program, which the lowering
// pipeline runs after scaly-lower-to-program).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace scaly::prog;

//===----------------------------------------------------------------------===//
// ForOp as a loop
//===----------------------------------------------------------------------===//

SmallVector<Region *> ForOp::getLoopRegions() { return {&getBody()}; }

std::optional<SmallVector<Value>> ForOp::getLoopInductionVars() {
  return SmallVector<Value>{getInductionVar()};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopLowerBounds() {
  return SmallVector<OpFoldResult>{getLowerAttr()};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopUpperBounds() {
  return SmallVector<OpFoldResult>{getUpperAttr()};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopSteps() {
  return SmallVector<OpFoldResult>{getStepAttr()};
}

MutableArrayRef<OpOperand> ForOp::getInitsMutable() { return getInitArgsMutable(); }

Block::BlockArgListType ForOp::getRegionIterArgs() {
  return getBody().getArguments().drop_front();
}

std::optional<MutableArrayRef<OpOperand>> ForOp::getYieldedValuesMutable() {
  return getYield().getValuesMutable();
}

std::optional<ResultRange> ForOp::getLoopResults() { return getResults(); }

/// A loop of exactly one iteration becomes its body, the counter its lower
/// bound and the carried values their inits.
LogicalResult ForOp::promoteIfSingleIteration(RewriterBase &rewriter) {
  if (getTripCount() != 1)
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(*this);
  Value counter = rewriter.create<arith::ConstantOp>(getLoc(), getLowerAttr());
  SmallVector<Value> args{counter};
  llvm::append_range(args, getInitArgs());
  YieldOp yield = getYield();
  rewriter.inlineBlockBefore(getBodyBlock(), *this, args);
  // The yield now names the inlined values: they are the loop's results.
  SmallVector<Value> results(yield.getValues());
  rewriter.eraseOp(yield);
  rewriter.replaceOp(*this, results);
  return success();
}

namespace {

/// A loop whose body never runs: its results are its init values.
struct EraseZeroTripLoop : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    if (loop.getTripCount() != 0)
      return failure();
    rewriter.replaceOp(loop, loop.getInitArgs());
    return success();
  }
};

/// A loop with results nobody uses whose body only reads and computes
/// (nested loops and branches included): removed. (With RecursiveMemoryEffects
/// the greedy driver's dead-op removal finds such loops too; this pattern
/// goes with prog.for. A loop without results exists for its writes and is
/// not looked into.)
struct EraseDeadLoop : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    if (loop.getNumResults() == 0 || !loop->use_empty())
      return failure();
    WalkResult writes = loop.getBody().walk([](Operation *op) {
      if (isa<ForOp>(op) || op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          op->hasTrait<OpTrait::IsTerminator>() ||
          isMemoryEffectFree(op))
        return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      return effects && effects.onlyHasEffect<MemoryEffects::Read>() ? WalkResult::advance()
                                                                     : WalkResult::interrupt();
    });
    if (writes.wasInterrupted())
      return failure();
    rewriter.eraseOp(loop);
    return success();
  }
};

struct InlineSingleTripLoop : OpRewritePattern<ForOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ForOp loop, PatternRewriter &rewriter) const override {
    return loop.promoteIfSingleIteration(rewriter);
  }
};

/// prog.offset of an offset without index: one offset of the inner base,
/// the biases added (the outer index and scale kept).
struct CombineOffsets : OpRewritePattern<OffsetOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OffsetOp outer, PatternRewriter &rewriter) const override {
    auto inner = outer.getBase().getDefiningOp<OffsetOp>();
    if (!inner || inner.getIndex())
      return failure();
    rewriter.replaceOpWithNewOp<OffsetOp>(outer, outer.getType(), inner.getBase(),
                                          outer.getIndex(), outer.getScale(),
                                          inner.getBias() + outer.getBias());
    return success();
  }
};

/// A constant index is part of the bias.
struct FoldConstantIndex : OpRewritePattern<OffsetOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(OffsetOp offset, PatternRewriter &rewriter) const override {
    APInt index;
    if (!offset.getIndex() || !matchPattern(offset.getIndex(), m_ConstantInt(&index)))
      return failure();
    rewriter.replaceOpWithNewOp<OffsetOp>(
        offset, offset.getType(), offset.getBase(), Value(), 1,
        offset.getBias() + index.getSExtValue() * offset.getScale());
    return success();
  }
};

} // namespace

void ForOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<EraseZeroTripLoop, EraseDeadLoop, InlineSingleTripLoop>(context);
}

void OffsetOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<CombineOffsets, FoldConstantIndex>(context);
}

OpFoldResult OffsetOp::fold(FoldAdaptor) {
  if (!getIndex() && getBias() == 0 && getBase().getType() == getType())
    return getBase();
  return {};
}
