//===- Simplify.cpp - algebraic simplification of expressions -------------===//
//
// Runs the expression ops' folders (constant folding, x+0, x*1, --x, gather of
// gather, reshape of reshape) with the greedy rewriter, plus the rewrites
// below that need new ops and the ops' canonicalization patterns declared in
// ODS (expr.loop drops dead results: a discarded scan or map output).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace scaly::expr {
#define GEN_PASS_DEF_SIMPLIFY
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// x - (-y) -> x + y
struct SubOfNeg : OpRewritePattern<SubOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SubOp op, PatternRewriter &rewriter) const override {
    auto neg = op.getRhs().getDefiningOp<NegOp>();
    if (!neg)
      return failure();
    rewriter.replaceOpWithNewOp<AddOp>(op, op.getLhs(), neg.getOperand());
    return success();
  }
};

/// x + (-y) -> x - y
struct AddOfNeg : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddOp op, PatternRewriter &rewriter) const override {
    auto neg = op.getRhs().getDefiningOp<NegOp>();
    if (!neg)
      return failure();
    rewriter.replaceOpWithNewOp<SubOp>(op, op.getLhs(), neg.getOperand());
    return success();
  }
};

struct SimplifyPass : scaly::expr::impl::SimplifyBase<SimplifyPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SubOfNeg, AddOfNeg>(&getContext());
    LoopOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
