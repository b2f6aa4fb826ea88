//===- FormFusedOps.cpp - fusion groups as expr.fused ops -----------------===//
//
// scaly-plan-fusion decides which large values are computed where they are
// read (scaly.fused). This pass carries that decision out on the expression
// level, as Linalg's elementwise fusion does: each group of marked ops that
// together compute one value read by something else becomes one expr.fused,
// whose body the lowering computes element by element inside its
// consumers' loops. The groups are then IR: printed, tested and checked on
// their own, and the lowering no longer reads the marks.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace scaly::expr {
#define GEN_PASS_DEF_FORMFUSEDOPS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// The ops of `block` computed where they are read, in block order: marked
/// ones, and reshapes of those (a reshape of a value computed in place is
/// read through). A mark on an op that cannot be computed so (a hand-written
/// one) is an error.
FailureOr<llvm::SetVector<Operation *>> computedWhereRead(Block &block) {
  llvm::SetVector<Operation *> members;
  for (Operation &op : block.without_terminator()) {
    bool member = op.hasAttr(kFusedAttr);
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      member |= members.contains(reshape.getOperand().getDefiningOp());
    if (!member)
      continue;
    if (op.getNumResults() != 1 || !isFusible(&op))
      return op.emitOpError("is marked ") << kFusedAttr
                                          << " but cannot be computed where it is read (only "
                                             "elementwise ops, views, concatenations and "
                                             "gathers can)";
    members.insert(&op);
  }
  return members;
}

/// Clones `v` into the builder's block with the members it reads,
/// transitively (each read once, by the member it is cloned for); anything
/// else is read from outside.
Value cloneGroup(OpBuilder &b, Value v, const llvm::SetVector<Operation *> &members,
                 IRMapping &mapping) {
  Operation *def = v.getDefiningOp();
  if (!def || !members.contains(def))
    return v;
  if (Value done = mapping.lookupOrNull(v))
    return done;
  for (Value operand : def->getOperands())
    cloneGroup(b, operand, members, mapping);
  Operation *clone = b.clone(*def, mapping);
  // The body says it now: the mark would only repeat it.
  clone->removeAttr(kFusedAttr);
  return clone->getResult(0);
}

LogicalResult formGroups(Block &block) {
  FailureOr<llvm::SetVector<Operation *>> found = computedWhereRead(block);
  if (failed(found))
    return failure();
  llvm::SetVector<Operation *> &members = *found;
  OpBuilder b(block.getParentOp()->getContext());
  for (Operation *root : members) {
    // A value read once, by a member of this block, is computed in that
    // member's group; any other roots a group of its own, which its
    // readers read (a view read twice is then stored at most once).
    Value value = root->getResult(0);
    if (value.use_empty()) // read by nothing: erased below
      continue;
    if (value.hasOneUse()) {
      Operation *user = value.getUses().begin()->getOwner();
      if (user->getBlock() == &block && members.contains(user))
        continue;
    }
    b.setInsertionPoint(root);
    auto fused = b.create<FusedOp>(root->getLoc(), value.getType());
    if (Attribute place = root->getAttr(kPlaceAttr))
      fused->setAttr(kPlaceAttr, place);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&fused.getBody().emplaceBlock());
    IRMapping mapping;
    Value computed = cloneGroup(b, value, members, mapping);
    b.create<YieldOp>(root->getLoc(), ValueRange{computed});
    value.replaceAllUsesWith(fused.getResult());
  }
  // The originals are read only by each other now, or by nothing.
  for (Operation *op : llvm::reverse(members))
    if (op->use_empty())
      op->erase();
  return success();
}

struct FormFusedOpsPass : public scaly::expr::impl::FormFusedOpsBase<FormFusedOpsPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      if (!isa<FusedOp>(block->getParentOp()))
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      if (failed(formGroups(*block)))
        return signalPassFailure();
  }
};

} // namespace
