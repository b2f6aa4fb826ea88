//===- Graph.h - the traced expression graph --------------------*- C++ -*-===//
//
// Tracing a Python function calls into this graph once per operator, and
// each call builds the expression dialect's op directly (as Triton's builder
// does): the op list, its attributes and result types are the dialect's
// own, declared once in ODS. The graph adds NumPy's semantics on top
// (broadcasting, dtype promotion, weak Python numbers) and owns the error
// messages for bad shapes and dtypes. Ops are interned by content, so an
// identical subexpression is one op. A Function's expr.func is made by
// cloning the ops its results need (BuildModule.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TRACE_GRAPH_H
#define SCALY_TRACE_GRAPH_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TinyPtrVector.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaly::trace {

enum class DType : uint8_t { F64, F32, I32, I64, Bool };
/// Parse "float64", "float32", "int32", "int64", "bool"; throws on others.
DType parseDType(const std::string &name);
const char *dtypeName(DType d);
bool isFloat(DType d);
/// The element type of `d` and back.
mlir::Type elementType(mlir::MLIRContext &ctx, DType d);
DType dtypeOf(mlir::Type element);

using Shape = std::vector<int64_t>;
/// The tensor type of a value of `shape` and `d`.
mlir::RankedTensorType tensorType(mlir::MLIRContext &ctx, const Shape &shape, DType d);
int64_t numElements(const Shape &shape);
std::string shapeString(const Shape &shape);

/// Arithmetic of Graph::binary.
enum class BinaryKind : uint8_t { Add, Sub, Mul, Div };

struct Function;
struct Port;

// Math functions, comparisons and reductions are named by the expression
// dialect's ODS enums (MathFn, Math2Fn, CmpPredicate, ReduceKind). The names
// are never listed here.

class Graph {
public:
  /// A graph building ops in `ctx` (which must outlive it and be used by one
  /// thread at a time: the Python bindings hold the context lock).
  explicit Graph(mlir::MLIRContext &ctx);
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  /// The number of values traced (inputs and op results).
  size_t size() const { return values_.size(); }
  mlir::MLIRContext &context() const { return ctx_; }
  /// The value of `id` (std::out_of_range when it is not in this graph).
  mlir::Value value(int32_t id) const;
  Shape shape(int32_t id) const;
  DType dtype(int32_t id) const;
  /// The traced ops in order (operands before users); its arguments are the
  /// inputs, argument k at input position inputPosition(k).
  mlir::Block &body() const { return *body_; }
  int32_t inputPosition(unsigned argument) const { return inputPositions_.at(argument); }
  /// The Function an application op (call, map, scan, jvp, vjp) applies: its
  /// callee symbol is a placeholder naming it, replaced when a module is built.
  const Function &callee(mlir::Operation *application) const;
  /// Whether `op` applies a Function (call, map, scan, jvp, vjp).
  static bool isApplication(mlir::Operation *op);
  /// The traced ops the values `results` depend on, directly or not (what a
  /// module and the digest take; dead intermediate ops are left out).
  llvm::DenseSet<mlir::Operation *> liveOps(const std::vector<int32_t> &results) const;

  /// The source position given to the ops created from now on.
  void setLocation(llvm::StringRef file, int32_t line);

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
  int32_t binary(BinaryKind kind, int32_t a, int32_t b);
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
  /// A zero array of `shape` with element positions[k] (row-major) set to
  /// element k of `a`, flattened; positions distinct, one per element of `a`.
  int32_t scatter(int32_t a, std::vector<int64_t> positions, Shape shape);
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
  /// a[k] for an int k (negative from the end): the slice of row k along the
  /// leading axis and its reshape, as x[k, ...] traces; -1 (nothing made)
  /// when `a` is a scalar or k is out of range. One call for unrolled loops,
  /// and recorded lazily (see "Lazy values" below).
  int32_t index(int32_t a, int64_t k);
  int32_t transpose(int32_t a, std::vector<int64_t> perm);
  /// Batched matrix product of operands of rank >= 2 (batch axes broadcast).
  int32_t matmul(int32_t a, int32_t b);
  /// Any op of the expression dialect by name (`expr.<op>`), with its
  /// attributes; its result types are inferred by the op
  /// (InferTypeOpInterface) and it is verified. One id per result. No NumPy
  /// semantics: operands must already have the shapes and dtypes it needs.
  std::vector<int32_t> op(const std::string &name, const std::vector<int32_t> &operands,
                          mlir::DictionaryAttr attributes);
  /// Applies `fn` and returns one value per output (recorded lazily, see
  /// "Lazy values" below).
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
  /// `exactZeros`: zero tangents stay zero through products with infinite or
  /// NaN factors (the op's `exact_zeros`; compressed Jacobian sweeps).
  std::vector<int32_t> jvp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                           std::vector<bool> wrt, bool exactZeros = false);
  /// Reverse derivative of `fn`: args are fn's inputs, then one cotangent per
  /// output flagged in `of`; one result (a cotangent) per input in `wrt`.
  std::vector<int32_t> vjp(std::shared_ptr<const Function> fn, std::vector<int32_t> args,
                           std::vector<bool> wrt, std::vector<bool> of,
                           bool exactZeros = false);
  /// The inputs created so far, by position (-1 where none).
  std::vector<int32_t> inputs() const;

