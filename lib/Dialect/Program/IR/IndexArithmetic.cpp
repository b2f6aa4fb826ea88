//===- IndexArithmetic.cpp - element offsets folded as they are built -----===//

#include "scaly/Dialect/Program/IndexArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace scaly::prog {

Value ixValue(OpBuilder &b, Ix i, Location loc) {
  if (!i.isConst())
    return i.v;
  return b.create<arith::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(i.c));
}

Ix mulAdd(OpBuilder &b, Ix a, int64_t scale, Ix c, Location loc) {
  if (a.isConst() && c.isConst())
    return Ix{{}, a.c * scale + c.c};
  Ix prod = a;
  if (a.isConst())
    prod = Ix{{}, a.c * scale};
  else if (scale != 1)
    prod = Ix{b.create<arith::MulIOp>(loc, a.v, ixValue(b, Ix{{}, scale}, loc),
                                      arith::IntegerOverflowFlags::nsw)};
  if (prod.isConst() && prod.c == 0)
    return c;
  if (c.isConst() && c.c == 0)
    return prod;
  return Ix{b.create<arith::AddIOp>(loc, ixValue(b, prod, loc), ixValue(b, c, loc),
                                    arith::IntegerOverflowFlags::nsw)};
}

Ix linear(OpBuilder &b, ArrayRef<Ix> idx, ArrayRef<int64_t> shape, Location loc) {
  Ix lin{{}, 0};
  for (size_t d = 0; d < idx.size(); ++d)
    lin = mulAdd(b, lin, shape[d], idx[d], loc);
  return lin;
}

} // namespace scaly::prog
