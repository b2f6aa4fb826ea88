//===- Graph.cpp - the traced expression graph ---------------------------===//

#include "scaly/Trace/Graph.h"
#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Expr/ShapeRules.h"
#include "scaly/Support/DiagnosticCollector.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <algorithm>
#include <numeric>
#include <climits>
#include <cmath>
#include <optional>

using namespace mlir;

namespace scaly::trace {

namespace rules = scaly::expr::shape;

static const char *const kDTypeNames[] = {"float64", "float32", "int32", "int64", "bool"};

DType parseDType(const std::string &name) {
  for (int i = 0; i < 5; ++i)
    if (name == kDTypeNames[i])
      return static_cast<DType>(i);
  throw std::invalid_argument("unknown dtype '" + name +
                              "': expected one of float64, float32, int32, int64, bool");
}

const char *dtypeName(DType d) { return kDTypeNames[static_cast<int>(d)]; }
bool isFloat(DType d) { return d == DType::F64 || d == DType::F32; }

Type elementType(MLIRContext &ctx, DType d) {
  Builder b(&ctx);
  switch (d) {
  case DType::F64: return b.getF64Type();
  case DType::F32: return b.getF32Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  case DType::Bool: return b.getI1Type();
  }
  return {};
}

RankedTensorType tensorType(MLIRContext &ctx, const Shape &shape, DType d) {
  return RankedTensorType::get(shape, elementType(ctx, d));
}

DType dtypeOf(Type t) {
  if (t.isF64()) return DType::F64;
  if (t.isF32()) return DType::F32;
  if (t.isInteger(32)) return DType::I32;
  if (t.isInteger(64)) return DType::I64;
  if (t.isInteger(1)) return DType::Bool;
  throw std::invalid_argument("an expression value of an element type Scaly has no dtype for");
}

// Shapes print and count as the dialect's shape rules do (one definition).
int64_t numElements(const Shape &shape) { return expr::shape::count(shape); }
std::string shapeString(const Shape &shape) { return expr::shape::str(shape); }

/// The value of the dialect enum `E` named `name`; an unknown name lists the
/// known ones (the ODS definitions are the one list).
template <typename E>
static E enumValue(const std::string &name, unsigned maxValue, const char *what) {
  if (std::optional<E> e = expr::symbolizeEnum<E>(name))
    return *e;
  std::string known;
  for (unsigned i = 0; i <= maxValue; ++i)
    known += (i ? ", " : "") + expr::stringifyEnum(static_cast<E>(i)).str();
  throw std::invalid_argument(std::string("unknown ") + what + " '" + name + "': expected one of " +
                              known);
}

//===----------------------------------------------------------------------===//
// Storage: ops in one block, interned by content
//===----------------------------------------------------------------------===//

Graph::Graph(MLIRContext &ctx)
    : ctx_(ctx), body_(std::make_unique<Block>()), builder_(&ctx), loc_(UnknownLoc::get(&ctx)) {
  ctx.getOrLoadDialect<expr::ExprDialect>();
  builder_.setInsertionPointToEnd(body_.get());
}

Graph::~Graph() {
  // Users first: an op may only be erased once nothing uses its results.
  body_->dropAllDefinedValueUses();
  body_->clear();
}

Shape Graph::shape(int32_t id) const {
  auto t = llvm::cast<RankedTensorType>(typeOf(id));
  return Shape(t.getShape().begin(), t.getShape().end());
}

DType Graph::dtype(int32_t id) const {
  return dtypeOf(llvm::cast<RankedTensorType>(typeOf(id)).getElementType());
}

Value Graph::value(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= values_.size())
    throw std::out_of_range("expression node " + std::to_string(id) + " is not in this graph");
  // A lazily recorded value is built when first asked for: what is built
  // changes, what it means does not (the graph is used under the context lock).
  if (!values_[id])
    const_cast<Graph *>(this)->materialize(id);
  return values_[id];
}

RankedTensorType Graph::tensorType(const Shape &shape, DType dtype) const {
  return trace::tensorType(ctx_, shape, dtype);
}

