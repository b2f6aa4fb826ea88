//===- Graph.h - the traced expression graph --------------------*- C++ -*-===//
//
// Tracing a Python function calls into this graph once per operator. Nodes
// are plain structs in one vector, hash-consed so that an identical
// subexpression is one node; no MLIR is created until a Function is lowered.
// Shape and dtype rules live here, so every front end gets the same errors.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TRACE_GRAPH_H
#define SCALY_TRACE_GRAPH_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace scaly::trace {

enum class DType : uint8_t { F64, F32, I32, I64, Bool };
/// Parse "float64", "float32", "int32", "int64", "bool"; throws on others.
DType parseDType(const std::string &name);
const char *dtypeName(DType d);
bool isFloat(DType d);

using Shape = std::vector<int64_t>;
int64_t numElements(const Shape &shape);
std::string shapeString(const Shape &shape);

enum class OpKind : uint8_t {
  Input, Constant, Add, Sub, Mul, Div, Neg, Math, Math2, Cmp, Select, Cast,
  Broadcast, Reshape, Gather, Concat, Sum, Call, Map, Result,
  // Structured ops (appended: digests of older graphs keep their values).
  Slice, Transpose, Reduce, Matmul, Scan,
  // Derivatives of a callee (expr.jvp / expr.vjp).
  Jvp, Vjp,
};

/// Nodes that apply a callee and whose values are picked by Result nodes.
inline bool isApplication(OpKind k) {
  return k == OpKind::Call || k == OpKind::Map || k == OpKind::Scan || k == OpKind::Jvp ||
         k == OpKind::Vjp;
}


struct Function;
struct Port;

/// One traced value (or, for Call and Map, one application whose values are
/// picked by Result nodes).
struct Node {
  Node(OpKind kind, DType dtype = DType::F64, Shape shape = {}, std::vector<int32_t> operands = {})
      : kind(kind), dtype(dtype), shape(std::move(shape)), operands(std::move(operands)) {}

  OpKind kind;
  DType dtype = DType::F64;
  Shape shape;
  std::vector<int32_t> operands;
  /// Input position, math function, comparison predicate or result index.
  int32_t sub = 0;
  /// Gather indices, the map count, the values of an integer or bool
  /// constant (row-major, exact), slice starts then steps, a transpose's
  /// permutation, reduced axes, or a concat's axis (none: flattened).
  std::vector<int64_t> ints;
  /// The values of a float constant (row-major).
  std::vector<double> values;
  /// The called Function of Call and Map nodes.
  std::shared_ptr<const Function> callee;
  /// Where the Python operation was written: an index into Graph::files()
  /// (-1: unknown) and a line. Not part of a node's identity or digest.
  int32_t file = -1;
  int32_t line = 0;
};

// Math functions, comparisons and reductions are named by the expression
// dialect's ODS enums (MathFn, Math2Fn, CmpPredicate, ReduceKind): a node's
// `sub` holds the enum's value. The names are never listed here.

class Graph {
public:
  const Node &node(int32_t id) const { return nodes_.at(id); }
  size_t size() const { return nodes_.size(); }

  /// The source position given to the nodes created from now on.
  void setLocation(const std::string &file, int32_t line);
  const std::vector<std::string> &files() const { return files_; }

