//===- Derivatives.cpp - forward and reverse rules of expression ops ------===//
//
// Each op's DifferentiableOpInterface methods, and the small algebra
// (Differentiator) they build with. A null Value is an all-zero tangent or
// cotangent; rules skip the work it would cost. Every rule keeps structure:
// the derivative of a contraction is contractions, of a reduction a
// broadcast, of a slice a strided insertion, of a map a map.
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

Value Differentiator::add(Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return b.create<AddOp>(loc, x.getType(), x, y);
}

Value Differentiator::sub(Value x, Value y) {
  if (!y)
    return x;
  if (!x)
    return neg(y);
  return b.create<SubOp>(loc, x.getType(), x, y);
}

Value Differentiator::neg(Value x) { return x ? Value(b.create<NegOp>(loc, x.getType(), x)) : x; }

Value Differentiator::mul(Value x, Value y) {
  if (!x || !y)
    return Value();
  return b.create<MulOp>(loc, x.getType(), x, y);
}

Value Differentiator::div(Value x, Value y) {
  if (!x)
    return Value();
  return b.create<DivOp>(loc, x.getType(), x, y);
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
  return b.create<CastOp>(loc, withShape(x, shapeOf(x)).clone(elementType), x);
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
  return {d.add(d.mul(t[0], getRhs()), d.mul(getLhs(), t[1]))};
}
SmallVector<Value> MulOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {d.mul(c[0], getRhs()), d.mul(c[0], getLhs())};
}

// y = a / b: dy = da / b - db * y / b.
SmallVector<Value> DivOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {d.sub(d.div(t[0], getRhs()), d.div(d.mul(t[1], getResult()), getRhs()))};
}
SmallVector<Value> DivOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  Value ca = d.div(c[0], getRhs());
  return {ca, d.neg(d.mul(ca, getResult()))};
}

SmallVector<Value> NegOp::jvp(Differentiator &d, ArrayRef<Value> t) { return {d.neg(t[0])}; }
SmallVector<Value> NegOp::vjp(Differentiator &d, ArrayRef<Value> c) { return {d.neg(c[0])}; }

/// dy/dx of y = fn(x), elementwise; null for floor and ceil (zero a.e.).
static Value mathDerivative(MathOp op, Differentiator &d) {
  Value x = op.getOperand(), y = op.getResult();
  Type t = x.getType();
  auto one = [&] { return d.constant(t, 1.0); };
  switch (op.getFn()) {
  case MathFn::sin: return d.math("cos", x);
  case MathFn::cos: return d.neg(d.math("sin", x));
  case MathFn::tan: return d.add(one(), d.mul(y, y));
  case MathFn::asin: return d.div(one(), d.math("sqrt", d.sub(one(), d.mul(x, x))));
  case MathFn::acos: return d.neg(d.div(one(), d.math("sqrt", d.sub(one(), d.mul(x, x)))));
  case MathFn::atan: return d.div(one(), d.add(one(), d.mul(x, x)));
  case MathFn::sinh: return d.math("cosh", x);
  case MathFn::cosh: return d.math("sinh", x);
  case MathFn::tanh: return d.sub(one(), d.mul(y, y));
  case MathFn::exp: return y;
  case MathFn::log: return d.div(one(), x);
  case MathFn::log1p: return d.div(one(), d.add(one(), x));
  case MathFn::expm1: return d.add(y, one());
  case MathFn::sqrt: return d.div(d.constant(t, 0.5), y);
  case MathFn::abs: { // sign(x), 0 at 0
    Value zero = d.zeros(t);
    return d.select(d.cmp("gt", x, zero), one(),
                    d.select(d.cmp("lt", x, zero), d.constant(t, -1.0), zero));
  }
  case MathFn::floor:
  case MathFn::ceil: return Value();
  }
  return Value();
}

SmallVector<Value> MathOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {d.mul(t[0], mathDerivative(*this, d))};
}
SmallVector<Value> MathOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  return {d.mul(c[0], mathDerivative(*this, d))};
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
  return {d.add(d.mul(t[0], da), d.mul(t[1], db))};
}
SmallVector<Value> Math2Op::vjp(Differentiator &d, ArrayRef<Value> c) {
  auto [da, db] = math2Derivatives(*this, d, true, true);
  return {d.mul(c[0], da), d.mul(c[0], db)};
}

SmallVector<Value> SelectOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  return {d.select(getCond(), t[1], t[2])};
}
SmallVector<Value> SelectOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value(), Value(), Value()};
  return {Value(), d.select(getCond(), c[0], Value()), d.select(getCond(), Value(), c[0])};
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

