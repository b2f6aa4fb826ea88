//===- HoistInvariants.cpp - compute loop-invariant expressions once ------===//
//
// Work that gives the same value in every iteration of an expr.loop moves
// before the loop:
//
//  * an op whose operands are all defined outside the loop (MLIR's
//    loop-invariant code motion utility, through expr.loop's
//    LoopLikeOpInterface; a nested loop moves as a whole);
//  * in a loop nested in another, the part of the inner body that depends
//    only on operands invariant in the outer loop is split off into a loop
//    of its own (loop fission), which then moves out of the outer loop; the
//    inner loop reads its results as extra sliced operands.
//
// This is what makes a coloured Jacobian cheap: every sweep's body
// recomputes the primal values, which depend only on the inputs; they are
// computed once, and only the seed-dependent work stays in the sweeps.
// Constants stay where they are (they cost nothing and print inline).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace scaly::expr {
#define GEN_PASS_DEF_HOISTINVARIANTS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

bool isMovable(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>() || op->hasTrait<OpTrait::IsTerminator>())
    return false;
  if (op->getNumRegions() == 0)
    return isPure(op);
  return isa<LoopOp>(op) && isMemoryEffectFree(op);
}

/// Classic loop-invariant code motion over every loop, innermost first,
/// through expr.loop's LoopLikeOpInterface (its region, what is defined
/// outside it, where a moved op goes); only what moves is this pass's own.
size_t hoistInvariantOps(Operation *root) {
  size_t moved = 0;
  root->walk([&](LoopOp op) {
    auto loop = cast<LoopLikeOpInterface>(op.getOperation());
    moved += moveLoopInvariantCode(
        loop.getLoopRegions(), [&](Value v, Region *) { return loop.isDefinedOutsideOfLoop(v); },
        [&](Operation *op, Region *) { return isMovable(op); },
        [&](Operation *op, Region *) { loop.moveOutOfLoop(op); });
  });
  return moved;
}


/// Split off the part of `inner`'s body that is invariant in `outer` (see
/// the file comment). Returns whether anything was split off.
bool splitInvariantPart(LoopOp inner, LoopOp outer) {
  Region &outerRegion = outer.getBody();
  auto outsideOuter = [&](Value v) { return !outerRegion.isAncestor(v.getParentRegion()); };
  Block &body = inner.getBody().front();
  unsigned carried = inner.getNumCarried();

  // Block arguments fed by operands invariant in the outer loop.
  DenseSet<Value> invariant;
  SmallVector<unsigned> invariantOperands;
  for (unsigned i = carried; i < inner.getNumOperands(); ++i)
    if (outsideOuter(inner.getOperand(i))) {
      invariant.insert(body.getArgument(i));
      invariantOperands.push_back(i);
    }
  if (invariantOperands.empty())
    return false;
  auto isInvariant = [&](Value v) {
    if (invariant.count(v) || outsideOuter(v))
      return true;
    Operation *def = v.getDefiningOp();
    return def && def->hasTrait<OpTrait::ConstantLike>();
  };
  SmallVector<Operation *> part;
  for (Operation &op : body.without_terminator()) {
    if (op.getNumRegions() || !isPure(&op) || op.hasTrait<OpTrait::ConstantLike>())
      continue;
    if (!llvm::all_of(op.getOperands(), isInvariant))
      continue;
    part.push_back(&op);
    for (Value r : op.getResults())
      invariant.insert(r);
  }
  // Values of the split-off part the rest of the body still needs.
  llvm::SmallSetVector<Value, 8> exported;
  DenseSet<Operation *> inPart(part.begin(), part.end());
  for (Operation *op : part)
    for (Value r : op->getResults())
      for (Operation *user : r.getUsers())
        if (!inPart.count(user))
          exported.insert(r);
  if (exported.empty())
    return false;

  // The split-off loop: the invariant operands in, the exported values out.
  OpBuilder b(inner);
  Location loc = inner.getLoc();
  SmallVector<Value> operands;
  for (unsigned i : invariantOperands)
    operands.push_back(inner.getOperand(i));
  SmallVector<Type> types;
  for (Value v : exported)
    types.push_back(withLeadingAxis(v.getType(), inner.getCount()));
  auto split = b.create<LoopOp>(loc, types, inner.getCountAttr(), operands, inner.getNameAttr(),
                                IntegerAttr());
  Block *splitBody = new Block();
  split.getBody().push_back(splitBody);
  IRMapping map;
  for (unsigned i : invariantOperands)
    map.map(body.getArgument(i), splitBody->addArgument(body.getArgument(i).getType(), loc));
  OpBuilder sb = OpBuilder::atBlockEnd(splitBody);
  for (Operation *op : part) {
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == &body && def->hasTrait<OpTrait::ConstantLike>() &&
          !map.contains(v))
        map.map(v, sb.clone(*def)->getResult(0));
    sb.clone(*op, map);
  }
  SmallVector<Value> yielded;
  for (Value v : exported)
    yielded.push_back(map.lookup(v));
  sb.create<YieldOp>(loc, yielded);

  // The inner loop reads the exported values as slices of the split loop's.
  unsigned first = inner.getNumOperands();
  inner->insertOperands(first, split.getResults());
  for (Value v : exported.takeVector()) {
    Value arg = body.addArgument(v.getType(), loc);
    v.replaceUsesWithIf(arg, [&](OpOperand &use) { return !inPart.count(use.getOwner()); });
  }
  for (Operation *op : llvm::reverse(part))
    if (op->use_empty())
      op->erase();
  // Operands the inner loop no longer reads are dropped.
  for (unsigned i = inner.getNumOperands(); i-- > carried;)
    if (body.getArgument(i).use_empty()) {
      body.eraseArgument(i);
      inner->eraseOperand(i);
    }
  return true;
}

struct HoistInvariantsPass : scaly::expr::impl::HoistInvariantsBase<HoistInvariantsPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    hoistInvariantOps(root);
    // Fission then motion, until nothing more moves (nests are shallow).
    for (int round = 0; round < 4; ++round) {
      SmallVector<std::pair<LoopOp, LoopOp>> nests;
      root->walk([&](LoopOp inner) {
        if (auto outer = inner->getParentOfType<LoopOp>())
          nests.push_back({inner, outer});
      });
      bool split = false;
      for (auto [inner, outer] : nests)
        split |= splitInvariantPart(inner, outer);
      if (!split || hoistInvariantOps(root) == 0)
        break;
    }
  }
};

} // namespace
