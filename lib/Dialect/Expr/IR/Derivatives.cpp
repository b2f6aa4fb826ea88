//===- Derivatives.cpp - forward and reverse rules of expression ops ------===//
//
// Each op's DifferentiableOpInterface methods, and the small algebra
// (Differentiator) they build with. A null Value is an all-zero tangent or
// cotangent; rules skip the work it would cost. Every rule keeps structure:
// the derivative of a contraction is contractions, of a reduction a
// broadcast, of a slice a strided insertion, of a map a map.
//
// Calls, maps and scans are differentiated in CallDerivatives.cpp.
//
// Choices where the derivative is not classical (documented in
// docs/derivatives.md): abs has derivative sign(x) (0 at 0); floor and ceil
// have 0; fmin/fmax/max/min send the derivative to the chosen operand (max
// and min split it evenly between tied elements); comparisons, casts to or
// from integers and integer arithmetic carry none.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace scaly::expr;

Differentiator::~Differentiator() = default;

//===----------------------------------------------------------------------===//
// The algebra rules build with
//===----------------------------------------------------------------------===//

static RankedTensorType tensorTypeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
static ArrayRef<int64_t> shapeOf(Value v) { return tensorTypeOf(v).getShape(); }
static RankedTensorType withShape(Value like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, tensorTypeOf(like).getElementType());
}

bool Differentiator::isFloat(Value v) {
  return v && isa<FloatType>(getElementTypeOrSelf(v.getType()));
}

Value Differentiator::constant(Type type, double value) {
  auto t = cast<RankedTensorType>(type);
  Type e = t.getElementType();
  Attribute scalar = isa<FloatType>(e)
                         ? Attribute(FloatAttr::get(e, value))
                         : Attribute(IntegerAttr::get(e, static_cast<int64_t>(value)));
  return b.create<ConstantOp>(loc, t, DenseElementsAttr::get(t, scalar));
}

Value Differentiator::zeros(Type type) { return constant(type, 0.0); }

/// The marks `x` and `y` share: where both are zero, so is their sum.
static SmallVector<std::pair<Value, bool>> commonMarksOf(ArrayRef<std::pair<Value, bool>> x,
                                                         ArrayRef<std::pair<Value, bool>> y) {
  SmallVector<std::pair<Value, bool>> common;
  for (const auto &m : x)
    if (llvm::is_contained(y, m))
      common.push_back(m);
  return common;
}

Value Differentiator::add(Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return remask(b.create<AddOp>(loc, x.getType(), x, y), commonMarksOf(marksOf(x), marksOf(y)));
}

Value Differentiator::sub(Value x, Value y) {
  if (!y)
    return x;
  if (!x)
    return neg(y);
  return remask(b.create<SubOp>(loc, x.getType(), x, y), commonMarksOf(marksOf(x), marksOf(y)));
}

Value Differentiator::neg(Value x) {
  return x ? remask(b.create<NegOp>(loc, x.getType(), x), marksOf(x)) : x;
}

Value Differentiator::mul(Value x, Value y) {
  if (!x || !y)
    return Value();
  // Zero wherever either factor is.
  SmallVector<std::pair<Value, bool>> marks = marksOf(x);
  for (const auto &m : marksOf(y))
    if (!llvm::is_contained(marks, m))
      marks.push_back(m);
  return remask(b.create<MulOp>(loc, x.getType(), x, y), marks);
}

Value Differentiator::div(Value x, Value y) {
  if (!x)
    return Value();
  return remask(b.create<DivOp>(loc, x.getType(), x, y), marksOf(x));
}

namespace {
/// What is known of a factor at compile time: whether it is a constant (seen
/// through broadcasts, reshapes and transposes) and then whether all its
/// elements are finite and whether any is zero.
struct ConstantFacts {
  bool constant = false, finite = true, zero = false;
};
} // namespace

