//===- Reciprocal.cpp - divide by invariant divisors through reciprocals --===//
//
// The recipe's reciprocal=True: `x / d` with d a constant, or a value that
// does not change across the iterations of the innermost scf.for holding
// the division, becomes `x * r` with r = 1 / d computed once, right after d
// (a constant's reciprocal is folded). Divisions outside loops by values
// that vary are left alone: there the rewrite saves nothing.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace scaly::prog {
#define GEN_PASS_DEF_RECIPROCAL
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

/// Whether `v` is the same in every iteration of `loop`: defined outside it,
/// or computed inside from such values without reading memory the loop may
/// write (loads through pointers that do not move with the counter count,
/// since the program dialect's loops write through moving pointers only
/// where their iterations are independent).
bool invariantIn(Value v, scf::ForOp loop, DenseMap<Value, bool> &memo) {
  if (!loop->isProperAncestor(v.getParentBlock()->getParentOp()) &&
      v.getParentBlock()->getParentOp() != loop.getOperation())
    return true;
  if (v == loop.getInductionVar())
    return false;
  auto it = memo.find(v);
  if (it != memo.end())
    return it->second;
  Operation *def = v.getDefiningOp();
  bool result = def && def->getNumRegions() == 0 &&
                (isPure(def) || isa<LoadOp>(def)) &&
                llvm::all_of(def->getOperands(), [&](Value o) { return invariantIn(o, loop, memo); });
  if (result && isa<LoadOp>(def)) {
    // The loaded buffer must not be written in the loop.
    Value loaded = rootOf(cast<LoadOp>(def).getPtr());
    loop.getBody()->walk([&](StoreOp store) {
      if (rootOf(store.getPtr()) != loaded)
        return WalkResult::advance();
      result = false;
      return WalkResult::interrupt();
    });
  }
  memo[v] = result;
  return result;
}

struct ReciprocalPass : scaly::prog::impl::ReciprocalBase<ReciprocalPass> {
  void runOnOperation() override {
    DenseMap<Value, Value> reciprocals;
    SmallVector<arith::DivFOp> divisions;
    getOperation()->walk([&](arith::DivFOp div) { divisions.push_back(div); });
    for (arith::DivFOp div : divisions) {
      Value d = div.getRhs();
      auto constant = d.getDefiningOp<arith::ConstantOp>();
      auto loop = div->getParentOfType<scf::ForOp>();
      DenseMap<Value, bool> memo;
      if (!constant && !(loop && invariantIn(d, loop, memo)))
        continue;
      Value &r = reciprocals[d];
      if (!r) {
        OpBuilder b(div);
        if (constant) {
          auto value = cast<FloatAttr>(constant.getValue());
          double inv = 1.0 / value.getValueAsDouble();
          b.setInsertionPointAfter(constant);
          r = b.create<arith::ConstantOp>(div.getLoc(), b.getFloatAttr(d.getType(), inv));
        } else {
          if (Operation *def = d.getDefiningOp())
            b.setInsertionPointAfter(def);
          else
            b.setInsertionPointToStart(d.getParentBlock());
          Value one = b.create<arith::ConstantOp>(div.getLoc(), b.getFloatAttr(d.getType(), 1.0));
          r = b.create<arith::DivFOp>(div.getLoc(), one, d);
        }
      }
      OpBuilder b(div);
      div.replaceAllUsesWith(
          b.create<arith::MulFOp>(div.getLoc(), div.getLhs(), r).getResult());
      div.erase();
    }
  }
};

} // namespace
