//===- Graph.cpp - the traced expression graph ---------------------------===//

#include "scaly/Trace/Graph.h"
#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Expr/ShapeRules.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>
#include <functional>

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

// Shapes print and count as the dialect's shape rules do (one definition).
int64_t numElements(const Shape &shape) { return expr::shape::count(shape); }
std::string shapeString(const Shape &shape) { return expr::shape::str(shape); }

/// The value of the dialect enum `E` named `name`; an unknown name lists the
/// known ones (the ODS definitions are the one list).
template <typename E>
static int32_t enumCode(const std::string &name, unsigned maxValue, const char *what) {
  if (std::optional<E> e = expr::symbolizeEnum<E>(name))
    return static_cast<int32_t>(*e);
  std::string known;
  for (unsigned i = 0; i <= maxValue; ++i)
    known += (i ? ", " : "") + expr::stringifyEnum(static_cast<E>(i)).str();
  throw std::invalid_argument(std::string("unknown ") + what + " '" + name + "': expected one of " +
                              known);
}

static void mix(uint64_t &h, uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

static uint64_t hashNode(const Node &n) {
  uint64_t h = static_cast<uint64_t>(n.kind) * 31 + static_cast<uint64_t>(n.dtype);
  for (int64_t d : n.shape) mix(h, d);
  for (int32_t o : n.operands) mix(h, o);
  mix(h, n.sub);
  for (int64_t i : n.ints) mix(h, i);
  for (double v : n.values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    mix(h, bits);
  }
  mix(h, reinterpret_cast<uintptr_t>(n.callee.get()));
  return h;
}

static bool sameNode(const Node &a, const Node &b) {
  if (a.kind != b.kind || a.dtype != b.dtype || a.shape != b.shape || a.operands != b.operands ||
      a.sub != b.sub || a.ints != b.ints || a.callee != b.callee ||
      a.values.size() != b.values.size())
    return false;
  // Compare constants bitwise so that 0.0 and -0.0 (and NaNs) stay distinct.
  return a.values.empty() ||
         std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(double)) == 0;
}

int32_t Graph::add(Node n) {
  // Inputs, calls and maps are never merged: each is its own application.
  bool intern = n.kind != OpKind::Input && !isApplication(n.kind);
  uint64_t h = intern ? hashNode(n) : 0;
  if (intern) {
    auto range = interned_.equal_range(h);
    for (auto it = range.first; it != range.second; ++it)
      if (sameNode(nodes_[it->second], n))
        return it->second;
  }
  if (nodes_.size() >= static_cast<size_t>(INT32_MAX))
    throw std::length_error("expression graph exceeds 2^31 nodes");
  int32_t id = static_cast<int32_t>(nodes_.size());
  n.file = file_;
  n.line = line_;
  nodes_.push_back(std::move(n));
  if (intern)
    interned_.emplace(h, id);
  return id;
}

void Graph::setLocation(const std::string &file, int32_t line) {
  if (file.empty()) {
    file_ = -1;
    line_ = 0;
    return;
  }
  auto [it, inserted] = fileIds_.emplace(file, static_cast<int32_t>(files_.size()));
  if (inserted)
    files_.push_back(file);
  file_ = it->second;
  line_ = line;
}

const Node &Graph::checked(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= nodes_.size())
    throw std::out_of_range("expression node " + std::to_string(id) + " is not in this graph");
  const Node &n = nodes_[id];
  if (isApplication(n.kind))
    throw std::invalid_argument("a call with several outputs is not a value: pick an output");
  return n;
}

int32_t Graph::input(int32_t position, Shape shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0)
      throw std::invalid_argument("shape " + shapeString(shape) + " has a negative dimension");
  Node n{OpKind::Input, dtype, std::move(shape)};
  n.sub = position;
  return add(std::move(n));
}

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
  Node n{OpKind::Constant, dtype, std::move(shape)};
  n.values = std::move(values);
  return add(std::move(n));
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
  Node n{OpKind::Constant, dtype, std::move(shape)};
  n.ints = std::move(values);
  return add(std::move(n));
}

