//===- MoveReducedAxesLast.cpp - reductions over trailing axes only --------===//
//
// The reduction helpers read memory: a run of contiguous elements, or one
// strided run (a single axis). A large reduction over several axes that are
// not the trailing ones reads neither, so this pass gives it an operand that
// has them last: a transpose planned into a workspace window (stored where
// it is made, one nest in the transposed order), whose contiguous runs the
// reduction reduces. The lowering then has one form for large
// reductions, and the copy is an expression-level value like any other.
//
// The pass runs after the plans (so the transpose carries no register-block
// copy plan: its source is read with the stride of the reduced axes, often
// a few elements, where blocks measured slower than the plain nest: 500 x
// 400 x 3 summed over (0, 1), 10% slower) and before scaly-form-fused-ops,
// which groups the transpose with the values it reads.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DEF_MOVEREDUCEDAXESLAST
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Moves the reduced axes of `o` last through a stored transpose.
void moveReducedAxesLast(ReduceOp o) {
  auto type = cast<RankedTensorType>(o.getOperand().getType());
  ArrayRef<int64_t> axes = o.getAxes();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      perm.push_back(d);
  llvm::append_range(perm, axes);
  SmallVector<int64_t> moved;
  for (int64_t p : perm)
    moved.push_back(type.getDimSize(p));
  OpBuilder b(o);
  MLIRContext *ctx = o.getContext();
  auto transpose = b.create<TransposeOp>(o.getLoc(),
                                         RankedTensorType::get(moved, type.getElementType()),
                                         o.getOperand(), b.getDenseI64ArrayAttr(perm));
  transpose->setAttr(kPlaceAttr,
                     ArrayAttr::get(ctx, PlaceAttr::get(ctx, PlaceKind::workspace, 0, 0)));
  SmallVector<int64_t> trailing;
  for (size_t k = 0; k < axes.size(); ++k)
    trailing.push_back(type.getRank() - static_cast<int64_t>(axes.size() - k));
  o.getOperandMutable().assign(transpose.getResult());
  o.setAxes(trailing);
}

struct MoveReducedAxesLastPass
    : public scaly::expr::impl::MoveReducedAxesLastBase<MoveReducedAxesLastPass> {
  void runOnOperation() override {
    WalkResult walk = getOperation()->walk([&](FuncOp func) {
      std::optional<int64_t> limit = scalarizeLimitOf(func);
      if (!limit) {
        func.emitOpError("has no scalarize limit (expr.scalarize_limit): run "
                         "scaly-plan-placement before ")
            << getArgument();
        return WalkResult::interrupt();
      }
      func.walk([&](ReduceOp o) {
        if (numElements(o.getOperand().getType()) > *limit && o.getAxes().size() > 1 &&
            !reducesTrailingAxes(o))
          moveReducedAxesLast(o);
      });
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