/// The elementwise partial derivative of a product or extremum by each
/// element of its operand, shaped like the operand.
static Value reducePartials(ReduceOp op, Differentiator &d) {
  Value x = op.getOperand();
  Type t = x.getType();
  Value y = expandReduced(op, d, op.getResult());
  if (op.getKind() == ReduceKind::max || op.getKind() == ReduceKind::min) {
    // Split evenly among the elements equal to the extremum.
    Value hit = d.select(d.cmp("eq", x, y), d.constant(t, 1.0), d.zeros(t));
    Value count = expandReduced(op, d, d.reduce("sum", hit, op.getAxes()));
    return d.div(hit, count);
  }
  // Product of the other elements, exact when elements are zero: with no
  // zero it is y / x; with one zero, the product of the non-zeros at the
  // zero and 0 elsewhere; with more, 0.
  Value zero = d.zeros(t), one = d.constant(t, 1.0);
  Value isZero = d.cmp("eq", x, zero);
  Value zeros = expandReduced(op, d, d.reduce("sum", d.select(isZero, one, zero), op.getAxes()));
  Value nonzero = expandReduced(op, d, d.reduce("prod", d.select(isZero, one, x), op.getAxes()));
  Value atZero = d.select(d.cmp("eq", zeros, one), nonzero, zero);
  Value noZero = d.cmp("eq", zeros, zero);
  return d.select(isZero, atZero, d.select(noZero, d.div(y, d.select(isZero, one, x)), zero));
}

SmallVector<Value> ReduceOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  if (!t[0])
    return {Value()};
  if (getKind() == ReduceKind::sum)
    return {d.reduce("sum", t[0], getAxes())};
  return {d.reduce("sum", d.mul(t[0], reducePartials(*this, d)), getAxes())};
}
SmallVector<Value> ReduceOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value()};
  Value spread = expandReduced(*this, d, c[0]);
  if (getKind() == ReduceKind::sum)
    return {spread};
  return {d.mul(spread, reducePartials(*this, d))};
}

// C = A B: dC = dA B + A dB; Abar = Cbar B^T, Bbar = A^T Cbar.
SmallVector<Value> MatmulOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  Value l = t[0] ? d.matmul(t[0], getRhs()) : Value();
  Value r = t[1] ? d.matmul(getLhs(), t[1]) : Value();
  return {d.add(l, r)};
}
SmallVector<Value> MatmulOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  if (!c[0])
    return {Value(), Value()};
  return {d.matmul(c[0], d.swapLastAxes(getRhs())), d.matmul(d.swapLastAxes(getLhs()), c[0])};
}

//===----------------------------------------------------------------------===//
// Calls and maps: derivative functions of the callee
//===----------------------------------------------------------------------===//

static FuncOp calleeOf(Operation *op, FlatSymbolRefAttr callee) {
  return SymbolTable::lookupNearestSymbolFrom<FuncOp>(op, callee);
}

static FlatSymbolRefAttr symbolOf(FuncOp f) { return FlatSymbolRefAttr::get(f.getSymNameAttr()); }

/// Whether each operand of a map is sliced along its leading axis.
static SmallVector<bool> mappedFlags(MapOp map) {
  SmallVector<bool> mapped;
  for (unsigned i = 0; i < map.getNumOperands(); ++i)
    mapped.push_back(map.isMapped(i));
  return mapped;
}

/// Flags of the operands with a tangent, and those tangents.
static std::pair<SmallVector<bool>, SmallVector<Value>> presentTangents(ArrayRef<Value> t) {
  SmallVector<bool> flags;
  SmallVector<Value> values;
  for (Value v : t) {
    flags.push_back(bool(v));
    if (v)
      values.push_back(v);
  }
  return {flags, values};
}

/// Flags of the float operands (the inputs a reverse sweep gives cotangents).
static SmallVector<bool> floatFlags(ValueRange values) {
  return llvm::to_vector(
      llvm::map_range(values, [](Value v) { return Differentiator::isFloat(v); }));
}

SmallVector<Value> CallOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [wrt, tangents] = presentTangents(t);
  FuncOp g = d.jvpFunction(fn, wrt);
  if (!g)
    return SmallVector<Value>(getNumResults(), Value());
  SmallVector<Value> args(getOperands());
  args.append(tangents);
  auto call = d.b.create<CallOp>(d.loc, getResultTypes(), symbolOf(g), args, getBlockAttr(),
                                 nullptr, nullptr);
  return SmallVector<Value>(call.getResults());
}