/// The constant `n` converted to `to`, when every value converts exactly
/// (float32 only needs to be in range: 0.1 stays "0.1" at float32
/// precision); -1 otherwise.
int32_t Graph::convertExactly(const Node &n, DType to) {
  if (isFloat(n.dtype)) {
    if (to == DType::F64)
      return constant(n.values, n.shape, to);
    if (to == DType::F32) {
      for (double v : n.values)
        if (std::isfinite(v) && std::fabs(v) > 3.4028234663852886e38)
          return -1;
      return constant(n.values, n.shape, to);
    }
    auto ints = exactInts(n.values, to);
    if (!ints)
      return -1;
    for (int64_t v : *ints)
      if ((to == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) ||
          (to == DType::Bool && v != 0 && v != 1))
        return -1;
    return constantInts(std::move(*ints), n.shape, to);
  }
  // From integers: a float must hold each value exactly.
  double limit = to == DType::F64 ? 9007199254740992.0 : 16777216.0;
  for (int64_t v : n.ints) {
    if (isFloat(to) && std::fabs(static_cast<double>(v)) > limit)
      return -1;
    if ((to == DType::I32 && (v < INT32_MIN || v > INT32_MAX)) ||
        (to == DType::Bool && v != 0 && v != 1))
      return -1;
  }
  return constantInts(n.ints, n.shape, to);
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
  const Node &n = checked(a);
  if (n.dtype == to)
    return a;
  if (n.kind == OpKind::Constant) {
    int32_t c = convertExactly(Node(n), to);
    if (c >= 0)
      return c;
  }
  return cast(a, to);
}

