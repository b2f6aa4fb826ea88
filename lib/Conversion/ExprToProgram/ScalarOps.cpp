//===- ScalarOps.cpp - scalar forms of expression ops --------------------===//
//
// What the lowering builds for one element: the arith/math op of each
// elementwise expression op, and reductions combined in the order the
// module's C helpers use (NumPy's pairwise blocking for float sums).
//
//===----------------------------------------------------------------------===//

#include "ScalarOps.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
namespace ex = scaly::expr;

namespace scaly::lowering {

static Type elementOf(Type t) { return cast<RankedTensorType>(t).getElementType(); }

static Value pairwiseBlock(OpBuilder &b, ArrayRef<Value> a, Location loc);
// Defined below, after the functions that use them.
static Value pairwiseSum(OpBuilder &b, ArrayRef<Value> in, Location loc);
static Value mathScalar(OpBuilder &b, ex::MathFn fn, Value x, Location l);
static Value math2Scalar(OpBuilder &b, ex::Math2Fn fn, Value x, Value y, Location l);
static Value cmpScalar(OpBuilder &b, ex::CmpPredicate pred, Value x, Value y, Location l);
static Value castScalar(OpBuilder &b, Type from, Type to, Value x, Location l);

Value constant(OpBuilder &b, Type elem, Attribute value, Location loc) {
  return b.create<arith::ConstantOp>(loc, elem, cast<TypedAttr>(value));
}

/// The scalar form of an elementwise op on scalar operands.
Value scalarOf(OpBuilder &b, Operation *op, ArrayRef<Value> a, Location l) {
  Type elem = elementOf(op->getResult(0).getType());
  bool isFloat = isa<FloatType>(elem);
  bool isBool = elem.isInteger(1);
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case([&](ex::AddOp) -> Value {
        if (isBool) return b.create<arith::OrIOp>(l, a[0], a[1]);
        if (isFloat) return b.create<arith::AddFOp>(l, a[0], a[1]);
        return b.create<arith::AddIOp>(l, a[0], a[1]);
      })
      .Case([&](ex::SubOp) -> Value {
        if (isFloat) return b.create<arith::SubFOp>(l, a[0], a[1]);
        return b.create<arith::SubIOp>(l, a[0], a[1]);
      })
      .Case([&](ex::MulOp o) -> Value {
        if (isBool) return b.create<arith::AndIOp>(l, a[0], a[1]);
        if (isFloat && o.getExactZeros()) { // a zero factor gives zero
          Value zero = constant(b, elem, b.getZeroAttr(elem), l);
          Value anyZero = b.create<arith::OrIOp>(
              l, b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, a[0], zero),
              b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, a[1], zero));
          return b.create<arith::SelectOp>(l, anyZero, zero,
                                           b.create<arith::MulFOp>(l, a[0], a[1]));
        }
        if (isFloat) return b.create<arith::MulFOp>(l, a[0], a[1]);
        return b.create<arith::MulIOp>(l, a[0], a[1]);
      })
      .Case([&](ex::DivOp o) -> Value {
        if (isFloat && o.getExactZeros()) { // a zero numerator gives zero
          Value zero = constant(b, elem, b.getZeroAttr(elem), l);
          return b.create<arith::SelectOp>(
              l, b.create<arith::CmpFOp>(l, arith::CmpFPredicate::OEQ, a[0], zero), zero,
              b.create<arith::DivFOp>(l, a[0], a[1]));
        }
        if (isFloat) return b.create<arith::DivFOp>(l, a[0], a[1]);
        return b.create<arith::DivSIOp>(l, a[0], a[1]);
      })
      .Case([&](ex::NegOp) -> Value { return b.create<arith::NegFOp>(l, a[0]); })
      .Case([&](ex::MathOp o) { return mathScalar(b, o.getFn(), a[0], l); })
      .Case([&](ex::Math2Op o) { return math2Scalar(b, o.getFn(), a[0], a[1], l); })
      .Case([&](ex::CmpOp o) {
        return cmpScalar(b, o.getPredicate(), a[0], a[1], l);
      })
      .Case([&](ex::SelectOp) -> Value {
        return b.create<arith::SelectOp>(l, a[0], a[1], a[2]);
      })
      .Case([&](ex::CastOp o) {
        return castScalar(b, elementOf(o.getOperand().getType()), elem, a[0], l);
      })
      .Default([&](Operation *) -> Value { llvm_unreachable("not an elementwise op"); });
}

/// Combine scalars in the order the module's helpers use: NumPy's pairwise
/// blocking for float sums (sequential below 8 terms, 8 partial sums up to
/// 128, halves above), left to right for the rest.
Value combine(OpBuilder &b, ex::ReduceKind kind, ArrayRef<Value> in, Type elem, Location loc) {
  bool isFloat = isa<FloatType>(elem);
  if (in.empty()) {
    Attribute one = isFloat ? Attribute(b.getFloatAttr(elem, 1.0)) : b.getIntegerAttr(elem, 1);
    return constant(b, elem, kind == ex::ReduceKind::prod ? one : b.getZeroAttr(elem), loc);
  }
  if (kind == ex::ReduceKind::sum && isFloat)
    return pairwiseSum(b, in, loc);
  Value acc = in[0];
  for (Value x : in.drop_front())
    acc = combine2(b, kind, acc, x, loc);
  return acc;
}

