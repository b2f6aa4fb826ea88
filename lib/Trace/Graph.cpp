//===- Graph.cpp - the traced expression graph ---------------------------===//

#include "scaly/Trace/Graph.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>
#include <functional>

namespace scaly::trace {

const char *const kMathNames[17] = {"sin",  "cos",  "tan", "asin",  "acos", "atan",
                                    "sinh", "cosh", "tanh", "exp",  "log",  "log1p",
                                    "expm1", "sqrt", "abs", "floor", "ceil"};
const char *const kMath2Names[4] = {"pow", "atan2", "fmin", "fmax"};
const char *const kCmpNames[6] = {"lt", "le", "gt", "ge", "eq", "ne"};

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

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string shapeString(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

int lookupName(const char *const *names, int count, const std::string &name, const char *what) {
  for (int i = 0; i < count; ++i)
    if (name == names[i])
      return i;
  std::string known;
  for (int i = 0; i < count; ++i)
    known += (i ? ", " : "") + std::string(names[i]);
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
  bool intern = n.kind != OpKind::Input && n.kind != OpKind::Call && n.kind != OpKind::Map;
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
  nodes_.push_back(std::move(n));
  if (intern)
    interned_.emplace(h, id);
  return id;
}

const Node &Graph::checked(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= nodes_.size())
    throw std::out_of_range("expression node " + std::to_string(id) + " is not in this graph");
  const Node &n = nodes_[id];
  if (n.kind == OpKind::Call || n.kind == OpKind::Map)
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

/// The dtype two constants meet at: float over integer over bool, the wider
/// of two of a kind.
static DType promote(DType a, DType b) {
  auto rank = [](DType d) {
    switch (d) {
    case DType::Bool: return 0;
    case DType::I32: return 1;
    case DType::I64: return 2;
    case DType::F32: return 3;
    case DType::F64: return 4;
    }
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

std::pair<int32_t, int32_t> Graph::unify(int32_t a, int32_t b, const char *what) {
  const Node *na = &checked(a), *nb = &checked(b);
  // A constant adopts the other operand's dtype when its values convert
  // exactly (0.1 * x stays float32 for a float32 x); two constants meet at
  // the promoted dtype; otherwise dtypes must agree.
  if (na->dtype != nb->dtype) {
    // Converting adds nodes (and may move them): read everything first.
    DType da = na->dtype, db = nb->dtype;
    bool aConst = na->kind == OpKind::Constant, bConst = nb->kind == OpKind::Constant;
    DType target = aConst && bConst ? promote(da, db) : (aConst ? db : da);
    int32_t ca = da == target ? a : (aConst ? convertExactly(Node(checked(a)), target) : -1);
    int32_t cb = db == target ? b : (bConst ? convertExactly(Node(checked(b)), target) : -1);
    if (ca < 0 || cb < 0)
      throw std::invalid_argument(std::string(what) + ": operands have dtypes " +
                                  dtypeName(da) + " and " + dtypeName(db) +
                                  "; cast one with .astype()");
    a = ca;
    b = cb;
    na = &checked(a);
    nb = &checked(b);
  }
  if (na->shape == nb->shape)
    return {a, b};
  if (na->shape.empty()) {
    Shape s = nb->shape;
    return {broadcast(a, s), b};
  }
  if (nb->shape.empty()) {
    Shape s = na->shape;
    return {a, broadcast(b, s)};
  }
  throw std::invalid_argument(std::string(what) + ": shapes " + shapeString(na->shape) + " and " +
                              shapeString(nb->shape) +
                              " do not match (only scalars broadcast)");
}

int32_t Graph::binary(OpKind kind, int32_t a, int32_t b) {
  static const char *names[] = {"+", "-", "*", "/"};
  const char *what = names[static_cast<int>(kind) - static_cast<int>(OpKind::Add)];
  auto [x, y] = unify(a, b, what);
  const Node &nx = checked(x);
  if (nx.dtype == DType::Bool)
    throw std::invalid_argument(std::string(what) + " is not defined on bool arrays");
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
  int code = lookupName(kMathNames, 17, fn, "math function");
  const Node &na = checked(a);
  if (!isFloat(na.dtype))
    throw std::invalid_argument(fn + " needs a float array, got " + dtypeName(na.dtype) +
                                "; cast it first");
  Node n{OpKind::Math, na.dtype, na.shape, {a}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::math2(const std::string &fn, int32_t a, int32_t b) {
  int code = lookupName(kMath2Names, 4, fn, "math function");
  auto [x, y] = unify(a, b, fn.c_str());
  const Node &nx = checked(x);
  if (!isFloat(nx.dtype))
    throw std::invalid_argument(fn + " needs float arrays, got " + dtypeName(nx.dtype));
  Node n{OpKind::Math2, nx.dtype, nx.shape, {x, y}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::compare(const std::string &pred, int32_t a, int32_t b) {
  int code = lookupName(kCmpNames, 6, pred, "comparison");
  auto [x, y] = unify(a, b, pred.c_str());
  Node n{OpKind::Cmp, DType::Bool, checked(x).shape, {x, y}};
  n.sub = code;
  return add(std::move(n));
}

int32_t Graph::select(int32_t cond, int32_t a, int32_t b) {
  auto [x, y] = unify(a, b, "where");
  // Scalar branches follow the condition's shape: where(mask, 1.0, 0.0).
  if (checked(x).shape.empty() && !checked(cond).shape.empty()) {
    Shape s = checked(cond).shape;
    x = broadcast(x, s);
    y = broadcast(y, s);
  }
  const Node &nc = checked(cond), &nx = checked(x);
  if (nc.dtype != DType::Bool)
    throw std::invalid_argument("where: the condition must be bool, got " +
                                std::string(dtypeName(nc.dtype)));
  if (nc.shape != nx.shape) {
    if (!nc.shape.empty())
      throw std::invalid_argument("where: condition shape " + shapeString(nc.shape) +
                                  " does not match " + shapeString(nx.shape));
    cond = broadcast(cond, nx.shape);
  }
  return add(Node{OpKind::Select, checked(x).dtype, checked(x).shape, {cond, x, y}});
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
  if (!na.shape.empty())
    throw std::invalid_argument("cannot broadcast shape " + shapeString(na.shape) + " to " +
                                shapeString(shape));
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
  const Node &na = checked(a);
  if (na.dtype == DType::Bool)
    throw std::invalid_argument("sum of a bool array: cast it to a number first");
  return add(Node{OpKind::Sum, na.dtype, {}, {a}});
}

static void checkArgs(const Function &fn, const std::vector<int32_t> &args, const Graph &g,
                      int64_t leading) {
  if (args.size() != fn.inputs.size())
    throw std::invalid_argument(fn.name + "() takes " + std::to_string(fn.inputs.size()) +
                                " inputs, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const Node &n = g.node(args[i]);
    Shape want = fn.inputs[i].shape;
    if (leading >= 0)
      want.insert(want.begin(), leading);
    if (n.shape != want)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects shape " +
                                  shapeString(want) + ", got " + shapeString(n.shape));
    if (n.dtype != fn.inputs[i].dtype)
      throw std::invalid_argument(fn.name + "(): input '" + fn.inputs[i].name + "' expects dtype " +
                                  dtypeName(fn.inputs[i].dtype) + ", got " + dtypeName(n.dtype));
  }
}

std::vector<int32_t> Graph::call(std::shared_ptr<const Function> fn, std::vector<int32_t> args) {
  for (int32_t a : args)
    checked(a);
  checkArgs(*fn, args, *this, -1);
  Node n{OpKind::Call, DType::F64, {}, std::move(args)};
  n.callee = fn;
  int32_t app = add(std::move(n));
  std::vector<int32_t> out;
  for (size_t k = 0; k < fn->outputs.size(); ++k) {
    Node r{OpKind::Result, fn->outputs[k].dtype, fn->outputs[k].shape, {app}};
    r.sub = static_cast<int32_t>(k);
    out.push_back(add(std::move(r)));
  }
  return out;
}

std::vector<int32_t> Graph::map(std::shared_ptr<const Function> fn, int64_t count,
                                std::vector<int32_t> args) {
  if (count < 1)
    throw std::invalid_argument("vmap: count must be at least 1, got " + std::to_string(count));
  for (int32_t a : args)
    checked(a);
  checkArgs(*fn, args, *this, count);
  Node n{OpKind::Map, DType::F64, {}, std::move(args)};
  n.callee = fn;
  n.ints = {count};
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

} // namespace scaly::trace