static ConstantFacts constantFacts(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<BroadcastOp, ReshapeOp, TransposeOp>(def))
      break;
    v = def->getOperand(0);
  }
  ConstantFacts facts;
  auto c = v.getDefiningOp<ConstantOp>();
  auto attr = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!attr || !isa<FloatType>(attr.getElementType()))
    return facts;
  facts.constant = true;
  auto note = [&](const APFloat &x) {
    facts.finite &= x.isFinite();
    facts.zero |= x.isZero();
  };
  if (attr.isSplat())
    note(attr.getSplatValue<APFloat>());
  else
    for (const APFloat &x : attr.getValues<APFloat>())
      note(x);
  return facts;
}

Value Differentiator::scale(Value lin, Value factor) {
  if (!lin || !factor)
    return Value();
  ConstantFacts facts = constantFacts(factor);
  if (!exactZeros || (facts.constant && facts.finite && !facts.zero))
    return mul(lin, factor);
  // One op, exact with zeros (a zero factor gives zero: lin's zeros and the
  // constant factor's), so the sweep's loops stay fused.
  auto product = b.create<MulOp>(loc, lin.getType(), lin, factor);
  product.setExactZeros(true);
  return remask(product, marksOf(lin));
}

Value Differentiator::scaleDiv(Value lin, Value divisor) {
  if (!lin)
    return Value();
  ConstantFacts facts = constantFacts(divisor);
  if (!exactZeros || (facts.constant && facts.finite && !facts.zero))
    return div(lin, divisor);
  auto quotient = b.create<DivOp>(loc, lin.getType(), lin, divisor);
  quotient.setExactZeros(true);
  return remask(quotient, marksOf(lin));
}

Value Differentiator::scaleMatmul(Value lin, Value other, bool linLeft) {
  if (!lin)
    return Value();
  auto product = [&](Value l, Value o) { return linLeft ? matmul(l, o) : matmul(o, l); };
  ConstantFacts facts = constantFacts(other);
  if (!exactZeros || (facts.constant && facts.finite && !facts.zero))
    return product(lin, other);
  // A matrix product sums terms lin[k] * other[k]; the terms exact with zeros
  // are those of the matrices with their non-finite elements set to zero, and
  // a sum is non-finite where some term pairs a non-finite element with a
  // nonzero one (`poisoned`: a product of their 0/1 indicators). There the
  // plain product is taken.
  Type lt = lin.getType(), ot = other.getType();
  auto nonFinite = [&](Value v) { // v - v is NaN at inf and NaN
    return cmp("ne", b.create<SubOp>(loc, v.getType(), v, v), zeros(v.getType()));
  };
  auto indicator = [&](Value cond, Type t) { return select(cond, constant(t, 1.0), Value()); };
  Value finite, poisoned;
  if (facts.constant && facts.finite) { // zeros of the constant: lin's non-finite elements
    Value bad = nonFinite(lin);
    finite = product(select(bad, Value(), lin), other);
    poisoned = product(indicator(bad, lt), indicator(cmp("ne", other, zeros(ot)), ot));
  } else { // non-finite elements of the factor: lin's zeros
    Value bad = nonFinite(other);
    finite = product(lin, select(bad, Value(), other));
    poisoned = product(indicator(cmp("ne", lin, zeros(lt)), lt), indicator(bad, ot));
  }
  return select(cmp("gt", poisoned, zeros(poisoned.getType())), product(lin, other), finite);
}

Value Differentiator::maskedSelect(Value cond, Value x, bool taken) {
  if (!x)
    return Value();
  Value r = taken ? select(cond, x, Value()) : select(cond, Value(), x);
  r.getDefiningOp()->setAttr(kMaskAttr, b.getBoolAttr(taken));
  return r;
}

SmallVector<std::pair<Value, bool>> Differentiator::marksOf(Value v) {
  SmallVector<std::pair<Value, bool>> marks;
  while (auto sel = v ? v.getDefiningOp<SelectOp>() : SelectOp()) {
    auto taken = sel->getAttrOfType<BoolAttr>(kMaskAttr);
    if (!taken)
      break;
    marks.push_back({sel.getCond(), taken.getValue()});
    v = taken.getValue() ? sel.getOnTrue() : sel.getOnFalse();
  }
  return marks;
}