  int32_t input(int32_t position, Shape shape, DType dtype);
  /// A constant; for an integer or bool dtype every value must be an exact
  /// integer in range.
  int32_t constant(std::vector<double> values, Shape shape, DType dtype);
  /// An integer or bool constant from exact int64 values (a float dtype
  /// converts them).
  int32_t constantInts(std::vector<int64_t> values, Shape shape, DType dtype);
  /// Arithmetic with NumPy's broadcasting and dtype promotion; a constant
  /// operand takes the other operand's dtype when its values fit (weak
  /// Python numbers). On bools, + is "or" and * is "and", as in NumPy.
  int32_t binary(OpKind kind, int32_t a, int32_t b);
  int32_t neg(int32_t a);
  int32_t math(const std::string &fn, int32_t a);
  int32_t math2(const std::string &fn, int32_t a, int32_t b);
  int32_t compare(const std::string &pred, int32_t a, int32_t b);
  int32_t select(int32_t cond, int32_t a, int32_t b);
  int32_t cast(int32_t a, DType to);
  /// NumPy broadcast of `a` to `shape`.
  int32_t broadcast(int32_t a, Shape shape);
  int32_t reshape(int32_t a, Shape shape);
  /// Fancy (irregular) indexing only: basic indexing is slice + reshape.
  int32_t gather(int32_t a, std::vector<int64_t> indices, Shape shape);
  /// Flattened concatenation (the result holds the parts one after another).
  int32_t concat(const std::vector<int32_t> &parts, Shape shape);
  /// NumPy's concatenate along `axis` (parts of equal rank).
  int32_t concatAxis(const std::vector<int32_t> &parts, int64_t axis);
  /// Sum of all elements (NumPy's dtype: bool and int32 sum to int64).
  int32_t sum(int32_t a);
  /// A reduction over sorted distinct `axes` (all of them when empty and
  /// `all`); sum and prod of bool/int32 give int64 as in NumPy.
  int32_t reduce(const std::string &kind, int32_t a, std::vector<int64_t> axes);
  int32_t slice(int32_t a, std::vector<int64_t> starts, std::vector<int64_t> steps,
                Shape sizes);
  int32_t transpose(int32_t a, std::vector<int64_t> perm);
  /// Batched matrix product of operands of rank >= 2 (batch axes broadcast).
  int32_t matmul(int32_t a, int32_t b);
  /// Applies `fn` and returns one Result node per output.
  std::vector<int32_t> call(std::shared_ptr<const Function> fn, std::vector<int32_t> args);
  /// `fn` over the leading axis of the operands whose `mapped` flag is set
  /// (empty: all); the others are passed whole to every iteration.
  std::vector<int32_t> map(std::shared_ptr<const Function> fn, int64_t count,
                           std::vector<int32_t> args, std::vector<bool> mapped = {});
  /// A sequential loop: args[0] is the initial state (fn's first input and
  /// output); returns the final state, then the other outputs stacked.
  std::vector<int32_t> scan(std::shared_ptr<const Function> fn, int64_t count,
                            std::vector<int32_t> args, std::vector<bool> mapped = {});

  /// Forward derivative of `fn`: args are fn's inputs, then one tangent per
  /// input flagged in `wrt` (float only); one result (a tangent) per output.
  std::vector<int32_t> jvp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                           std::vector<bool> wrt);
  /// Reverse derivative of `fn`: args are fn's inputs, then one cotangent per
  /// output flagged in `of`; one result (a cotangent) per input in `wrt`.
  std::vector<int32_t> vjp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                           std::vector<bool> wrt, std::vector<bool> of);
  /// The Input nodes created so far, by position (-1 where none).
  std::vector<int32_t> inputs() const;

private:
  std::vector<Node> nodes_;
  std::unordered_multimap<uint64_t, int32_t> interned_;
  std::vector<std::string> files_;
  std::unordered_map<std::string, int32_t> fileIds_;
  int32_t file_ = -1, line_ = 0;

  int32_t add(Node n);
  /// One Result node per port of application `app`.
  std::vector<int32_t> resultsOf(int32_t app, const std::vector<Port> &ports);
  const Node &checked(int32_t id) const;
  /// Constant `n` converted to `to` when exact, else -1.
  int32_t convertExactly(const Node &n, DType to);
  /// Make `a` and `b` the same shape and dtype (NumPy broadcasting and
  /// promotion).
  std::pair<int32_t, int32_t> unify(int32_t a, int32_t b, const char *what);
  /// `a` converted to `to`: exactly for a constant, else by a cast.
  int32_t promoteTo(int32_t a, DType to);
};

/// The pattern of a sparse output and the order its stored values are in:
/// layout "csc" (tables colind, row: CasADi's encoding), "csr" (rowptr,
/// col), "coo" (row, col; row-major order) or "batched" (a leading axis of
/// `batch` matrices sharing one csc pattern; nrow x ncol is one matrix).
struct SparseLayout {
  std::string layout = "csc";
  int64_t nrow = 0, ncol = 0, batch = 0;
  /// (name, values) of each index table, in the order the header lists them.
  std::vector<std::pair<std::string, std::vector<int64_t>>> tables;
  const std::vector<int64_t> *table(const std::string &name) const {
    for (const auto &t : tables)
      if (t.first == name)
        return &t.second;
    return nullptr;
  }
};

/// Declared input or output.
struct Port {
  std::string name;
  Shape shape;
  DType dtype;
  /// Set for a sparse output (shape is then (nnz,)).
  std::shared_ptr<const SparseLayout> sparse = nullptr;
};

/// A traced Scaly Function: its ports, its graph and the nodes it returns.
struct Function {
  std::string name;
  std::vector<Port> inputs, outputs;
  std::shared_ptr<Graph> graph;
  std::vector<int32_t> results;
  /// The returned value carried the .block() hint: calls keep a procedure.
  bool block = false;
};

} // namespace scaly::trace

#endif