Value combine2(OpBuilder &b, ex::ReduceKind kind, Value acc, Value x, Location l) {
  bool isFloat = isa<FloatType>(acc.getType());
  switch (kind) {
  case ex::ReduceKind::sum:
    return isFloat ? Value(b.create<arith::AddFOp>(l, acc, x)) : b.create<arith::AddIOp>(l, acc, x);
  case ex::ReduceKind::prod:
    return isFloat ? Value(b.create<arith::MulFOp>(l, acc, x)) : b.create<arith::MulIOp>(l, acc, x);
  case ex::ReduceKind::max:
  case ex::ReduceKind::min: {
    bool isMax = kind == ex::ReduceKind::max;
    // Keep acc when it is NaN or not beaten: NaN propagates as in NumPy.
    Value keep;
    if (isFloat) {
      Value better = b.create<arith::CmpFOp>(
          l, isMax ? arith::CmpFPredicate::OGE : arith::CmpFPredicate::OLE, acc, x);
      Value nan = b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNE, acc, acc);
      keep = b.create<arith::OrIOp>(l, better, nan);
    } else {
      keep = b.create<arith::CmpIOp>(
          l, isMax ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle, acc, x);
    }
    return b.create<arith::SelectOp>(l, keep, acc, x);
  }
  }
  llvm_unreachable("unknown reduction");
}

/// NumPy's pairwise summation of in (blocks of 8192 added in order).
static Value pairwiseSum(OpBuilder &b, ArrayRef<Value> in, Location loc) {
  Value total;
  for (size_t k = 0; k < in.size(); k += 8192) {
    Value part = pairwiseBlock(b, in.slice(k, std::min<size_t>(8192, in.size() - k)), loc);
    total = total ? Value(b.create<arith::AddFOp>(loc, total, part)) : part;
  }
  return total;
}

static Value pairwiseBlock(OpBuilder &b, ArrayRef<Value> a, Location loc) {
  auto add = [&](Value x, Value y) -> Value { return b.create<arith::AddFOp>(loc, x, y); };
  size_t n = a.size();
  if (n < 8) {
    Value r = a[0];
    for (size_t i = 1; i < n; ++i)
      r = add(r, a[i]);
    return r;
  }
  if (n <= 128) {
    SmallVector<Value> r(a.begin(), a.begin() + 8);
    size_t i = 8;
    for (; i < n - n % 8; i += 8)
      for (size_t k = 0; k < 8; ++k)
        r[k] = add(r[k], a[i + k]);
    Value res = add(add(add(r[0], r[1]), add(r[2], r[3])), add(add(r[4], r[5]), add(r[6], r[7])));
    for (; i < n; ++i)
      res = add(res, a[i]);
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return add(pairwiseBlock(b, a.take_front(n2), loc), pairwiseBlock(b, a.drop_front(n2), loc));
}

/// The upstream op of a math function's record (MathFunctions.h) on scalars
/// or lane vectors: math.sin, math.powf, arith.minnumf, ...
static Value upstreamMath(OpBuilder &b, const ex::MathFunctionInfo &f, ValueRange operands,
                          Location l) {
  OperationState state(l, f.upstreamOp);
  state.addOperands(operands);
  state.addTypes(operands.front().getType());
  return b.create(state)->getResult(0);
}

static Value math2Scalar(OpBuilder &b, ex::Math2Fn fn, Value x, Value y, Location l) {
  return upstreamMath(b, ex::mathFunction(2, static_cast<int>(fn)), {x, y}, l);
}

static Value mathScalar(OpBuilder &b, ex::MathFn fn, Value x, Location l) {
  return upstreamMath(b, ex::mathFunction(1, static_cast<int>(fn)), {x}, l);
}

static Value cmpScalar(OpBuilder &b, ex::CmpPredicate pred, Value x, Value y, Location l) {
  if (isa<FloatType>(x.getType())) {
    static const arith::CmpFPredicate fp[] = {
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT,
        arith::CmpFPredicate::OGE, arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
    return b.create<arith::CmpFOp>(l, fp[static_cast<int>(pred)], x, y);
  }
  // Bools order as 0 < 1: unsigned predicates (signed ones make true -1).
  static const arith::CmpIPredicate ip[] = {
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle, arith::CmpIPredicate::sgt,
      arith::CmpIPredicate::sge, arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
  static const arith::CmpIPredicate up[] = {
      arith::CmpIPredicate::ult, arith::CmpIPredicate::ule, arith::CmpIPredicate::ugt,
      arith::CmpIPredicate::uge, arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
  bool isBool = x.getType().isInteger(1);
  return b.create<arith::CmpIOp>(l, (isBool ? up : ip)[static_cast<int>(pred)], x, y);
}

static Value castScalar(OpBuilder &b, Type from, Type to, Value x, Location l) {
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  if (fromF && toF)
    return fromF.getWidth() < toF.getWidth() ? Value(b.create<arith::ExtFOp>(l, to, x))
                                             : Value(b.create<arith::TruncFOp>(l, to, x));
  if (toF && from.isInteger(1))
    return b.create<arith::UIToFPOp>(l, to, x);
  if (toF)
    return b.create<arith::SIToFPOp>(l, to, x);
  if (to.isInteger(1)) {
    Value zero = constant(b, from, b.getZeroAttr(from), l);
    if (fromF)
      return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNE, x, zero);
    return b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromF)
    return b.create<arith::FPToSIOp>(l, to, x);
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return from.isInteger(1) ? Value(b.create<arith::ExtUIOp>(l, to, x))
                             : Value(b.create<arith::ExtSIOp>(l, to, x));
  return b.create<arith::TruncIOp>(l, to, x);
}

} // namespace scaly::lowering