Value Differentiator::remask(Value result, ArrayRef<std::pair<Value, bool>> marks) {
  for (auto [cond, taken] : marks) {
    if (shapeOf(cond) != shapeOf(result))
      continue;
    Value r = taken ? select(cond, result, Value()) : select(cond, Value(), result);
    r.getDefiningOp()->setAttr(kMaskAttr, b.getBoolAttr(taken));
    result = r;
  }
  return result;
}

Value Differentiator::math(StringRef fn, Value x) {
  return b.create<MathOp>(loc, x.getType(), MathFnAttr::get(b.getContext(), *symbolizeMathFn(fn)),
                          x);
}

Value Differentiator::cmp(StringRef predicate, Value x, Value y) {
  auto t = RankedTensorType::get(shapeOf(x), b.getI1Type());
  return b.create<CmpOp>(loc, t,
                         CmpPredicateAttr::get(b.getContext(), *symbolizeCmpPredicate(predicate)),
                         x, y);
}

Value Differentiator::select(Value cond, Value x, Value y) {
  if (!x && !y)
    return Value();
  Type t = x ? x.getType() : y.getType();
  return b.create<SelectOp>(loc, t, cond, orZeros(x, t), orZeros(y, t));
}

Value Differentiator::convert(Value x, Type elementType) {
  if (getElementTypeOrSelf(x.getType()) == elementType)
    return x;
  return remask(b.create<CastOp>(loc, withShape(x, shapeOf(x)).clone(elementType), x),
                marksOf(x));
}

Value Differentiator::reshape(Value x, ArrayRef<int64_t> shape) {
  if (shapeOf(x) == shape)
    return x;
  return b.create<ReshapeOp>(loc, withShape(x, shape), x);
}

Value Differentiator::broadcast(Value x, ArrayRef<int64_t> shape) {
  if (shapeOf(x) == shape)
    return x;
  return b.create<BroadcastOp>(loc, withShape(x, shape), x);
}

Value Differentiator::transpose(Value x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(shapeOf(x)[p]);
  return b.create<TransposeOp>(loc, withShape(x, shape), x, perm);
}

Value Differentiator::slice(Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> steps,
                            ArrayRef<int64_t> sizes) {
  return b.create<SliceOp>(loc, withShape(x, sizes), x, starts, steps);
}

Value Differentiator::concat(ArrayRef<Value> parts, std::optional<int64_t> axis, Type type) {
  if (parts.size() == 1 && parts[0].getType() == type)
    return parts[0];
  IntegerAttr axisAttr = axis ? b.getI64IntegerAttr(*axis) : IntegerAttr();
  return b.create<ConcatOp>(loc, type, ValueRange(parts), axisAttr);
}

Value Differentiator::reduce(StringRef kind, Value x, ArrayRef<int64_t> axes) {
  if (axes.empty())
    return x;
  SmallVector<int64_t> shape;
  for (auto [i, n] : llvm::enumerate(shapeOf(x)))
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      shape.push_back(n);
  return b.create<ReduceOp>(loc, withShape(x, shape), *symbolizeReduceKind(kind), x, axes);
}

Value Differentiator::matmul(Value x, Value y) {
  SmallVector<int64_t> shape(shapeOf(x));
  shape.back() = shapeOf(y).back();
  return b.create<MatmulOp>(loc, withShape(x, shape), x, y);
}

Value Differentiator::takeLeading(Value x, int64_t index) {
  ArrayRef<int64_t> shape = shapeOf(x);
  SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1), sizes(shape);
  starts[0] = index;
  sizes[0] = 1;
  return reshape(slice(x, starts, steps, sizes), shape.drop_front());
}

Value Differentiator::reverseLeading(Value x) {
  ArrayRef<int64_t> shape = shapeOf(x);
  SmallVector<int64_t> starts(shape.size(), 0), steps(shape.size(), 1);
  starts[0] = shape[0] - 1;
  steps[0] = -1;
  return slice(x, starts, steps, shape);
}