std::pair<int32_t, int32_t> Graph::unify(int32_t a, int32_t b, const char *what) {
  DType da = checked(a).dtype, db = checked(b).dtype;
  if (da != db) {
    // A constant (a Python number or a NumPy constant) is weak: it takes the
    // other operand's dtype when that is of its kind or a higher one and its
    // values convert exactly (0.1 * x stays float32 for a float32 x).
    // Otherwise both meet at NumPy's promoted dtype.
    bool aConst = checked(a).kind == OpKind::Constant;
    bool bConst = checked(b).kind == OpKind::Constant;
    int32_t ca = -1, cb = -1;
    if (aConst && !bConst && kindRank(da) <= kindRank(db))
      ca = convertExactly(Node(checked(a)), db);
    if (bConst && !aConst && kindRank(db) <= kindRank(da))
      cb = convertExactly(Node(checked(b)), da);
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
  Shape sa = checked(a).shape, sb = checked(b).shape;
  if (sa == sb)
    return {a, b};
  std::string error;
  Shape out = rules::broadcast(sa, sb, error);
  if (!error.empty())
    throw std::invalid_argument(std::string(what) + ": " + error);
  return {broadcast(a, out), broadcast(b, out)};
}

int32_t Graph::binary(OpKind kind, int32_t a, int32_t b) {
  static const char *names[] = {"+", "-", "*", "/"};
  const char *what = names[static_cast<int>(kind) - static_cast<int>(OpKind::Add)];
  auto [x, y] = unify(a, b, what);
  const Node &nx = checked(x);
  // On bools NumPy's + is "or" and * is "and" (lowering says so); - has no
  // meaning and / is true division on float64 (done by the front end).
  if (nx.dtype == DType::Bool && (kind == OpKind::Sub || kind == OpKind::Div))
    throw std::invalid_argument(std::string(what) +
                                " is not defined on bool arrays (NumPy refuses it too); use "
                                "sc.where or cast with .astype()");
  Node n{kind, nx.dtype, nx.shape, {x, y}};
  return add(std::move(n));
}

int32_t Graph::neg(int32_t a) {
  const Node &na = checked(a);
  if (!isFloat(na.dtype))
    throw std::invalid_argument("negation needs a float array, got " +
                                std::string(dtypeName(na.dtype)));
  return add(Node{OpKind::Neg, na.dtype, na.shape, {a}});
}

int32_t Graph::math(const std::string &fn, int32_t a) {
  int code = enumCode<expr::MathFn>(fn, expr::getMaxEnumValForMathFn(), "math function");
  const Node &na = checked(a);
  if (!isFloat(na.dtype))
    throw std::invalid_argument(fn + " needs a float array, got " + dtypeName(na.dtype) +
                                "; cast it first");
  Node n{OpKind::Math, na.dtype, na.shape, {a}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::math2(const std::string &fn, int32_t a, int32_t b) {
  int code = enumCode<expr::Math2Fn>(fn, expr::getMaxEnumValForMath2Fn(), "math function");
  auto [x, y] = unify(a, b, fn.c_str());
  const Node &nx = checked(x);
  if (!isFloat(nx.dtype))
    throw std::invalid_argument(fn + " needs float arrays, got " + dtypeName(nx.dtype));
  Node n{OpKind::Math2, nx.dtype, nx.shape, {x, y}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::compare(const std::string &pred, int32_t a, int32_t b) {
  int code = enumCode<expr::CmpPredicate>(pred, expr::getMaxEnumValForCmpPredicate(), "comparison");
  auto [x, y] = unify(a, b, pred.c_str());
  Node n{OpKind::Cmp, DType::Bool, checked(x).shape, {x, y}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::select(int32_t cond, int32_t a, int32_t b) {
  auto [x, y] = unify(a, b, "where");
  if (checked(cond).dtype != DType::Bool)
    throw std::invalid_argument("where: the condition must be bool, got " +
                                std::string(dtypeName(checked(cond).dtype)));
  // The condition and both branches broadcast together, as in NumPy.
  std::string error;
  Shape out = rules::broadcast(checked(cond).shape, checked(x).shape, error);
  if (!error.empty())
    throw std::invalid_argument("where: " + error);
  cond = broadcast(cond, out);
  x = broadcast(x, out);
  y = broadcast(y, out);
  return add(Node{OpKind::Select, checked(x).dtype, out, {cond, x, y}});
}

int32_t Graph::cast(int32_t a, DType to) {
  const Node &na = checked(a);
  if (na.dtype == to)
    return a;
  return add(Node{OpKind::Cast, to, na.shape, {a}});
}

int32_t Graph::broadcast(int32_t a, Shape shape) {
  const Node &na = checked(a);
  if (na.shape == shape)
    return a;
  if (!rules::broadcastsTo(na.shape, shape))
    throw std::invalid_argument("cannot broadcast shape " + shapeString(na.shape) + " to " +
                                shapeString(shape) +
                                ": axes must be equal or 1 (aligned from the right)");
  return add(Node{OpKind::Broadcast, na.dtype, std::move(shape), {a}});
}

int32_t Graph::reshape(int32_t a, Shape shape) {
  const Node &na = checked(a);
  for (int64_t d : shape)
    if (d < 0)
      throw std::invalid_argument("reshape: shape " + shapeString(shape) +
                                  " has a negative dimension");
  if (numElements(shape) != numElements(na.shape))
    throw std::invalid_argument("cannot reshape " + shapeString(na.shape) + " (" +
                                std::to_string(numElements(na.shape)) + " elements) to " +
                                shapeString(shape) + " (" + std::to_string(numElements(shape)) +
                                " elements)");
  if (na.shape == shape)
    return a;
  return add(Node{OpKind::Reshape, na.dtype, std::move(shape), {a}});
}

int32_t Graph::gather(int32_t a, std::vector<int64_t> indices, Shape shape) {
  const Node &na = checked(a);
  int64_t n = numElements(na.shape);
  if (static_cast<int64_t>(indices.size()) != numElements(shape))
    throw std::invalid_argument("gather: " + std::to_string(indices.size()) +
                                " indices for shape " + shapeString(shape));
  for (int64_t i : indices)
    if (i < 0 || i >= n)
      throw std::out_of_range("index " + std::to_string(i) + " is out of range for " +
                              std::to_string(n) + " elements");
  Node node{OpKind::Gather, na.dtype, std::move(shape), {a}};
  node.ints = std::move(indices);
  return add(std::move(node));
}

int32_t Graph::concat(const std::vector<int32_t> &parts, Shape shape) {
  if (parts.empty())
    throw std::invalid_argument("concat: needs at least one array");
  DType d = checked(parts[0]).dtype;
  int64_t total = 0;
  for (int32_t p : parts) {
    const Node &np = checked(p);
    if (np.dtype != d)
      throw std::invalid_argument(std::string("concat: dtypes ") + dtypeName(d) + " and " +
                                  dtypeName(np.dtype) + " differ");
    total += numElements(np.shape);
  }
  if (total != numElements(shape))
    throw std::invalid_argument("concat: parts hold " + std::to_string(total) +
                                " elements, shape " + shapeString(shape) + " needs " +
                                std::to_string(numElements(shape)));
  if (parts.size() == 1 && checked(parts[0]).shape == shape)
    return parts[0];
  return add(Node{OpKind::Concat, d, std::move(shape), parts});
}

int32_t Graph::sum(int32_t a) {
  Shape s = checked(a).shape;
  std::vector<int64_t> all;
  for (size_t d = 0; d < s.size(); ++d)
    all.push_back(static_cast<int64_t>(d));
  return reduce("sum", a, std::move(all));
}

int32_t Graph::reduce(const std::string &kindName, int32_t a, std::vector<int64_t> axes) {
  auto kind = static_cast<expr::ReduceKind>(
      enumCode<expr::ReduceKind>(kindName, expr::getMaxEnumValForReduceKind(), "reduction"));
  DType d = checked(a).dtype;
  // NumPy's accumulator types: sums and products of bools and int32 are int64.
  bool widen = (kind == expr::ReduceKind::sum || kind == expr::ReduceKind::prod) &&
               (d == DType::Bool || d == DType::I32);
  // max/min of bools are "any"/"all": computed on int32, cast back.
  bool boolExtreme = !widen && d == DType::Bool;
  if (widen)
    a = cast(a, DType::I64);
  else if (boolExtreme)
    a = cast(a, DType::I32);
  const Node &na = checked(a);
  std::string error;
  Shape out = rules::reduce(na.shape, axes, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  if (kind != expr::ReduceKind::sum && kind != expr::ReduceKind::prod)
    for (int64_t ax : axes)
      if (na.shape[ax] == 0)
        throw std::invalid_argument(std::string(kindName) +
                                    ": zero-size axis has no identity (NumPy refuses it too)");
  if (axes.empty())
    return boolExtreme ? cast(a, DType::Bool) : a;
  Node n{OpKind::Reduce, na.dtype, std::move(out), {a}};
  n.sub = static_cast<int32_t>(kind);
  n.ints = std::move(axes);
  int32_t r = add(std::move(n));
  return boolExtreme ? cast(r, DType::Bool) : r;
}

int32_t Graph::slice(int32_t a, std::vector<int64_t> starts, std::vector<int64_t> steps,
                     Shape sizes) {
  const Node &na = checked(a);
  std::string error;
  rules::slice(na.shape, starts, steps, sizes, error);
  if (!error.empty())
    throw std::out_of_range(error);
  bool identity = sizes == na.shape;
  for (size_t d = 0; identity && d < sizes.size(); ++d)
    identity = starts[d] == 0 && steps[d] == 1;
  if (identity)
    return a;
  // An empty axis reads nothing: normalize so equal slices intern as one.
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] == 0)
      starts[d] = 0, steps[d] = 1;
  Node n{OpKind::Slice, na.dtype, std::move(sizes), {a}};
  n.ints = std::move(starts);
  n.ints.insert(n.ints.end(), steps.begin(), steps.end());
  return add(std::move(n));
}

int32_t Graph::transpose(int32_t a, std::vector<int64_t> perm) {
  const Node &na = checked(a);
  std::string error;
  Shape out = rules::transpose(na.shape, perm, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return a;
  Node n{OpKind::Transpose, na.dtype, std::move(out), {a}};
  n.ints = std::move(perm);
  return add(std::move(n));
}

int32_t Graph::matmul(int32_t a, int32_t b) {
  DType d = promote(checked(a).dtype, checked(b).dtype);
  if (d == DType::Bool)
    throw std::invalid_argument("@: matrix products of bool arrays are not defined; cast first");
  Shape sa = checked(a).shape, sb = checked(b).shape;
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
  return add(Node{OpKind::Matmul, d, std::move(out), {pa, pb}});
}

int32_t Graph::concatAxis(const std::vector<int32_t> &parts, int64_t axis) {
  if (parts.empty())
    throw std::invalid_argument("concat: needs at least one array");
  std::vector<Shape> shapes;
  DType d = checked(parts[0]).dtype;
  for (int32_t p : parts) {
    const Node &np = checked(p);
    if (np.dtype != d)
      throw std::invalid_argument(std::string("concat: dtypes ") + dtypeName(d) + " and " +
                                  dtypeName(np.dtype) + " differ; cast with .astype()");
    shapes.push_back(np.shape);
  }
  std::string error;
  Shape out = rules::concat(shapes, axis, error);
  if (!error.empty())
    throw std::invalid_argument(error);
  if (parts.size() == 1)
    return parts[0];
  Node n{OpKind::Concat, d, std::move(out), parts};
  n.ints = {axis};
  return add(std::move(n));
}

/// Check `args` against `fn`'s inputs; an argument with its `mapped` flag
/// set (or every one, when `leading` >= 0 and `mapped` is empty) needs an
/// extra leading axis of length `leading`.
static void checkArgs(const Function &fn, const std::vector<int32_t> &args, const Graph &g,
                      int64_t leading, const std::vector<bool> &mapped = {}) {
  if (args.size() != fn.inputs.size())
    throw std::invalid_argument(fn.name + "() takes " + std::to_string(fn.inputs.size()) +
                                " inputs, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const Node &n = g.node(args[i]);
    Shape want = fn.inputs[i].shape;
    if (leading >= 0 && (mapped.empty() || mapped[i]))
      want.insert(want.begin(), leading);
    if (n.shape != want)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects shape " +
                                  shapeString(want) + ", got " + shapeString(n.shape));
    if (n.dtype != fn.inputs[i].dtype)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects dtype " +
                                  dtypeName(fn.inputs[i].dtype) + ", got " + dtypeName(n.dtype));
  }
}

std::vector<int32_t> Graph::resultsOf(int32_t app, const std::vector<Port> &ports) {
  std::vector<int32_t> out;
  for (size_t k = 0; k < ports.size(); ++k) {
    Node r{OpKind::Result, ports[k].dtype, ports[k].shape, {app}};
    r.sub = static_cast<int32_t>(k);
    out.push_back(add(std::move(r)));
  }
  return out;
}

std::vector<int32_t> Graph::call(std::shared_ptr<const Function> fn, std::vector<int32_t> args) {
  for (int32_t a : args)
    checked(a);
  checkArgs(*fn, args, *this, -1);
  Node n{OpKind::Call, DType::F64, {}, std::move(args)};
  n.callee = fn;
  return resultsOf(add(std::move(n)), fn->outputs);
}

/// Checks derivative operands: fn's inputs, then one extra value per port
/// flagged in `flags` (of `ports`), which must be float.
static void checkDerivativeArgs(const Function &fn, const std::vector<int32_t> &args,
                                const Graph &g, const std::vector<Port> &ports,
                                const std::vector<bool> &flags, const char *what) {
  if (flags.size() != ports.size())
    throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): " +
                                std::to_string(flags.size()) + " flags for " +
                                std::to_string(ports.size()) + " ports");
  std::vector<int32_t> primal(args.begin(), args.begin() + std::min(args.size(), fn.inputs.size()));
  checkArgs(fn, primal, g, -1);
  size_t k = fn.inputs.size();
  for (size_t i = 0; i < ports.size(); ++i) {
    if (!flags[i])
      continue;
    if (!isFloat(ports[i].dtype))
      throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): '" + ports[i].name +
                                  "' is " + dtypeName(ports[i].dtype) +
                                  "; only float64 and float32 values have derivatives");
    if (k >= args.size())
      throw std::invalid_argument(std::string(what) + " of " + fn.name +
                                  "(): missing the value for '" + ports[i].name + "'");
    const Node &n = g.node(args[k++]);
    if (n.shape != ports[i].shape || n.dtype != ports[i].dtype)
      throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): the value for '" +
                                  ports[i].name + "' must be " + dtypeName(ports[i].dtype) +
                                  shapeString(ports[i].shape) + ", got " + dtypeName(n.dtype) +
                                  shapeString(n.shape));
  }
  if (k != args.size())
    throw std::invalid_argument(std::string(what) + " of " + fn.name + "(): " +
                                std::to_string(args.size()) + " operands, expected " +
                                std::to_string(k));
}