private:
  // Lazy values (LazyValues.cpp). An int index (x[k]) and a call are recorded
  // instead of built while nothing else is traced, and their ids have no
  // value yet. Anything else (another op, or a value asked of an id) first
  // builds the pending records in order, exactly as they would have been
  // built at once; except that when the final state of a chain of at least
  // kMinRolledChain calls is asked for, and the records are the chain
  // `for k in range(n): x = step(x, u[k])` (each call taking the previous
  // one's state and otherwise the same values or rows of one array, evenly
  // spaced or not), the chain becomes one expr.scan, as scaly-roll-call-chains would
  // make it, without its n calls ever being built. A record of such a chain
  // asked for later is built then: a call's other results as rows of the
  // scan's stacked outputs; an intermediate state by building the chain's
  // calls, which then replace the scan (as eager tracing, which would not
  // have rolled it).
  //
  // A record is small (64 bytes): on a virtual machine every new page of
  // memory costs a 10-15 us fault, and an unrolled loop records two per step.
  struct LazyRecord {
    explicit LazyRecord(mlir::Location loc) : loc(loc) {}
    mlir::Location loc;
    mlir::Type type;                ///< an index's result type (a call's: fn's outputs)
    const Function *fn = nullptr;   ///< a call: fn(args) (kept alive by lazyCallees_)
    int64_t row = 0;                ///< an index: row `row` of `base`; a rolled
    int32_t base = -1;              ///< chain's call: its step (row) in scan `base`
    int32_t id = -1;                ///< its first result's id
    uint32_t argsBegin = 0;         ///< a call's args: lazyArgs_[argsBegin ..
    uint32_t chainLast = 0;         ///< a rolled chain's call: its last call's record
    uint16_t argsCount = 0;         ///< argsBegin + argsCount)
    bool isCall = false;
    bool built = false;
    bool rolled = false;            ///< a call of a chain that became a scan
    unsigned results() const;
  };
  /// Only index() and call() add records: building them adds none.
  std::deque<LazyRecord> records_;
  std::vector<int32_t> lazyArgs_;
  llvm::DenseMap<const Function *, std::shared_ptr<const Function>> lazyCallees_;
  llvm::ArrayRef<int32_t> argsOf(const LazyRecord &r) const {
    return llvm::ArrayRef<int32_t>(lazyArgs_).slice(r.argsBegin, r.argsCount);
  }
  mlir::Type resultType(const LazyRecord &r, unsigned result) const;
  /// Values of rolled chains that their built calls replaced, and by what:
  /// an op made with one (asked for before the chain was unrolled) takes
  /// the replacement instead.
  llvm::DenseMap<mlir::Value, mlir::Value> unrolled_;
  void replaceUnrolled(mlir::Operation *op);
  /// Builds the calls of rolled chain record `k` before its scan, and lets
  /// them replace the scan's values.
  void unrollChain(size_t k);
  /// While a chain's calls are built before its scan, ops are not merged with
  /// identical ones (which may come after the scan, too late for the calls).
  bool unrolling_ = false;
  /// records_[pendingBegin_ ..] are pending: recorded since the last op built.
  size_t pendingBegin_ = 0;
  /// The record of each id recorded lazily (kNotLazy for the others, and
  /// ids past its end).
  std::vector<uint32_t> lazy_;
  static constexpr uint32_t kNotLazy = UINT32_MAX;
  /// The record of `id`, or kNotLazy.
  uint32_t recordOf(int32_t id) const {
    return static_cast<size_t>(id) < lazy_.size() ? lazy_[id] : kNotLazy;
  }

  /// New ids, without values, for `record`'s results.
  int32_t recordLazily(LazyRecord record);
  /// Whether `id` is a pending record's result.
  bool isPending(int32_t id) const;
  /// Gives lazily recorded `id` its value.
  void materialize(int32_t id);
  /// Builds the pending records, or rolls them when `asked` is the final
  /// state of a chain they form (or a record after it).
  void flushPending(int32_t asked);
  bool rollPending(size_t begin, size_t end, int32_t asked);
  /// Builds record `k` as the eager methods would have.
  void build(size_t k);
  /// Builds call record `k` and the calls of its chain it needs, in order.
  void buildChainUpTo(size_t k);
  /// The type index() last took a row of, and the row's type.
  mlir::Type lastIndexed_, lastRow_;
  /// Rows first, first + step, ... (count of them) of `a` along its leading
  /// axis, as one slice.
  int32_t rows(int32_t a, int64_t first, int64_t step, int64_t count);
  /// a[k] built at once (k in range, not negative).
  int32_t indexNow(int32_t a, int64_t k);
  /// Rows `at` of `a` (along its first axis), stacked in that order: one gather.
  int32_t gatherRows(int32_t a, const std::vector<int64_t> &at);
  /// The call op of `fn` on `operands` (not yet recorded as the graph's).
  mlir::Operation *createCall(const std::shared_ptr<const Function> &fn,
                              mlir::ValueRange operands);
  /// The type of `id`, built or not.
  mlir::Type typeOf(int32_t id) const;

  mlir::MLIRContext &ctx_;
  /// Owns the traced ops (a block outside any region: never verified as a
  /// whole, only cloned from).
  std::unique_ptr<mlir::Block> body_;
  mlir::OpBuilder builder_;
  mlir::Location loc_;
  /// What loc_ was made from: a loop's ops repeat one line, and the
  /// location is then not rebuilt (uniqued) at every op.
  std::string locFile_;
  int32_t locLine_ = -1;
  std::vector<mlir::Value> values_;
  /// Id of each value (the first result's id of an op is its id).
  llvm::DenseMap<mlir::Value, int32_t> ids_;
  std::vector<int32_t> inputPositions_;
  std::vector<std::shared_ptr<const Function>> callees_;
  llvm::DenseMap<const Function *, unsigned> calleeIds_;
  llvm::DenseMap<uint64_t, llvm::TinyPtrVector<mlir::Operation *>> interned_;

  /// Record `op`'s results, or, when an identical op exists (and `intern`),
  /// erase it and return the existing one's; the id of the first result.
  int32_t add(mlir::Operation *op, bool intern = true);
  std::vector<int32_t> resultIds(mlir::Operation *op);
  /// Record an application op (never merged): one id per result.
  std::vector<int32_t> applied(mlir::Operation *op);
  mlir::RankedTensorType tensorType(const Shape &shape, DType dtype) const;
  /// The placeholder callee symbol of `fn` in this graph.
  mlir::FlatSymbolRefAttr calleeSymbol(std::shared_ptr<const Function> fn);
  bool isConstant(int32_t id) const;
  /// Constant `id` converted to `to` when exact, else -1.
  int32_t convertExactly(int32_t id, DType to);
  /// Make `a` and `b` the same shape and dtype (NumPy broadcasting and
  /// promotion).
  std::pair<int32_t, int32_t> unify(int32_t a, int32_t b, const char *what);
  /// `a` converted to `to`: exactly for a constant, else by a cast.
  int32_t promoteTo(int32_t a, DType to);
};