SmallVector<Value> CallOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [of, cotangents] = presentTangents(c);
  SmallVector<bool> wrt = floatFlags(getOperands());
  SmallVector<Value> out(getNumOperands(), Value());
  FuncOp g = d.vjpFunction(fn, wrt, of);
  if (!g)
    return out;
  SmallVector<Value> args(getOperands());
  args.append(cotangents);
  auto call = d.b.create<CallOp>(d.loc, g.getResultTypes(), symbolOf(g), args, getBlockAttr(),
                                 nullptr, nullptr);
  unsigned k = 0;
  for (unsigned i = 0; i < getNumOperands(); ++i)
    if (wrt[i])
      out[i] = call.getResult(k++);
  return out;
}

SmallVector<Value> MapOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [wrt, tangents] = presentTangents(t);
  FuncOp g = d.jvpFunction(fn, wrt);
  if (!g)
    return SmallVector<Value>(getNumResults(), Value());
  SmallVector<Value> args(getOperands());
  args.append(tangents);
  SmallVector<bool> mapped = mappedFlags(*this);
  for (unsigned i = 0; i < getNumOperands(); ++i)
    if (wrt[i])
      mapped.push_back(isMapped(i));
  auto map = d.b.create<MapOp>(d.loc, getResultTypes(), symbolOf(g), getCountAttr(), args,
                               getBlockAttr(), d.b.getDenseBoolArrayAttr(mapped));
  return SmallVector<Value>(map.getResults());
}

// Iteration i's cotangents of its inputs; an input passed whole to every
// iteration (in_axes None) gets the sum over iterations.
SmallVector<Value> MapOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  auto [of, cotangents] = presentTangents(c);
  SmallVector<bool> wrt = floatFlags(getOperands());
  SmallVector<Value> out(getNumOperands(), Value());
  FuncOp g = d.vjpFunction(fn, wrt, of);
  if (!g)
    return out;
  SmallVector<Value> args(getOperands());
  args.append(cotangents);
  SmallVector<bool> mapped = mappedFlags(*this);
  mapped.append(cotangents.size(), true);
  SmallVector<Type> types;
  for (Type t : g.getResultTypes()) {
    SmallVector<int64_t> shape{getCount()};
    auto rt = cast<RankedTensorType>(t);
    shape.append(rt.getShape().begin(), rt.getShape().end());
    types.push_back(RankedTensorType::get(shape, rt.getElementType()));
  }
  auto map = d.b.create<MapOp>(d.loc, types, symbolOf(g), getCountAttr(), args, getBlockAttr(),
                               d.b.getDenseBoolArrayAttr(mapped));
  unsigned k = 0;
  for (unsigned i = 0; i < getNumOperands(); ++i) {
    if (!wrt[i])
      continue;
    Value stacked = map.getResult(k++);
    out[i] = isMapped(i) ? stacked : d.reduce("sum", stacked, {0});
  }
  return out;
}

/// `type` with a leading axis of length `count`.
static RankedTensorType stackedType(Type type, int64_t count) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{count};
  shape.append(t.getShape().begin(), t.getShape().end());
  return RankedTensorType::get(shape, t.getElementType());
}

static SmallVector<std::string> portNames(ArrayAttr names, StringRef prefix = "") {
  SmallVector<std::string> out;
  for (Attribute n : names)
    out.push_back((prefix + cast<StringAttr>(n).getValue()).str());
  return out;
}