std::vector<int32_t> Graph::jvp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                                std::vector<bool> wrt) {
  for (int32_t a : args)
    checked(a);
  checkDerivativeArgs(*fn, args, *this, fn->inputs, wrt, "jvp");
  Node n{OpKind::Jvp, DType::F64, {}, std::move(args)};
  n.callee = fn;
  n.ints.assign(wrt.begin(), wrt.end());
  return resultsOf(add(std::move(n)), fn->outputs);
}

std::vector<int32_t> Graph::vjp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                                std::vector<bool> wrt, std::vector<bool> of) {
  for (int32_t a : args)
    checked(a);
  if (wrt.size() != fn->inputs.size())
    throw std::invalid_argument("vjp of " + fn->name + "(): " + std::to_string(wrt.size()) +
                                " wrt flags for " + std::to_string(fn->inputs.size()) + " inputs");
  checkDerivativeArgs(*fn, args, *this, fn->outputs, of, "vjp");
  std::vector<size_t> picked;
  for (size_t i = 0; i < wrt.size(); ++i)
    if (wrt[i]) {
      if (!isFloat(fn->inputs[i].dtype))
        throw std::invalid_argument("vjp of " + fn->name + "(): input '" + fn->inputs[i].name +
                                    "' is " + dtypeName(fn->inputs[i].dtype) +
                                    "; only float64 and float32 values have derivatives");
      picked.push_back(i);
    }
  Node n{OpKind::Vjp, DType::F64, {}, std::move(args)};
  n.callee = fn;
  n.ints.assign(wrt.begin(), wrt.end());
  n.ints.insert(n.ints.end(), of.begin(), of.end());
  int32_t app = add(std::move(n));
  std::vector<int32_t> out;
  for (size_t k = 0; k < picked.size(); ++k) {
    const Port &p = fn->inputs[picked[k]];
    Node r{OpKind::Result, p.dtype, p.shape, {app}};
    r.sub = static_cast<int32_t>(k);
    out.push_back(add(std::move(r)));
  }
  return out;
}