Value Differentiator::swapLastAxes(Value x) {
  int64_t rank = shapeOf(x).size();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(x, perm);
}

Value Differentiator::unbroadcast(Value x, ArrayRef<int64_t> shape) {
  if (!x)
    return x;
  ArrayRef<int64_t> from = shapeOf(x);
  int64_t lead = from.size() - shape.size();
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
    if (i < lead || (shape[i - lead] == 1 && from[i] != 1))
      axes.push_back(i);
  return reshape(reduce("sum", x, axes), shape);
}

Value Differentiator::stridedInsert(Value x, ArrayRef<int64_t> starts, ArrayRef<int64_t> steps,
                                    ArrayRef<int64_t> shape) {
  Value cur = x;
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    SmallVector<int64_t> dims(shapeOf(cur));
    int64_t m = dims[axis], n = shape[axis], start = starts[axis], step = steps[axis];
    if (m == n && step == 1)
      continue;
    if (m == 0) {
      dims[axis] = n;
      cur = zeros(withShape(cur, dims));
      continue;
    }
    auto along = [&](int64_t s, int64_t st, int64_t len) {
      SmallVector<int64_t> ss(dims.size(), 0), steps1(dims.size(), 1), sizes(shapeOf(cur));
      ss[axis] = s;
      steps1[axis] = st;
      sizes[axis] = len;
      return slice(cur, ss, steps1, sizes);
    };
    if (step < 0) { // reverse, so that positions increase
      cur = along(m - 1, -1, m);
      start += (m - 1) * step;
      step = -step;
    }
    if (step > 1) { // interleave step-1 zeros after each element, drop the tail
      SmallVector<int64_t> split(dims.begin(), dims.begin() + axis + 1);
      split.push_back(1);
      split.append(dims.begin() + axis + 1, dims.end());
      Value column = reshape(cur, split);
      SmallVector<int64_t> gap = split;
      gap[axis + 1] = step - 1;
      SmallVector<int64_t> joined = split;
      joined[axis + 1] = step;
      column = concat({column, zeros(withShape(cur, gap))}, axis + 1, withShape(cur, joined));
      dims[axis] = m * step;
      cur = reshape(column, dims);
      cur = along(0, 1, (m - 1) * step + 1);
      dims[axis] = (m - 1) * step + 1;
    }
    SmallVector<Value> parts;
    SmallVector<int64_t> pad = dims;
    if (start > 0) {
      pad[axis] = start;
      parts.push_back(zeros(withShape(cur, pad)));
    }
    parts.push_back(cur);
    int64_t tail = n - start - dims[axis];
    if (tail > 0) {
      pad[axis] = tail;
      parts.push_back(zeros(withShape(cur, pad)));
    }
    dims[axis] = n;
    cur = concat(parts, axis, withShape(cur, dims));
  }
  return cur;
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

SmallVector<Value> AddOp::jvp(Differentiator &d, ArrayRef<Value> t) { return {d.add(t[0], t[1])}; }
SmallVector<Value> AddOp::vjp(Differentiator &, ArrayRef<Value> c) { return {c[0], c[0]}; }

SmallVector<Value> SubOp::jvp(Differentiator &d, ArrayRef<Value> t) { return {d.sub(t[0], t[1])}; }
SmallVector<Value> SubOp::vjp(Differentiator &d, ArrayRef<Value> c) { return {c[0], d.neg(c[0])}; }

SmallVector<Value> MulOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  Value l = d.scale(t[0], getRhs()); // in this order, as the IR reads
  Value r = d.scale(t[1], getLhs());
  return {d.add(l, r)};
}
SmallVector<Value> MulOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  Value ca = d.scale(c[0], getRhs());
  Value cb = d.scale(c[0], getLhs());
  return {ca, cb};
}

