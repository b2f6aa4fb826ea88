//===- CanonicalizeProgram.cpp - canonicalize without revisiting loops -----===//
//
// Upstream `canonicalize` on a procedure, with the same patterns and folders,
// but a loop is simplified once its body is, not after every change inside
// it. Why: upstream's greedy driver re-enqueues every ancestor of a changed
// op up to the procedure, and an op with RecursiveMemoryEffects (scf.for,
// scf.if, scf.while) then gets its dead-op test, which walks its whole body,
// each time: in a deep loop nest that is most of the pass's time.
//
// Each round therefore
//  1. seeds as canonicalize does: a pre-order walk in which an
//     OperationFolder hoists and unifies the existing constants;
//  2. simplifies every op without regions with applyOpPatternsAndFold in
//     ExistingAndNewOps mode (the ops holding a body are not in its set, so
//     the driver's ancestor re-adds skip them), in pre-order as
//     canonicalize's top-down seeding does;
//  3. simplifies the ops holding a body, innermost first;
// and rounds repeat, at most 10 (canonicalize's max-iterations), until one
// changes nothing. Canonicalize's region simplification (dead-code
// elimination, unreachable blocks) is left out: the driver already erases
// every op left without uses, and a procedure has no unreachable blocks.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/FoldUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace scaly::prog {
#define GEN_PASS_DEF_CANONICALIZEPROGRAM
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

/// Upstream canonicalize's default max-iterations.
constexpr int kMaxRounds = 10;

/// The ops of one round, in pre-order: those without regions and those that
/// hold a body (loops and branches), apart.
struct RoundOps {
  SmallVector<Operation *> plain;
  SmallVector<Operation *> withBody;
};

/// Walks `body` in pre-order as canonicalize's top-down seeding does:
/// constants are hoisted and unified by `folder` (a duplicate is erased and
/// not listed).
RoundOps seedRound(Region &body, OperationFolder &folder) {
  RoundOps ops;
  body.walk<WalkOrder::PreOrder>([&](Operation *op) {
    Attribute value;
    if (matchPattern(op, m_Constant(&value)) && !folder.insertKnownConstant(op, value))
      return WalkResult::skip();
    (op->getNumRegions() == 0 ? ops.plain : ops.withBody).push_back(op);
    return WalkResult::advance();
  });
  return ops;
}

/// Remembers the ops a rewrite erases, so that a later step does not hand
/// them to the driver.
struct ErasedOps : RewriterBase::Listener {
  DenseSet<Operation *> erased;
  void notifyOperationErased(Operation *op) override { erased.insert(op); }
};

/// Applies `patterns` and the folders to `ops` and the ops the rewrites
/// create, and to no other op. The driver pops its worklist from the back:
/// `ops` reversed are processed in their order.
bool simplifyOnly(ArrayRef<Operation *> ops, Region &scope,
                  const FrozenRewritePatternSet &patterns, ErasedOps &erased) {
  GreedyRewriteConfig config;
  config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
  config.scope = &scope;
  config.listener = &erased;
  SmallVector<Operation *> reversed(llvm::reverse(ops));
  bool changed = false;
  (void)applyOpPatternsAndFold(reversed, patterns, config, &changed);
  return changed;
}

struct CanonicalizeProgramPass
    : scaly::prog::impl::CanonicalizeProgramBase<CanonicalizeProgramPass> {
  std::shared_ptr<const FrozenRewritePatternSet> patterns;

  /// The patterns canonicalize collects: every loaded dialect's and every
  /// registered op's.
  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet collected(context);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(collected);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(collected, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(collected));
    return success();
  }

  /// One round; whether it changed anything other than the constants' places.
  /// No region simplification: every op of the body is on the driver's
  /// worklist, which erases each op left without uses (canonicalize's
  /// region DCE found nothing more: the same IR as --canonicalize, the C of
  /// 476 models unchanged), and procedures hold no unreachable blocks. It
  /// took a fifth of the pass (a Jacobian's procedures 14.9 -> 11.5 ms).
  bool round(Region &body) {
    OperationFolder folder(&getContext());
    RoundOps ops = seedRound(body, folder);
    ErasedOps erased;
    bool changed = simplifyOnly(ops.plain, body, *patterns, erased);
    // Innermost first: the reverse of pre-order puts a body's ops before
    // the op holding it.
    SmallVector<Operation *> innermostFirst;
    for (Operation *op : llvm::reverse(ops.withBody))
      if (!erased.erased.contains(op))
        innermostFirst.push_back(op);
    changed |= simplifyOnly(innermostFirst, body, *patterns, erased);
    return changed;
  }

  /// On each procedure: the render pipeline nests the pass on prog.proc,
  /// and runs it on the module when a stage observer watches.
  void runOnOperation() override {
    getOperation()->walk<WalkOrder::PreOrder>([&](ProcOp proc) {
      for (int k = 0; k < kMaxRounds && round(proc.getBody()); ++k) {
      }
      return WalkResult::skip();
    });
  }
};

} // namespace