std::vector<int32_t> Graph::inputs() const {
  std::vector<int32_t> out;
  for (size_t id = 0; id < nodes_.size(); ++id)
    if (nodes_[id].kind == OpKind::Input) {
      size_t pos = static_cast<size_t>(nodes_[id].sub);
      if (out.size() <= pos)
        out.resize(pos + 1, -1);
      out[pos] = static_cast<int32_t>(id);
    }
  return out;
}

std::vector<int32_t> Graph::map(std::shared_ptr<const Function> fn, int64_t count,
                                std::vector<int32_t> args, std::vector<bool> mapped) {
  if (count < 1)
    throw std::invalid_argument("vmap: count must be at least 1, got " + std::to_string(count));
  for (int32_t a : args)
    checked(a);
  if (!mapped.empty() && mapped.size() != args.size())
    throw std::invalid_argument("vmap: in_axes has " + std::to_string(mapped.size()) +
                                " entries for " + std::to_string(args.size()) + " inputs");
  checkArgs(*fn, args, *this, count, mapped);
  Node n{OpKind::Map, DType::F64, {}, std::move(args)};
  n.callee = fn;
  n.ints = {count};
  // Flags only when some operand is passed whole: older graphs keep their digest.
  if (std::find(mapped.begin(), mapped.end(), false) != mapped.end())
    n.ints.insert(n.ints.end(), mapped.begin(), mapped.end());
  int32_t app = add(std::move(n));
  std::vector<int32_t> out;
  for (size_t k = 0; k < fn->outputs.size(); ++k) {
    Shape s = fn->outputs[k].shape;
    s.insert(s.begin(), count);
    Node r{OpKind::Result, fn->outputs[k].dtype, s, {app}};
    r.sub = static_cast<int32_t>(k);
    out.push_back(add(std::move(r)));
  }
  return out;
}