// y = a / b: dy = da / b - db * y / b.
SmallVector<Value> DivOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  Value l = d.scaleDiv(t[0], getRhs());
  Value r = d.scaleDiv(d.scale(t[1], getResult()), getRhs());
  return {d.sub(l, r)};
}
SmallVector<Value> DivOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  Value ca = d.scaleDiv(c[0], getRhs());
  return {ca, d.neg(d.scale(ca, getResult()))};
}

SmallVector<Value> NegOp::jvp(Differentiator &d, ArrayRef<Value> t) { return {d.neg(t[0])}; }
SmallVector<Value> NegOp::vjp(Differentiator &d, ArrayRef<Value> c) { return {d.neg(c[0])}; }

/// dy/dx of y = fn(x), elementwise, by the formula of fn's record in
/// MathFunctions.td; null for functions without one (floor, ceil: zero a.e.).
static Value mathDerivative(MathOp op, Differentiator &d) {
  Value x = op.getOperand(), y = op.getResult();
  Type t = x.getType();
  auto one = [&] { return d.constant(t, 1.0); };
  auto zero = [&] { return d.zeros(t); };
  (void)y;
  switch (op.getFn()) {
#include "scaly/Dialect/Expr/MathDerivatives.h.inc"
  default: return Value();
  }
}

SmallVector<Value> MathOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {d.scale(t[0], mathDerivative(*this, d))};
}
SmallVector<Value> MathOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {d.scale(c[0], mathDerivative(*this, d))};
}

/// Partial derivatives of y = fn(a, b) by a and by b (built only when
/// `wantA` / `wantB`, so pow's log(a) is not computed for a constant b).
static std::pair<Value, Value> math2Derivatives(Math2Op op, Differentiator &d, bool wantA,
                                                bool wantB) {
  Value a = op.getLhs(), b = op.getRhs(), y = op.getResult();
  Type t = a.getType();
  Value da, db;
  switch (op.getFn()) {
  case Math2Fn::pow:
    // b * a^(b-1), and 0 where b = 0 (a^0 is constant, even at a = 0 where
    // a^(b-1) is infinite); log(a) * y, and 0 where y = 0 (a = 0 with b > 0:
    // y is identically 0 there, where log(a) is -inf).
    if (wantA) {
      Value bm1 = d.sub(b, d.constant(t, 1.0));
      Value slope = d.mul(b, d.b.create<Math2Op>(d.loc, t, op.getFnAttr(), a, bm1));
      da = d.select(d.cmp("eq", b, d.zeros(t)), d.zeros(t), slope);
    }
    if (wantB)
      db = d.select(d.cmp("eq", y, d.zeros(t)), d.zeros(t), d.mul(d.math("log", a), y));
    break;
  case Math2Fn::atan2: { // y = atan2(a, b)
    Value r2 = d.add(d.mul(a, a), d.mul(b, b));
    da = d.div(b, r2);
    db = d.neg(d.div(a, r2));
    break;
  }
  case Math2Fn::fmin:
  case Math2Fn::fmax: { // the chosen operand; a NaN operand is never chosen
    Value takeA = d.cmp(op.getFn() == Math2Fn::fmin ? "le" : "ge", a, b);
    Value aNan = d.cmp("ne", a, a);
    Value bNan = d.cmp("ne", b, b);
    takeA = d.select(bNan, d.constant(takeA.getType(), 1), takeA);
    takeA = d.select(aNan, d.constant(takeA.getType(), 0), takeA);
    da = d.select(takeA, d.constant(t, 1.0), d.zeros(t));
    db = d.select(takeA, d.zeros(t), d.constant(t, 1.0));
    break;
  }
  case Math2Fn::fmod: { // y = a - trunc(a / b) * b
    Value q = d.div(a, b);
    Value trunc = d.select(d.cmp("lt", q, d.zeros(t)), d.math("ceil", q), d.math("floor", q));
    da = d.constant(t, 1.0);
    db = d.neg(trunc);
    break;
  }
  }
  return {da, db};
}