std::vector<int32_t> Graph::resultIds(Operation *op) {
  std::vector<int32_t> ids;
  for (Value r : op->getResults())
    ids.push_back(ids_.lookup(r));
  return ids;
}

int32_t Graph::add(Operation *op, bool intern) {
  // Records pending before `op` are built before it, as if built at once.
  if (pendingBegin_ < records_.size()) {
    OpBuilder::InsertionGuard keep(builder_);
    builder_.setInsertionPoint(op);
    flushPending(-1);
  }
  replaceUnrolled(op);
  uint64_t h = 0;
  if (intern && !unrolling_) {
    h = OperationEquivalence::computeHash(op, OperationEquivalence::directHashValue,
                                          OperationEquivalence::ignoreHashValue,
                                          OperationEquivalence::IgnoreLocations);
    // DenseMap reserves its two largest keys; such a hash shares a bucket
    // (equivalence still decides).
    if (h >= llvm::DenseMapInfo<uint64_t>::getTombstoneKey())
      h -= 2;
    if (auto it = interned_.find(h); it != interned_.end())
      for (Operation *same : it->second)
        if (OperationEquivalence::isEquivalentTo(same, op,
                                                 OperationEquivalence::IgnoreLocations)) {
          op->erase();
          return ids_.lookup(same->getResult(0));
        }
  }
  if (values_.size() + op->getNumResults() >= static_cast<size_t>(INT32_MAX)) {
    op->erase();
    throw std::length_error("expression graph exceeds 2^31 values");
  }
  int32_t first = static_cast<int32_t>(values_.size());
  for (Value r : op->getResults()) {
    ids_[r] = static_cast<int32_t>(values_.size());
    values_.push_back(r);
  }
  if (intern)
    interned_[h].push_back(op);
  return first;
}

void Graph::setLocation(llvm::StringRef file, int32_t line) {
  if (line == locLine_ && file == locFile_)
    return;
  locFile_ = file.str();
  locLine_ = line;
  loc_ = file.empty() ? Location(UnknownLoc::get(&ctx_))
                      : Location(FileLineColLoc::get(&ctx_, file, line, 0));
}

FlatSymbolRefAttr Graph::calleeSymbol(std::shared_ptr<const Function> fn) {
  auto [it, inserted] = calleeIds_.try_emplace(fn.get(), static_cast<unsigned>(callees_.size()));
  if (inserted)
    callees_.push_back(std::move(fn));
  return FlatSymbolRefAttr::get(&ctx_, "callee" + std::to_string(it->second));
}

const Function &Graph::callee(Operation *application) const {
  auto sym = application->getAttrOfType<FlatSymbolRefAttr>("callee");
  if (!sym || !sym.getValue().starts_with("callee"))
    throw std::logic_error("not an application op of this graph");
  return *callees_.at(std::stoul(sym.getValue().drop_front(6).str()));
}

bool Graph::isApplication(Operation *op) {
  return isa<expr::CallOp, expr::MapOp, expr::ScanOp, expr::JvpOp, expr::VjpOp>(op);
}

llvm::DenseSet<Operation *> Graph::liveOps(const std::vector<int32_t> &results) const {
  llvm::DenseSet<Operation *> live;
  SmallVector<Operation *> work;
  auto need = [&](Value v) {
    if (Operation *def = v.getDefiningOp())
      if (live.insert(def).second)
        work.push_back(def);
  };
  // Every result first: asking for one may unroll a chain another's value
  // came from (which is then replaced).
  for (int32_t r : results)
    value(r);
  for (int32_t r : results)
    need(value(r));
  while (!work.empty())
    for (Value operand : work.pop_back_val()->getOperands())
      need(operand);
  return live;
}

int32_t Graph::input(int32_t position, Shape shape, DType dtype) {
  if (position < 0)
    throw std::invalid_argument("input position " + std::to_string(position) +
                                " is negative");
  for (int64_t d : shape)
    if (d < 0)
      throw std::invalid_argument("shape " + shapeString(shape) + " has a negative dimension");
  BlockArgument arg = body_->addArgument(tensorType(shape, dtype), loc_);
  inputPositions_.push_back(position);
  int32_t id = static_cast<int32_t>(values_.size());
  ids_[arg] = id;
  values_.push_back(arg);
  return id;
}

