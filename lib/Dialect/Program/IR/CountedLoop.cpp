//===- CountedLoop.cpp - scf.for loops of constant bounds -----------------===//

#include "scaly/Dialect/Program/CountedLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace scaly::prog {

std::optional<CountedBounds> countedBounds(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step)
    return std::nullopt;
  return CountedBounds{*lower, *upper, *step};
}

CountedBounds boundsOf(scf::ForOp loop) {
  std::optional<CountedBounds> bounds = countedBounds(loop);
  assert(bounds && "a program loop has constant bounds");
  return *bounds;
}

scf::ForOp createCountedLoop(OpBuilder &b, Location loc, int64_t lower, int64_t upper,
                             int64_t step, StringRef name, ValueRange inits) {
  auto constant = [&](int64_t k) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(k)).getResult();
  };
  Value lo = constant(lower), hi = constant(upper), by = constant(step);
  auto loop = b.create<scf::ForOp>(
      loc, lo, hi, by, inits, [](OpBuilder &nested, Location at, Value, ValueRange carried) {
        nested.create<scf::YieldOp>(at, carried);
      });
  if (!name.empty())
    loop->setAttr(kLoopNameAttr, b.getStringAttr(name));
  return loop;
}

} // namespace scaly::prog