SmallVector<Value> Math2Op::jvp(Differentiator &d, ArrayRef<Value> t) {
  auto [da, db] = math2Derivatives(*this, d, bool(t[0]), bool(t[1]));
  Value l = d.scale(t[0], da);
  Value r = d.scale(t[1], db);
  return {d.add(l, r)};
}
SmallVector<Value> Math2Op::vjp(Differentiator &d, ArrayRef<Value> c) {
  auto [da, db] = math2Derivatives(*this, d, true, true);
  Value ca = d.scale(c[0], da);
  Value cb = d.scale(c[0], db);
  return {ca, cb};
}

SmallVector<Value> SelectOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {d.select(getCond(), t[1], t[2])};
}
SmallVector<Value> SelectOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value(), Value(), Value()};
  return {Value(), d.maskedSelect(getCond(), c[0], true), d.maskedSelect(getCond(), c[0], false)};
}

// Float to float only: a cast from or to an integer type is piecewise
// constant (the pass never asks for integer tangents).
SmallVector<Value> CastOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0] || !Differentiator::isFloat(getResult()))
    return {Value()};
  return {d.convert(t[0], getElementTypeOrSelf(getResult().getType()))};
}
SmallVector<Value> CastOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0] || !Differentiator::isFloat(getOperand()))
    return {Value()};
  return {d.convert(c[0], getElementTypeOrSelf(getOperand().getType()))};
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

SmallVector<Value> BroadcastOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {t[0] ? d.broadcast(t[0], shapeOf(getResult())) : Value()};
}
SmallVector<Value> BroadcastOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {d.unbroadcast(c[0], shapeOf(getOperand()))};
}

SmallVector<Value> ReshapeOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {t[0] ? d.reshape(t[0], shapeOf(getResult())) : Value()};
}
SmallVector<Value> ReshapeOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {c[0] ? d.reshape(c[0], shapeOf(getOperand())) : Value()};
}

SmallVector<Value> TransposeOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {t[0] ? d.transpose(t[0], getPermutation()) : Value()};
}
SmallVector<Value> TransposeOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  SmallVector<int64_t> inverse(getPermutation().size());
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    inverse[p] = i;
  return {d.transpose(c[0], inverse)};
}

SmallVector<Value> SliceOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {t[0] ? d.slice(t[0], getStarts(), getSteps(), shapeOf(getResult())) : Value()};
}
SmallVector<Value> SliceOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {c[0] ? d.stridedInsert(c[0], getStarts(), getSteps(), shapeOf(getOperand())) : Value()};
}

SmallVector<Value> GatherOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0])
    return {Value()};
  return {d.b.create<GatherOp>(d.loc, getResult().getType(), t[0], getIndices())};
}

// The reverse of a gather adds each picked element's cotangent back to its
// source. Written as a sum of gathers: gather r picks, for every source
// element, the r-th position that read it (or a zero), so an element read
// m times gets m terms and the IR stays free of scatters.
SmallVector<Value> GatherOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  int64_t n = numElements(getOperand().getType());
  ArrayRef<int64_t> picks = getIndices();
  int64_t k = picks.size();
  std::vector<SmallVector<int64_t>> readers(n);
  for (int64_t i = 0; i < k; ++i)
    readers[picks[i]].push_back(i);
  size_t rounds = 0;
  for (auto &r : readers)
    rounds = std::max(rounds, r.size());
  if (rounds == 0)
    return {Value()};
  auto flat = [&](int64_t len) { return withShape(c[0], {len}); };
  Value padded = d.concat({d.reshape(c[0], {k}), d.zeros(flat(1))}, std::nullopt, flat(k + 1));
  Value sum;
  for (size_t r = 0; r < rounds; ++r) {
    SmallVector<int64_t> pick(n, k);
    for (int64_t j = 0; j < n; ++j)
      if (r < readers[j].size())
        pick[j] = readers[j][r];
    sum = d.add(sum, d.b.create<GatherOp>(d.loc, flat(n), padded, pick));
  }
  return {d.reshape(sum, shapeOf(getOperand()))};
}