// Forward mode through a scan: a scan of the pair (state, state tangent),
// stacked into one carried array of shape (2, ...) so that the loop still
// carries one value; its step calls the step function and its jvp.
SmallVector<Value> ScanOp::jvp(Differentiator &d, ArrayRef<Value> t) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  SmallVector<Value> none(getNumResults(), Value());
  Value s0 = getOperand(0);
  if (!Differentiator::isFloat(s0)) {
    d.fail(*this, "differentiates a scan whose state is not float");
    return none;
  }
  auto [wrt, tangents] = presentTangents(t);
  wrt[0] = true; // the state's tangent evolves even from a zero start
  FuncOp jf = d.jvpFunction(fn, wrt);
  if (!jf)
    return none;
  unsigned nin = getNumOperands();
  Type stateType = s0.getType();
  auto pairType = stackedType(stateType, 2);
  ArrayRef<int64_t> stateShape = shapeOf(s0);

  // step(pair, x..., tx...) -> (pair', y..., ty...)
  SmallVector<Type> ins{pairType}, outs{pairType};
  SmallVector<std::string> inNames{"pair"}, outNames{"pair_next"};
  for (unsigned i = 1; i < nin; ++i) {
    ins.push_back(fn.getArgumentTypes()[i]);
    inNames.push_back(portNames(fn.getArgNames())[i]);
  }
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      ins.push_back(fn.getArgumentTypes()[i]);
      inNames.push_back("d_" + portNames(fn.getArgNames())[i]);
    }
  auto resNames = portNames(fn.getResNames());
  for (unsigned j = 1; j < fn.getResultTypes().size(); ++j) {
    outs.push_back(fn.getResultTypes()[j]);
    outNames.push_back(resNames[j]);
  }
  for (unsigned j = 1; j < fn.getResultTypes().size(); ++j) {
    outs.push_back(fn.getResultTypes()[j]);
    outNames.push_back("d_" + resNames[j]);
  }
  FuncOp step = d.newFunction(fn, (fn.getSymName() + "_scan_jvp").str(), ins, inNames, outs,
                              outNames);
  {
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = step.getBody().front();
    d.b.setInsertionPointToStart(&body);
    Value pair = body.getArgument(0);
    Value s = d.takeLeading(pair, 0), ds = d.takeLeading(pair, 1);
    SmallVector<Value> primalArgs{s}, jvpArgs{s};
    for (unsigned i = 1; i < nin; ++i) {
      primalArgs.push_back(body.getArgument(i));
      jvpArgs.push_back(body.getArgument(i));
    }
    jvpArgs.push_back(ds);
    for (unsigned k = nin; k < body.getNumArguments(); ++k)
      jvpArgs.push_back(body.getArgument(k));
    auto primal = d.b.create<CallOp>(d.loc, fn.getResultTypes(), getCalleeAttr(), primalArgs,
                                     getBlockAttr(), nullptr, nullptr);
    auto tangent = d.b.create<CallOp>(d.loc, jf.getResultTypes(),
                                      symbolOf(jf), jvpArgs,
                                      getBlockAttr(), nullptr, nullptr);
    SmallVector<int64_t> one{1};
    one.append(stateShape.begin(), stateShape.end());
    SmallVector<Value> results{d.concat({d.reshape(primal.getResult(0), one),
                                         d.reshape(tangent.getResult(0), one)},
                                        0, pairType)};
    for (unsigned j = 1; j < primal.getNumResults(); ++j)
      results.push_back(primal.getResult(j));
    for (unsigned j = 1; j < tangent.getNumResults(); ++j)
      results.push_back(tangent.getResult(j));
    d.b.create<ReturnOp>(d.loc, results);
  }

  SmallVector<int64_t> one{1};
  one.append(stateShape.begin(), stateShape.end());
  Value pair0 = d.concat({d.reshape(s0, one), d.reshape(d.orZeros(t[0], stateType), one)}, 0,
                         pairType);
  SmallVector<Value> args{pair0};
  SmallVector<bool> mapped{false};
  for (unsigned i = 1; i < nin; ++i) {
    args.push_back(getOperand(i));
    mapped.push_back(isMapped(i));
  }
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      args.push_back(t[i]);
      mapped.push_back(isMapped(i));
    }
  SmallVector<Type> types{pairType};
  for (unsigned j = 1; j < outs.size(); ++j)
    types.push_back(stackedType(outs[j], getCount()));
  auto scan = d.b.create<ScanOp>(d.loc, types, symbolOf(step),
                                 getCountAttr(), args, getBlockAttr(),
                                 d.b.getDenseBoolArrayAttr(mapped));
  SmallVector<Value> out{d.takeLeading(scan.getResult(0), 1)};
  unsigned others = getNumResults() - 1;
  for (unsigned j = 0; j < others; ++j)
    out.push_back(scan.getResult(1 + others + j));
  return out;
}