/// An index table of a sparse output, in 32 bits as the patterns
/// (expr::SparsityPattern). Shared, not copied, with the NumPy array it came
/// from when that array is one Scaly made (megabytes at n = 10^5).
using IndexTable = std::shared_ptr<const std::vector<int32_t>>;

/// The pattern of a sparse output and the order its stored values are in:
/// layout "csc" (tables colind, row: CasADi's encoding), "csr" (rowptr,
/// col), "coo" (row, col; row-major order) or "batched" (a leading axis of
/// `batch` matrices sharing one csc pattern; nrow x ncol is one matrix).
struct SparseLayout {
  std::string layout = "csc";
  int64_t nrow = 0, ncol = 0, batch = 0;
  /// (name, values) of each index table, in the order the header lists them.
  /// Held here, not as attributes of the shared context, which would keep
  /// them until the process ends (megabytes per Function at n = 10^5); a
  /// module carries them only when it is rendered with them (an export).
  std::vector<std::pair<std::string, IndexTable>> tables;
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

  /// The tensor types of the inputs (or outputs), made on first use: a
  /// Function called in every step of an unrolled loop checks its operands
  /// by comparing types. Its ports' shapes and dtypes do not change.
  const std::vector<mlir::Type> &portTypes(mlir::MLIRContext &ctx, bool outputs) const;

private:
  mutable std::vector<mlir::Type> inputTypes_, outputTypes_;
};

} // namespace scaly::trace

#endif
