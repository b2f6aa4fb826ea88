//===- ProgramCanonicalization.cpp - prog folders and patterns -----------===//
//
// The folders and canonicalization patterns ODS declares (run by upstream
// canonicalize and by scaly-canonicalize-program, which the lowering
// pipeline runs after scaly-lower-to-program). Loops are upstream scf.for,
// simplified by upstream's patterns (a loop of no iteration becomes its init
// values, one of one iteration its body) and dead-op removal.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace scaly::prog;

namespace {

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

void OffsetOp::getCanonicalizationPatterns(RewritePatternSet &patterns, MLIRContext *context) {
  patterns.add<CombineOffsets, FoldConstantIndex>(context);
}

OpFoldResult OffsetOp::fold(FoldAdaptor) {
  if (!getIndex() && getBias() == 0 && getBase().getType() == getType())
    return getBase();
  return {};
}