std::vector<int32_t> Graph::inputs() const {
  std::vector<int32_t> out;
  for (BlockArgument arg : body_->getArguments()) {
    size_t pos = static_cast<size_t>(inputPositions_[arg.getArgNumber()]);
    if (out.size() <= pos)
      out.resize(pos + 1, -1);
    out[pos] = ids_.lookup(arg);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Constants and NumPy's dtype rules
//===----------------------------------------------------------------------===//

static void checkCount(size_t count, const Shape &shape) {
  if (static_cast<int64_t>(count) != numElements(shape))
    throw std::invalid_argument("constant of shape " + shapeString(shape) + " needs " +
                                std::to_string(numElements(shape)) + " values, got " +
                                std::to_string(count));
}

/// `values` as exact int64s for an integer or bool dtype, or nothing if one
/// is not an integer in range.
static std::optional<std::vector<int64_t>> exactInts(const std::vector<double> &values, DType to) {
  std::vector<int64_t> out;
  for (double v : values) {
    // 2^63 is the first double beyond int64; the comparison is exact.
    if (!(v == std::trunc(v)) || v < -9223372036854775808.0 || v >= 9223372036854775808.0)
      return std::nullopt;
    out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

int32_t Graph::constant(std::vector<double> values, Shape shape, DType dtype) {
  checkCount(values.size(), shape);
  if (!isFloat(dtype)) {
    auto ints = exactInts(values, dtype);
    if (!ints)
      throw std::invalid_argument(std::string("a ") + dtypeName(dtype) +
                                  " constant needs integer values");
    return constantInts(std::move(*ints), std::move(shape), dtype);
  }
  RankedTensorType type = tensorType(shape, dtype);
  DenseElementsAttr value;
  if (dtype == DType::F64) {
    value = DenseElementsAttr::get(type, ArrayRef<double>(values));
  } else {
    std::vector<float> floats(values.begin(), values.end());
    value = DenseElementsAttr::get(type, ArrayRef<float>(floats));
  }
  return add(builder_.create<expr::ConstantOp>(loc_, value));
}

int32_t Graph::constantInts(std::vector<int64_t> values, Shape shape, DType dtype) {
  checkCount(values.size(), shape);
  if (isFloat(dtype)) {
    std::vector<double> doubles(values.begin(), values.end());
    return constant(std::move(doubles), std::move(shape), dtype);
  }
  for (int64_t v : values)
    if ((dtype == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) ||
        (dtype == DType::Bool && v != 0 && v != 1))
      throw std::invalid_argument("value " + std::to_string(v) + " does not fit a " +
                                  dtypeName(dtype) + " constant");
  RankedTensorType type = tensorType(shape, dtype);
  unsigned width = type.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> ints;
  ints.reserve(values.size());
  for (int64_t v : values)
    ints.push_back(APInt(width, static_cast<uint64_t>(v), width > 1));
  return add(builder_.create<expr::ConstantOp>(loc_, DenseElementsAttr::get(type, ints)));
}

bool Graph::isConstant(int32_t id) const {
  return value(id).getDefiningOp<expr::ConstantOp>() != nullptr;
}

/// The values of a constant: as doubles for a float one, else as exact int64s.
static std::pair<std::vector<double>, std::vector<int64_t>> constantValues(expr::ConstantOp c) {
  auto attr = cast<DenseElementsAttr>(c.getValue());
  std::pair<std::vector<double>, std::vector<int64_t>> out;
  Type e = attr.getElementType();
  if (e.isF64())
    out.first.assign(attr.getValues<double>().begin(), attr.getValues<double>().end());
  else if (e.isF32())
    for (float f : attr.getValues<float>())
      out.first.push_back(f);
  else
    for (const APInt &v : attr.getValues<APInt>())
      out.second.push_back(e.isInteger(1) ? static_cast<int64_t>(v.getZExtValue())
                                          : v.getSExtValue());
  return out;
}

/// The constant `id` converted to `to`, when every value converts exactly
/// (float32 only needs to be in range: 0.1 stays "0.1" at float32
/// precision); -1 otherwise.
int32_t Graph::convertExactly(int32_t id, DType to) {
  auto [values, ints] = constantValues(value(id).getDefiningOp<expr::ConstantOp>());
  Shape s = shape(id);
  if (isFloat(dtype(id))) {
    if (to == DType::F64)
      return constant(values, s, to);
    if (to == DType::F32) {
      for (double v : values)
        if (std::isfinite(v) && std::fabs(v) > 3.4028234663852886e38)
          return -1;
      return constant(values, s, to);
    }
    auto exact = exactInts(values, to);
    if (!exact)
      return -1;
    for (int64_t v : *exact)
      if ((to == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) ||
          (to == DType::Bool && v != 0 && v != 1))
        return -1;
    return constantInts(std::move(*exact), s, to);
  }
  // From integers: a float must hold each value exactly.
  double limit = to == DType::F64 ? 9007199254740992.0 : 16777216.0;
  for (int64_t v : ints) {
    if (isFloat(to) && std::fabs(static_cast<double>(v)) > limit)
      return -1;
    if ((to == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) ||
        (to == DType::Bool && v != 0 && v != 1))
      return -1;
  }
  return constantInts(ints, s, to);
}

/// Kind of a dtype: bool < integer < float.
static int kindRank(DType d) { return d == DType::Bool ? 0 : (isFloat(d) ? 2 : 1); }

/// NumPy's promotion of two array dtypes: bool yields to anything, int32 and
/// int64 meet at int64, float32 and float64 at float64, and an integer with
/// any float at float64 (float32 cannot hold every int32).
static DType promote(DType a, DType b) {
  if (a == b || b == DType::Bool)
    return a;
  if (a == DType::Bool)
    return b;
  if (kindRank(a) == kindRank(b))
    return isFloat(a) ? DType::F64 : DType::I64;
  return DType::F64;
}

int32_t Graph::promoteTo(int32_t a, DType to) {
  if (dtype(a) == to)
    return a;
  if (isConstant(a)) {
    int32_t c = convertExactly(a, to);
    if (c >= 0)
      return c;
  }
  return cast(a, to);
}

std::pair<int32_t, int32_t> Graph::unify(int32_t a, int32_t b, const char *what) {
  DType da = dtype(a), db = dtype(b);
  if (da != db) {
    // A constant (a Python number or a NumPy constant) is weak: it takes the
    // other operand's dtype when that is of its kind or a higher one and its
    // values convert exactly (0.1 * x stays float32 for a float32 x).
    // Otherwise both meet at NumPy's promoted dtype.
    bool aConst = isConstant(a), bConst = isConstant(b);
    int32_t ca = -1, cb = -1;
    if (aConst && !bConst && kindRank(da) <= kindRank(db))
      ca = convertExactly(a, db);
    if (bConst && !aConst && kindRank(db) <= kindRank(da))
      cb = convertExactly(b, da);
    if (ca >= 0)
      a = ca;
    else if (cb >= 0)
      b = cb;
    else {
      DType target = promote(da, db);
      a = promoteTo(a, target);
      b = promoteTo(b, target);
    }
  }
  Shape sa = shape(a), sb = shape(b);
  if (sa == sb)
    return {a, b};
  std::string error;
  Shape out = rules::broadcast(sa, sb, error);
  if (!error.empty())
    throw std::invalid_argument(std::string(what) + ": " + error);
  return {broadcast(a, out), broadcast(b, out)};
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

int32_t Graph::binary(BinaryKind kind, int32_t a, int32_t b) {
  static const char *names[] = {"+", "-", "*", "/"};
  const char *what = names[static_cast<int>(kind)];
  auto [x, y] = unify(a, b, what);
  // On bools NumPy's + is "or" and * is "and" (lowering says so); - has no
  // meaning and / is true division on float64 (done by the front end).
  if (dtype(x) == DType::Bool && (kind == BinaryKind::Sub || kind == BinaryKind::Div))
    throw std::invalid_argument(std::string(what) +
                                " is not defined on bool arrays (NumPy refuses it too); use "
                                "sc.where or cast with .astype()");
  Value vx = value(x), vy = value(y);
  switch (kind) {
  case BinaryKind::Add: return add(builder_.create<expr::AddOp>(loc_, vx, vy));
  case BinaryKind::Sub: return add(builder_.create<expr::SubOp>(loc_, vx, vy));
  case BinaryKind::Mul: return add(builder_.create<expr::MulOp>(loc_, vx, vy));
  case BinaryKind::Div: return add(builder_.create<expr::DivOp>(loc_, vx, vy));
  }
  throw std::logic_error("unknown binary op");
}

int32_t Graph::neg(int32_t a) {
  if (!isFloat(dtype(a)))
    throw std::invalid_argument("negation needs a float array, got " +
                                std::string(dtypeName(dtype(a))));
  return add(builder_.create<expr::NegOp>(loc_, value(a)));
}

int32_t Graph::math(const std::string &fn, int32_t a) {
  auto code = enumValue<expr::MathFn>(fn, expr::getMaxEnumValForMathFn(), "math function");
  if (!isFloat(dtype(a)))
    throw std::invalid_argument(fn + " needs a float array, got " + dtypeName(dtype(a)) +
                                "; cast it first");
  return add(builder_.create<expr::MathOp>(loc_, code, value(a)));
}

int32_t Graph::math2(const std::string &fn, int32_t a, int32_t b) {
  auto code = enumValue<expr::Math2Fn>(fn, expr::getMaxEnumValForMath2Fn(), "math function");
  auto [x, y] = unify(a, b, fn.c_str());
  if (!isFloat(dtype(x)))
    throw std::invalid_argument(fn + " needs float arrays, got " + dtypeName(dtype(x)));
  return add(builder_.create<expr::Math2Op>(loc_, code, value(x), value(y)));
}

int32_t Graph::compare(const std::string &pred, int32_t a, int32_t b) {
  auto code =
      enumValue<expr::CmpPredicate>(pred, expr::getMaxEnumValForCmpPredicate(), "comparison");
  auto [x, y] = unify(a, b, pred.c_str());
  return add(builder_.create<expr::CmpOp>(loc_, tensorType(shape(x), DType::Bool), code, value(x),
                                          value(y)));
}

int32_t Graph::select(int32_t cond, int32_t a, int32_t b) {
  auto [x, y] = unify(a, b, "where");
  if (dtype(cond) != DType::Bool)
    throw std::invalid_argument("where: the condition must be bool, got " +
                                std::string(dtypeName(dtype(cond))));
  // The condition and both branches broadcast together, as in NumPy.
  std::string error;
  Shape out = rules::broadcast(shape(cond), shape(x), error);
  if (!error.empty())
    throw std::invalid_argument("where: " + error);
  cond = broadcast(cond, out);
  x = broadcast(x, out);
  y = broadcast(y, out);
  return add(builder_.create<expr::SelectOp>(loc_, value(cond), value(x), value(y)));
}

int32_t Graph::cast(int32_t a, DType to) {
  if (dtype(a) == to)
    return a;
  return add(builder_.create<expr::CastOp>(loc_, tensorType(shape(a), to), value(a)));
}

//===----------------------------------------------------------------------===//
// Structure: shapes, element selection, reductions, contraction
//===----------------------------------------------------------------------===//

int32_t Graph::broadcast(int32_t a, Shape to) {
  Shape from = shape(a);
  if (from == to)
    return a;
  if (!rules::broadcastsTo(from, to))
    throw std::invalid_argument("cannot broadcast shape " + shapeString(from) + " to " +
                                shapeString(to) +
                                ": axes must be equal or 1 (aligned from the right)");
  return add(builder_.create<expr::BroadcastOp>(loc_, tensorType(to, dtype(a)), value(a)));
}

int32_t Graph::reshape(int32_t a, Shape to) {
  Shape from = shape(a);
  for (int64_t d : to)
    if (d < 0)
      throw std::invalid_argument("reshape: shape " + shapeString(to) +
                                  " has a negative dimension");
  if (numElements(to) != numElements(from))
    throw std::invalid_argument("cannot reshape " + shapeString(from) + " (" +
                                std::to_string(numElements(from)) + " elements) to " +
                                shapeString(to) + " (" + std::to_string(numElements(to)) +
                                " elements)");
  if (from == to)
    return a;
  return add(builder_.create<expr::ReshapeOp>(loc_, tensorType(to, dtype(a)), value(a)));
}

int32_t Graph::gather(int32_t a, std::vector<int64_t> indices, Shape to) {
  int64_t n = numElements(shape(a));
  if (static_cast<int64_t>(indices.size()) != numElements(to))
    throw std::invalid_argument("gather: " + std::to_string(indices.size()) +
                                " indices for shape " + shapeString(to));
  for (int64_t i : indices)
    if (i < 0 || i >= n)
      throw std::out_of_range("index " + std::to_string(i) + " is out of range for " +
                              std::to_string(n) + " elements");
  return add(builder_.create<expr::GatherOp>(loc_, tensorType(to, dtype(a)), value(a),
                                             builder_.getDenseI64ArrayAttr(indices)));
}

int32_t Graph::scatter(int32_t a, std::vector<int64_t> positions, Shape to) {
  std::string error;
  rules::scatter(shape(a), positions.data(), positions.size(), to, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  return add(builder_.create<expr::ScatterOp>(loc_, tensorType(to, dtype(a)), value(a),
                                              builder_.getDenseI64ArrayAttr(positions)));
}

int32_t Graph::concat(const std::vector<int32_t> &parts, Shape to) {
  if (parts.empty())
    throw std::invalid_argument("concat: needs at least one array");
  DType d = dtype(parts[0]);
  int64_t total = 0;
  SmallVector<Value> operands;
  for (int32_t p : parts) {
    if (dtype(p) != d)
      throw std::invalid_argument(std::string("concat: dtypes ") + dtypeName(d) + " and " +
                                  dtypeName(dtype(p)) + " differ");
    total += numElements(shape(p));
    operands.push_back(value(p));
  }
  if (total != numElements(to))
    throw std::invalid_argument("concat: parts hold " + std::to_string(total) +
                                " elements, shape " + shapeString(to) + " needs " +
                                std::to_string(numElements(to)));
  if (parts.size() == 1 && shape(parts[0]) == to)
    return parts[0];
  return add(builder_.create<expr::ConcatOp>(loc_, tensorType(to, d), operands, IntegerAttr()));
}

int32_t Graph::sum(int32_t a) {
  std::vector<int64_t> all(shape(a).size()); // every axis
  std::iota(all.begin(), all.end(), 0);
  return reduce("sum", a, std::move(all));
}

int32_t Graph::reduce(const std::string &kindName, int32_t a, std::vector<int64_t> axes) {
  auto kind = enumValue<expr::ReduceKind>(kindName, expr::getMaxEnumValForReduceKind(),
                                          "reduction");
  DType d = dtype(a);
  // NumPy's accumulator types: sums and products of bools and int32 are int64.
  bool widen = (kind == expr::ReduceKind::sum || kind == expr::ReduceKind::prod) &&
               (d == DType::Bool || d == DType::I32);
  // max/min of bools are "any"/"all": computed on int32, cast back.
  bool boolExtreme = !widen && d == DType::Bool;
  if (widen)
    a = cast(a, DType::I64);
  else if (boolExtreme)
    a = cast(a, DType::I32);
  Shape in = shape(a);
  std::string error;
  Shape out = rules::reduce(in, axes, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  if (kind != expr::ReduceKind::sum && kind != expr::ReduceKind::prod)
    for (int64_t ax : axes)
      if (in[ax] == 0)
        throw std::invalid_argument(std::string(kindName) +
                                    ": zero-size axis has no identity (NumPy refuses it too)");
  if (axes.empty())
    return boolExtreme ? cast(a, DType::Bool) : a;
  int32_t r = add(builder_.create<expr::ReduceOp>(loc_, tensorType(out, dtype(a)), kind, value(a),
                                                  builder_.getDenseI64ArrayAttr(axes)));
  return boolExtreme ? cast(r, DType::Bool) : r;
}

int32_t Graph::slice(int32_t a, std::vector<int64_t> starts, std::vector<int64_t> steps,
                     Shape sizes) {
  Shape in = shape(a);
  std::string error;
  rules::slice(in, starts, steps, sizes, error);
  if (!error.empty())
    throw std::out_of_range(error);
  bool identity = sizes == in;
  for (size_t d = 0; identity && d < sizes.size(); ++d)
    identity = starts[d] == 0 && steps[d] == 1;
  if (identity)
    return a;
  // An empty axis reads nothing: normalize so equal slices intern as one.
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] == 0)
      starts[d] = 0, steps[d] = 1;
  return add(builder_.create<expr::SliceOp>(loc_, tensorType(sizes, dtype(a)), value(a),
                                            builder_.getDenseI64ArrayAttr(starts),
                                            builder_.getDenseI64ArrayAttr(steps)));
}

int32_t Graph::index(int32_t a, int64_t k) {
  auto t = llvm::cast<RankedTensorType>(typeOf(a));
  if (t.getRank() == 0 || k < -t.getDimSize(0) || k >= t.getDimSize(0))
    return -1;
  LazyRecord r(loc_);
  r.base = a;
  r.row = k < 0 ? k + t.getDimSize(0) : k;
  // A loop indexes one array again and again: its row type is made once.
  if (t != lastIndexed_) {
    lastIndexed_ = t;
    lastRow_ = RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
  }
  r.type = lastRow_;
  return recordLazily(std::move(r));
}

int32_t Graph::rows(int32_t a, int64_t first, int64_t step, int64_t count) {
  Shape sizes = shape(a);
  std::vector<int64_t> starts(sizes.size(), 0), steps(sizes.size(), 1);
  starts[0] = first;
  steps[0] = step;
  sizes[0] = count;
  return slice(a, std::move(starts), std::move(steps), std::move(sizes));
}

int32_t Graph::indexNow(int32_t a, int64_t k) {
  Shape in = shape(a);
  return reshape(rows(a, k, 1, 1), Shape(in.begin() + 1, in.end()));
}

int32_t Graph::gatherRows(int32_t a, const std::vector<int64_t> &at) {
  Shape stacked = shape(a);
  int64_t perRow = numElements(Shape(stacked.begin() + 1, stacked.end()));
  std::vector<int64_t> positions;
  positions.reserve(at.size() * perRow);
  for (int64_t row : at)
    for (int64_t e = 0; e < perRow; ++e)
      positions.push_back(row * perRow + e);
  stacked[0] = static_cast<int64_t>(at.size());
  return gather(a, std::move(positions), std::move(stacked));
}

int32_t Graph::transpose(int32_t a, std::vector<int64_t> perm) {
  std::string error;
  Shape out = rules::transpose(shape(a), perm, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return a;
  return add(builder_.create<expr::TransposeOp>(loc_, tensorType(out, dtype(a)), value(a),
                                                builder_.getDenseI64ArrayAttr(perm)));
}

int32_t Graph::matmul(int32_t a, int32_t b) {
  DType d = promote(dtype(a), dtype(b));
  if (d == DType::Bool)
    throw std::invalid_argument("@: matrix products of bool arrays are not defined; cast first");
  Shape sa = shape(a), sb = shape(b);
  if (sa.size() < 2 || sb.size() < 2)
    throw std::invalid_argument("@: operands need at least 2 dimensions here, got " +
                                shapeString(sa) + " and " + shapeString(sb));
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  std::string error;
  Shape batch = rules::broadcast(ba, bb, error);
  if (!error.empty())
    throw std::invalid_argument("@: batch axes: " + error);
  Shape fa = batch, fb = batch;
  fa.insert(fa.end(), sa.end() - 2, sa.end());
  fb.insert(fb.end(), sb.end() - 2, sb.end());
  int32_t pa = broadcast(promoteTo(a, d), fa), pb = broadcast(promoteTo(b, d), fb);
  Shape out = rules::matmul(fa, fb, error);
  if (!error.empty())
    throw std::invalid_argument("@: " + error);
  return add(
      builder_.create<expr::MatmulOp>(loc_, tensorType(out, d), value(pa), value(pb)));
}

int32_t Graph::concatAxis(const std::vector<int32_t> &parts, int64_t axis) {
  if (parts.empty())
    throw std::invalid_argument("concat: needs at least one array");
  std::vector<Shape> shapes;
  SmallVector<Value> operands;
  DType d = dtype(parts[0]);
  for (int32_t p : parts) {
    if (dtype(p) != d)
      throw std::invalid_argument(std::string("concat: dtypes ") + dtypeName(d) + " and " +
                                  dtypeName(dtype(p)) + " differ; cast with .astype()");
    shapes.push_back(shape(p));
    operands.push_back(value(p));
  }
  std::string error;
  Shape out = rules::concat(shapes, axis, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  if (parts.size() == 1)
    return parts[0];
  return add(builder_.create<expr::ConcatOp>(loc_, tensorType(out, d), operands,
                                             builder_.getI64IntegerAttr(axis)));
}

//===----------------------------------------------------------------------===//
// Any op by name
//===----------------------------------------------------------------------===//

std::vector<int32_t> Graph::op(const std::string &name, const std::vector<int32_t> &operands,
                               DictionaryAttr attributes) {
  std::optional<RegisteredOperationName> info = RegisteredOperationName::lookup(name, &ctx_);
  if (!info || info->getDialectNamespace() != expr::ExprDialect::getDialectNamespace())
    throw std::invalid_argument("'" + name + "' is not an op of the expression dialect");
  if (!info->hasInterface<InferTypeOpInterface>())
    throw std::invalid_argument(name + " does not infer its result types: it has a builder "
                                       "method of the graph instead");
  // Only the op's own attributes: a misspelt name is an error, not an extra.
  if (attributes)
    for (NamedAttribute a : attributes) {
      ArrayRef<StringAttr> known = info->getAttributeNames();
      if (!llvm::is_contained(known, a.getName())) {
        std::string names;
        for (StringAttr k : known)
          names += (names.empty() ? "" : ", ") + k.str();
        throw std::invalid_argument(name + ": no attribute '" + a.getName().str() +
                                    "' (its attributes: " + (names.empty() ? "none" : names) +
                                    ")");
      }
    }
  OperationState state(loc_, *info);
  for (int32_t id : operands)
    state.addOperands(value(id));
  if (attributes)
    state.addAttributes(attributes.getValue());
  // Errors of the op's own inference and verifier become the message.
  DiagnosticCollector messages(&ctx_, "; ");
  // The op's properties from the attributes, as its inference reads them.
  DictionaryAttr dict = attributes ? attributes : DictionaryAttr::get(&ctx_);
  SmallVector<uint64_t> storage(info->getOpPropertyByteSize() / 8 + 1);
  OpaqueProperties props(storage.data());
  info->initOpProperties(props, OpaqueProperties(nullptr));
  SmallVector<Type> results;
  LogicalResult inferred = success();
  if (info->getOpPropertyByteSize() > 0)
    inferred = info->setOpPropertiesFromAttribute(*info, props, dict,
                                                  [&] { return emitError(loc_); });
  if (succeeded(inferred))
    inferred = info->getInterface<InferTypeOpInterface>()->inferReturnTypes(
        &ctx_, loc_, state.operands, dict, props, RegionRange(), results);
  info->destroyOpProperties(props);
  if (failed(inferred))
    throw std::invalid_argument(name + ": " +
                                (messages.str().empty() ? "bad operands" : messages.str()));
  state.addTypes(results);
  Operation *created = builder_.create(state);
  if (failed(verify(created, /*verifyRecursively=*/false))) {
    created->erase();
    throw std::invalid_argument(name + ": " + messages.str());
  }
  int32_t first = add(created);
  std::vector<int32_t> ids;
  for (size_t k = 0; k < results.size(); ++k)
    ids.push_back(first + static_cast<int32_t>(k));
  return ids;
}

} // namespace scaly::trace