// A scatter is linear in its values: its tangent is the tangent scattered to
// the same positions, its values' cotangent the result's cotangent read back
// at them (a gather; every position is read once, so nothing is summed).
SmallVector<Value> ScatterOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0])
    return {Value()};
  return {d.b.create<ScatterOp>(d.loc, getResult().getType(), t[0], getPositions())};
}
SmallVector<Value> ScatterOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  return {d.b.create<GatherOp>(d.loc, getValues().getType(), c[0], getPositions())};
}

SmallVector<Value> ConcatOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (llvm::all_of(t, [](Value v) { return !v; }))
    return {Value()};
  SmallVector<Value> parts;
  for (auto [v, tv] : llvm::zip(getOperands(), t))
    parts.push_back(d.orZeros(tv, v.getType()));
  return {d.concat(parts, getAxis(), getResult().getType())};
}
SmallVector<Value> ConcatOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  SmallVector<Value> out;
  if (!c[0])
    return SmallVector<Value>(getNumOperands(), Value());
  int64_t offset = 0;
  if (!getAxis()) { // flattened: slice the flattened cotangent
    int64_t total = numElements(getResult().getType());
    Value cflat = d.reshape(c[0], {total});
    for (Value v : getOperands()) {
      int64_t size = numElements(v.getType());
      out.push_back(d.reshape(d.slice(cflat, {offset}, {1}, {size}), shapeOf(v)));
      offset += size;
    }
    return out;
  }
  int64_t axis = *getAxis();
  for (Value v : getOperands()) {
    SmallVector<int64_t> starts(shapeOf(v).size(), 0), steps(shapeOf(v).size(), 1);
    starts[axis] = offset;
    out.push_back(d.slice(c[0], starts, steps, shapeOf(v)));
    offset += shapeOf(v)[axis];
  }
  return out;
}

SmallVector<Value> SumOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0])
    return {Value()};
  return {d.b.create<SumOp>(d.loc, getResult().getType(), t[0])};
}
SmallVector<Value> SumOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  return {d.broadcast(d.reshape(c[0], {}), shapeOf(getOperand()))};
}

/// `v` (shaped like the reduction's result) broadcast back over the
/// reduced axes of the operand.
static Value expandReduced(ReduceOp op, Differentiator &d, Value v) {
  SmallVector<int64_t> kept(shapeOf(op.getOperand()));
  for (int64_t a : op.getAxes())
    kept[a] = 1;
  return d.broadcast(d.reshape(v, kept), shapeOf(op.getOperand()));
}

/// The step of a running product, (p, x) -> (p * x, p): scanned over the
/// elements, it stacks the product of those before each one.
static FuncOp runningProductStep(Differentiator &d, FuncOp near, Type state) {
  FuncOp step = d.newFunction(near, (near.getSymName() + "_running_prod").str(), {state, state},
                              {"p", "x"}, {state, state}, {"p_next", "before"});
  OpBuilder::InsertionGuard guard(d.b);
  Block &body = step.getBody().front();
  d.b.setInsertionPointToStart(&body);
  Value p = body.getArgument(0);
  d.b.create<ReturnOp>(d.loc, ValueRange{d.mul(p, body.getArgument(1)), p});
  return step;
}

/// The product, at each position along the leading axis of `lead`, of the
/// elements before it (`forward`) or after it: a scan of `step` with the
/// state starting at one. Only products, so it is exact with zeros and so
/// are its own derivatives (nothing is divided by an element), and it stays
/// one loop whatever the length.
static Value exclusiveProducts(Differentiator &d, FuncOp step, Value lead, bool forward) {
  Type state = step.getArgumentTypes()[0];
  if (!forward)
    lead = d.reverseLeading(lead);
  auto scan = d.b.create<ScanOp>(
      d.loc, TypeRange{state, lead.getType()}, FlatSymbolRefAttr::get(step.getSymNameAttr()),
      d.b.getI64IntegerAttr(shapeOf(lead)[0]), ValueRange{d.constant(state, 1.0), lead},
      UnitAttr(), d.b.getDenseBoolArrayAttr({false, true}));
  Value p = scan.getResult(1);
  return forward ? p : d.reverseLeading(p);
}

