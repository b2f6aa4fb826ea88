//===- Plans.cpp - the rules behind the planning passes' marks --------------===//
//
// scaly-plan-fusion and scaly-plan-loop-orders mark ops (scaly.fused,
// scaly.loop_order) for scaly-lower-to-program. The rules they follow are
// here, in the dialect, so that the lowering reads the same ones: whether a
// value is computed where it is read, and whether a reduction's rows can be
// accumulated.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

using namespace mlir;
using namespace scaly::expr;

bool scaly::expr::computedInPlace(Value v, int64_t limit) {
  Operation *def = v.getDefiningOp();
  if (!def || numElements(v.getType()) <= limit)
    return false;
  if (def->hasAttr(kFusedAttr))
    return true;
  if (auto r = dyn_cast<ReshapeOp>(def))
    return computedInPlace(r.getOperand(), limit);
  if (auto c = dyn_cast<ConstantOp>(def))
    return cast<DenseElementsAttr>(c.getValue()).isSplat();
  return false;
}

bool scaly::expr::accumulatesRows(ReduceOp o, int64_t limit) {
  ArrayRef<int64_t> axes = o.getAxes();
  if (axes.size() != 1 || numElements(o.getOperand().getType()) <= limit ||
      numElements(o.getType()) <= limit)
    return false;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(o.getOperand().getType()).getShape();
  int64_t axis = axes[0], rank = static_cast<int64_t>(shape.size());
  if (axis == rank - 1 || shape[axis] < 2)
    return false;
  int64_t run = 1;
  for (int64_t n : shape.drop_front(axis + 1))
    run *= n;
  return run >= 2;
}