std::vector<int32_t> Graph::scan(std::shared_ptr<const Function> fn, int64_t count,
                                 std::vector<int32_t> args, std::vector<bool> mapped) {
  if (count < 1)
    throw std::invalid_argument("scan: count must be at least 1, got " + std::to_string(count));
  if (fn->inputs.empty() || fn->outputs.empty() ||
      fn->inputs[0].shape != fn->outputs[0].shape || fn->inputs[0].dtype != fn->outputs[0].dtype)
    throw std::invalid_argument("scan: " + fn->name +
                                "'s first input and first output are the state and must have "
                                "the same shape and dtype");
  for (int32_t a : args)
    checked(a);
  if (mapped.empty())
    mapped.assign(args.size(), true);
  if (mapped.size() != args.size())
    throw std::invalid_argument("scan: in_axes has " + std::to_string(mapped.size()) +
                                " entries for " + std::to_string(args.size()) + " inputs");
  mapped[0] = false; // the state is never sliced
  checkArgs(*fn, args, *this, count, mapped);
  Node n{OpKind::Scan, DType::F64, {}, std::move(args)};
  n.callee = fn;
  n.ints = {count};
  n.ints.insert(n.ints.end(), mapped.begin(), mapped.end());
  int32_t app = add(std::move(n));
  std::vector<int32_t> out;
  for (size_t k = 0; k < fn->outputs.size(); ++k) {
    Shape s = fn->outputs[k].shape;
    if (k > 0)
      s.insert(s.begin(), count);
    Node r{OpKind::Result, fn->outputs[k].dtype, s, {app}};
    r.sub = static_cast<int32_t>(k);
    out.push_back(add(std::move(r)));
  }
  return out;
}

} // namespace scaly::trace