/// The product of the other elements of each element's slice along `axis`:
/// the products before it times those after it, computed with that axis
/// moved to the front.
static Value othersAlong(Differentiator &d, Value x, int64_t axis) {
  ArrayRef<int64_t> shape = shapeOf(x);
  if (shape[axis] <= 1) // nothing else along it (or no element at all)
    return d.constant(x.getType(), 1.0);
  SmallVector<int64_t> perm{axis}, inverse(shape.size());
  for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i)
    if (i != axis)
      perm.push_back(i);
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  Value lead = axis == 0 ? x : d.transpose(x, perm);
  FuncOp near = x.getParentRegion()->getParentOfType<FuncOp>();
  FuncOp step = runningProductStep(d, near, withShape(x, shapeOf(lead).drop_front()));
  Value others = d.mul(exclusiveProducts(d, step, lead, true),
                       exclusiveProducts(d, step, lead, false));
  return axis == 0 ? others : d.transpose(others, inverse);
}

/// dprod/dx of a product over `op`'s axes: at each element, the product of
/// the other elements it is reduced with. Over axes a1, ..., ak the others
/// differ from the element first in a1 (the others along a1), or agree in a1
/// and differ first in a2 (the others along a2 of the products over a1), and
/// so on, so the partial is a product of one such factor per axis.
static Value prodPartials(ReduceOp op, Differentiator &d) {
  Value x = op.getOperand(), partial, reduced = x;
  SmallVector<int64_t> shape(shapeOf(x));
  ArrayRef<int64_t> axes = op.getAxes();
  for (auto [k, a] : llvm::enumerate(axes)) {
    Value factor = d.broadcast(othersAlong(d, reduced, a), shapeOf(x));
    partial = partial ? d.mul(partial, factor) : factor;
    if (k + 1 == axes.size())
      break;
    shape[a] = 1; // the products over the axes done so far, kept as size 1
    reduced = d.reshape(d.reduce("prod", reduced, {a}), shape);
  }
  return partial ? partial : d.constant(x.getType(), 1.0); // no axis: the identity
}

/// The elementwise partial derivative of a product or extremum by each
/// element of its operand, shaped like the operand.
static Value reducePartials(ReduceOp op, Differentiator &d) {
  if (op.getKind() == ReduceKind::prod)
    return prodPartials(op, d);
  // Split evenly among the elements equal to the extremum.
  Value x = op.getOperand();
  Type t = x.getType();
  Value y = expandReduced(op, d, op.getResult());
  Value hit = d.select(d.cmp("eq", x, y), d.constant(t, 1.0), d.zeros(t));
  Value count = expandReduced(op, d, d.reduce("sum", hit, op.getAxes()));
  return d.div(hit, count);
}

SmallVector<Value> ReduceOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0])
    return {Value()};
  if (getKind() == ReduceKind::sum)
    return {d.reduce("sum", t[0], getAxes())};
  return {d.reduce("sum", d.scale(t[0], reducePartials(*this, d)), getAxes())};
}
SmallVector<Value> ReduceOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  Value spread = expandReduced(*this, d, c[0]);
  if (getKind() == ReduceKind::sum)
    return {spread};
  return {d.scale(spread, reducePartials(*this, d))};
}

// C = A B: dC = dA B + A dB; Abar = Cbar B^T, Bbar = A^T Cbar.
SmallVector<Value> MatmulOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  Value l = d.scaleMatmul(t[0], getRhs(), true); // in this order: dA B, then A dB
  Value r = d.scaleMatmul(t[1], getLhs(), false);
  return {d.add(l, r)};
}
SmallVector<Value> MatmulOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value(), Value()};
  Value ca = d.scaleMatmul(c[0], d.swapLastAxes(getRhs()), true);
  Value cb = d.scaleMatmul(c[0], d.swapLastAxes(getLhs()), false);
  return {ca, cb};
}