// Reverse mode through a scan: a forward scan that also stacks the state
// each step starts from, then a scan over the reversed steps carrying the
// state's cotangent; each reverse step calls the step function's vjp.
SmallVector<Value> ScanOp::vjp(Differentiator &d, ArrayRef<Value> c) {
  FuncOp fn = calleeOf(*this, getCalleeAttr());
  unsigned nin = getNumOperands(), nout = getNumResults();
  SmallVector<Value> none(nin, Value());
  Value s0 = getOperand(0);
  if (!Differentiator::isFloat(s0)) {
    d.fail(*this, "differentiates a scan whose state is not float");
    return none;
  }
  Type stateType = s0.getType();
  int64_t n = getCount();
  SmallVector<bool> wrt = floatFlags(getOperands());
  SmallVector<bool> of{true};
  for (unsigned j = 1; j < nout; ++j)
    of.push_back(bool(c[j]));
  FuncOp vf = d.vjpFunction(fn, wrt, of);
  if (!vf)
    return none;
  auto argNames = portNames(fn.getArgNames());

  // 1. Forward, stacking the state each step starts from.
  SmallVector<Type> fwdIns(fn.getArgumentTypes());
  FuncOp fwd = d.newFunction(fn, (fn.getSymName() + "_states").str(), fwdIns, argNames,
                             {stateType, stateType}, {"state_next", "state"});
  {
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = fwd.getBody().front();
    d.b.setInsertionPointToStart(&body);
    auto call = d.b.create<CallOp>(d.loc, fn.getResultTypes(), getCalleeAttr(),
                                   ValueRange(body.getArguments()), getBlockAttr(), nullptr,
                                   nullptr);
    d.b.create<ReturnOp>(d.loc, ValueRange{call.getResult(0), body.getArgument(0)});
  }
  SmallVector<bool> mapped;
  for (unsigned i = 0; i < nin; ++i)
    mapped.push_back(isMapped(i));
  auto states = d.b.create<ScanOp>(
      d.loc, TypeRange{stateType, stackedType(stateType, n)},
      symbolOf(fwd), getCountAttr(), getOperands(), getBlockAttr(),
      d.b.getDenseBoolArrayAttr(mapped));

  // 2. Backward: step(sbar, s_i, x_i..., ybar_i...) -> (sbar_prev, xbar_i...).
  SmallVector<Type> ins{stateType, stateType};
  SmallVector<std::string> inNames{"adj_state", "state"};
  for (unsigned i = 1; i < nin; ++i) {
    ins.push_back(fn.getArgumentTypes()[i]);
    inNames.push_back(argNames[i]);
  }
  auto resNames = portNames(fn.getResNames(), "adj_");
  for (unsigned j = 1; j < nout; ++j)
    if (of[j]) {
      ins.push_back(fn.getResultTypes()[j]);
      inNames.push_back(resNames[j]);
    }
  SmallVector<Type> outs{stateType};
  SmallVector<std::string> outNames{"adj_state_prev"};
  for (unsigned i = 1; i < nin; ++i)
    if (wrt[i]) {
      outs.push_back(fn.getArgumentTypes()[i]);
      outNames.push_back("adj_" + argNames[i]);
    }
  FuncOp back = d.newFunction(fn, (fn.getSymName() + "_scan_vjp").str(), ins, inNames, outs,
                              outNames);
  {
    OpBuilder::InsertionGuard guard(d.b);
    Block &body = back.getBody().front();
    d.b.setInsertionPointToStart(&body);
    SmallVector<Value> args{body.getArgument(1)};
    for (unsigned i = 1; i < nin; ++i)
      args.push_back(body.getArgument(i + 1));
    args.push_back(body.getArgument(0));
    for (unsigned k = nin + 1; k < body.getNumArguments(); ++k)
      args.push_back(body.getArgument(k));
    auto call = d.b.create<CallOp>(d.loc, vf.getResultTypes(),
                                   symbolOf(vf), args,
                                   getBlockAttr(), nullptr, nullptr);
    d.b.create<ReturnOp>(d.loc, call.getResults());
  }
  SmallVector<Value> args{d.orZeros(c[0], stateType), d.reverseLeading(states.getResult(1))};
  SmallVector<bool> backMapped{false, true};
  for (unsigned i = 1; i < nin; ++i) {
    args.push_back(isMapped(i) ? d.reverseLeading(getOperand(i)) : getOperand(i));
    backMapped.push_back(isMapped(i));
  }
  for (unsigned j = 1; j < nout; ++j)
    if (of[j]) {
      args.push_back(d.reverseLeading(c[j]));
      backMapped.push_back(true);
    }
  SmallVector<Type> types{stateType};
  for (unsigned k = 1; k < outs.size(); ++k)
    types.push_back(stackedType(outs[k], n));
  auto reversed = d.b.create<ScanOp>(d.loc, types, symbolOf(back),
                                     getCountAttr(), args, getBlockAttr(),
                                     d.b.getDenseBoolArrayAttr(backMapped));
  SmallVector<Value> out{reversed.getResult(0)};
  unsigned k = 1;
  for (unsigned i = 1; i < nin; ++i) {
    if (!wrt[i]) {
      out.push_back(Value());
      continue;
    }
    Value stacked = reversed.getResult(k++);
    out.push_back(isMapped(i) ? d.reverseLeading(stacked) : d.reduce("sum", stacked, {0}));
  }
  return out;
}
