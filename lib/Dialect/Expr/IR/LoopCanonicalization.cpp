//===- LoopCanonicalization.cpp - dead results of expr.loop ---------------===//
//
// expr.loop's canonicalization pattern (declared in ODS with
// `hasCanonicalizer`): results nobody uses are dropped, so a discarded scan
// output or map result costs neither work nor workspace.
//
// A stacked (non-carried) result is dead when it has no use. A carried value
// is dead when its final value has no use and no kept result depends on its
// current value; dependence is found by walking backwards from the yielded
// values that stay, through the body's operations (and their nested
// regions), and from a carried block argument to the value yielded for it
// (its update), to a fixed point. A carried value read by a kept carried
// value's update is thus kept, whatever its own result's uses. A sliced
// operand whose block argument is then unused is dropped too. The body's
// operations that fed only dropped values are left for the usual dead-code
// removal of the rewriter.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace scaly::expr;

namespace {

struct DropDeadLoopResults : OpRewritePattern<LoopOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(LoopOp loop, PatternRewriter &rewriter) const override {
    Block &body = loop.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    unsigned carried = loop.getNumCarried();
    unsigned numResults = loop.getNumResults();

    // Results kept: a used stacked result, and the carried values the kept
    // results depend on.
    SmallVector<bool> keep(numResults, false);
    SmallVector<Value> worklist;
    llvm::SmallPtrSet<Operation *, 32> visited;
    auto keepResult = [&](unsigned i) {
      if (keep[i])
        return;
      keep[i] = true;
      worklist.push_back(yield.getOperand(i));
    };
    for (unsigned i = 0; i < numResults; ++i)
      if (!loop.getResult(i).use_empty())
        keepResult(i);
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        if (arg.getOwner() == &body && arg.getArgNumber() < carried)
          keepResult(arg.getArgNumber());
        continue;
      }
      Operation *def = v.getDefiningOp();
      if (!loop->isProperAncestor(def) || !visited.insert(def).second)
        continue;
      // The operands of the op and of every op nested in it.
      def->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          worklist.push_back(operand);
      });
    }

    // Sliced operands whose block argument nothing will read.
    SmallVector<bool> keepOperand(loop.getNumOperands(), true);
    for (unsigned i = 0; i < carried; ++i)
      keepOperand[i] = keep[i];
    for (unsigned i = carried; i < loop.getNumOperands(); ++i)
      keepOperand[i] = !body.getArgument(i).use_empty();
    if (llvm::all_of(keep, [](bool k) { return k; }) &&
        llvm::all_of(keepOperand, [](bool k) { return k; }))
      return failure();

    // A dropped carried value's current value may still be read by the body's
    // dead operations: give them the initial value (defined outside, same
    // type) until the rewriter erases them.
    for (unsigned i = 0; i < carried; ++i)
      if (!keep[i])
        rewriter.replaceAllUsesWith(body.getArgument(i), loop.getOperand(i));

    SmallVector<Value> operands;
    SmallVector<Type> resultTypes;
    SmallVector<Value> yielded;
    unsigned newCarried = 0;
    for (unsigned i = 0; i < loop.getNumOperands(); ++i)
      if (keepOperand[i])
        operands.push_back(loop.getOperand(i));
    for (unsigned i = 0; i < numResults; ++i)
      if (keep[i]) {
        resultTypes.push_back(loop.getResult(i).getType());
        yielded.push_back(yield.getOperand(i));
        if (i < carried)
          ++newCarried;
      }

    auto fresh = rewriter.create<LoopOp>(
        loop.getLoc(), resultTypes, loop.getCountAttr(), operands, loop.getNameAttr(),
        newCarried ? rewriter.getI64IntegerAttr(newCarried) : IntegerAttr());
    // Keep any other attributes the loop carries.
    for (NamedAttribute attr : loop->getDiscardableAttrs())
      fresh->setAttr(attr.getName(), attr.getValue());
    rewriter.inlineRegionBefore(loop.getBody(), fresh.getBody(), fresh.getBody().end());
    Block &newBody = fresh.getBody().front();
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<YieldOp>(yield, yielded);
    BitVector dropArgs(newBody.getNumArguments());
    for (unsigned i = 0; i < keepOperand.size(); ++i)
      if (!keepOperand[i])
        dropArgs.set(i);
    newBody.eraseArguments(dropArgs);

    SmallVector<Value> replacements;
    unsigned next = 0;
    for (unsigned i = 0; i < numResults; ++i)
      replacements.push_back(keep[i] ? fresh.getResult(next++) : Value());
    rewriter.replaceOp(loop, replacements);
    return success();
  }
};

} // namespace

void LoopOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<DropDeadLoopResults>(context);
}
