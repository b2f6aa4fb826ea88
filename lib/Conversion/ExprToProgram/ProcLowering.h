//===- ProcLowering.h - lowering one expr.func to a prog.proc ---*- C++ -*-===//
//
// The state and steps of lowering one function body. Private to
// Conversion/ExprToProgram: ExprToProgram.cpp holds the driver (values,
// calls, loops, the pass), Placement.cpp where values are put (reading
// scaly-plan-placement's expr.place; spills), StructuredLowering.cpp the lowering
// of arrays above the scalarization limit (index arithmetic, fused element
// computation, the iteration spaces of loop nests as scf.parallel, whose
// loops scaly-parallel-to-loops generates; reductions, matrix products).
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_EXPRTOPROGRAM_PROCLOWERING_H
#define SCALY_CONVERSION_EXPRTOPROGRAM_PROCLOWERING_H

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Program/IndexArithmetic.h"
#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <tuple>

namespace scaly::lowering {
using namespace mlir;
namespace ex = scaly::expr;
namespace pg = scaly::prog;

/// Where the elements of a lowered array live: either one scalar per element
/// or `size` consecutive elements behind `ptr`.
struct Stored {
  SmallVector<Value> elems;
  Value ptr;
  /// A large elementwise or view result not computed yet: its elements are
  /// computed where they are used (fused into the consumer's loop) or when
  /// it is materialized.
  bool lazy = false;
  bool inMemory() const { return static_cast<bool>(ptr); }
};

/// A loop index: a constant or an i64 SSA value.
using prog::Ix;

inline RankedTensorType tensorOf(Type t) { return cast<RankedTensorType>(t); }
inline Type elementOf(Type t) { return tensorOf(t).getElementType(); }

/// Lowers one expr.func body into a prog.proc body.
class ProcLowering {
public:
  explicit ProcLowering(OpBuilder &builder) : b(builder) {}

  LogicalResult lower(ex::FuncOp func, pg::ProcOp proc);

private:
  OpBuilder &b;
  /// Arrays with more elements than this lower to loops: the limit
  /// scaly-plan-placement planned the function with (expr.scalarize_limit).
  int64_t limit = 0;
  Value workspace;
  /// The output pointers of the procedure, in order.
  SmallVector<Value> outputs;
  DenseMap<Value, Stored> values;
  /// Pointers into an output or slice at an offset, made once per (base,
  /// offset) where first needed (expr.place of scaly-plan-placement).
  DenseMap<std::pair<Value, int64_t>, Value> placedPointers;
  /// Set when a value needed memory its plan does not give (a hand-written
  /// or stale expr.place): the lowering goes on, then fails.
  bool planBroken = false;
  /// Loads already made, per block: (block, ptr, offset) -> value.
  DenseMap<std::tuple<Block *, Value, int64_t>, Value> loads;
  /// The expression blocks being lowered, outermost first, each with the
  /// scf.for that opened it (null for the function body).
  struct Scope {
    Block *exprBlock;
    Operation *openedBy;
    /// For a loop body: the memory each yield operand is written to (null
    /// for a small carried value, which is stored from its scalars).
    SmallVector<Value> yieldMemory;
  };
  SmallVector<Scope> scopes;

  /// The function carries the limit it was planned with, every op that has
  /// results a plan (expr.place), every loop with carried values the plan
  /// of their next values (expr.next), and no value is planned into the
  /// next value of a carried value built as scalars; else an error naming
  /// the first op that breaks the rule.
  static LogicalResult checkPlanned(ex::FuncOp func);
  /// A value planned into `yield K`, K a carried value of its loop, needs
  /// that value's next value built in a window.
  static LogicalResult checkYieldedIntoWindow(Operation *op);

  /// The block of the function or loop body `v` belongs to: a value of an
  /// expr.fused body is where the expr.fused is (its yield plan and its
  /// spills are that block's).
  static Block *scopeBlockOf(Value v);

  /// The memory `v` is planned to be produced in (an output or a yielded
  /// slice, at its offset), or null when it has no such plan.
  Value destinationOf(Value v);

  /// Element `k` of a lowered value, loading it when it lives in memory.
  Value element(const Stored &s, int64_t k, Location loc);

  SmallVector<Value> elements(Value v, Location loc);

  /// Element `k` (row-major) of any lowered value.
  Value elementStatic(Value v, int64_t k, Location loc);

  /// Write the elements of `v` to `ptr` unless they were produced there.
  void writeTo(Value v, Value ptr, Location loc);

  //===--------------------------------------------------------------------===//
  // Structured lowering: indices, fused element computation, loop nests
  //===--------------------------------------------------------------------===//

  static SmallVector<int64_t> shapeOf(Value v);
  /// Whether `v` has more elements than the limit: how its elements are
  /// read and written (loops or one by one), not where it lives.
  bool isLarge(Value v) { return ex::numElements(v.getType()) > limit; }
  /// Whether the result `r` is scalars, as scaly-plan-placement planned
  /// (#expr.place<registers>); otherwise it is computed by loops, into
  /// memory or where it is read.
  static bool inRegisters(Value r) {
    ex::PlaceAttr place = ex::placeOf(r);
    return place && place.getKind() == ex::PlaceKind::registers;
  }

  static SmallVector<Ix> constIndex(ArrayRef<int64_t> shape, int64_t k);

  Value ixValue(Ix i, Location loc) { return prog::ixValue(b, i, loc); }

  /// a * scale + c, folded when constant. Index arithmetic never overflows
  /// (nsw), so C prints it plainly.
  Ix mulAdd(Ix a, int64_t scale, Ix c, Location loc) { return prog::mulAdd(b, a, scale, c, loc); }

  Ix linear(ArrayRef<Ix> idx, ArrayRef<int64_t> shape, Location loc) {
    return prog::linear(b, idx, shape, loc);
  }

  /// `ptr` advanced by the computed element offset `index`.
  Value advanced(Value ptr, Value index, Location loc);

  /// Element at `idx` of a buffer of row-major elements.
  Value loadAt(Value ptr, Ix lin, Location loc);

  void storeAt(Value x, Value ptr, Ix lin, Location loc);

  /// The op that computes the elements of `v`: for an expr.fused, the op of
  /// its body that yields them (reading a fused value reads its body).
  static Operation *computingOp(Value v);

  /// Element `idx` of `v`, computing a lazy value in place (fusion).
  Value elementAt(Value v, ArrayRef<Ix> idx, Location loc);

  /// Materialize `v` into the row-major buffer `dst` with one loop nest
  /// (one loop when nothing on the way needs per-axis indices).
  void materialize(Value v, Value dst, Location loc);

  /// Open the iteration space of a loop nest over `dims` (counters i, j, k,
  /// ... named from axis `firstAxis` on; none for axes of one element): an
  /// scf.parallel whose loops scaly-parallel-to-loops generates. The builder
  /// is left inside its body.
  SmallVector<Ix> openLoops(ArrayRef<int64_t> dims, Location loc, unsigned firstAxis = 0);

  /// Whether every element of `v` can be computed from one linear index:
  /// elementwise ops, reshapes and scalar broadcasts over values in memory.
  bool isFlat(Value v);

  Value elementFlat(Value v, Ix lin, Location loc);

  /// Element `idx` of a concatenation: picked from its part when the index
  /// is static, else read from the concatenation materialized once.
  Value concatElement(ex::ConcatOp c, ArrayRef<Ix> idx, Location loc);

  /// Parts of a concatenation written one after another into `dst`.
  void materializeConcat(ex::ConcatOp concat, Value dst, Location loc);

  /// A pointer to the elements of `v`, spilling them to the workspace when
  /// they are scalars. The spill goes where `v` is defined: for a value from
  /// outside the loop being lowered, just before the loop that encloses the
  /// use, so it is written once and dominates every later use.
  Value inMemory(Value v, Location loc);

  Value newWindow(Type tensorType, Location loc);

  /// Memory a result that must live in memory is produced in: its planned
  /// output or slice, else a new workspace window (planned `workspace`; any
  /// other plan is reported, and the lowering fails at the end).
  Value resultMemory(Value result, Location loc);


  LogicalResult lowerOps(Block &block);

  /// Apply a scalar builder elementwise.
  template <typename Fn>
  void elementwise(Operation *op, Fn &&scalar) {
    Location loc = op->getLoc();
    SmallVector<SmallVector<Value>> ins;
    for (Value operand : op->getOperands())
      ins.push_back(elements(operand, loc));
    Stored out;
    int64_t n = ex::numElements(op->getResult(0).getType());
    for (int64_t k = 0; k < n; ++k) {
      SmallVector<Value> args;
      for (auto &in : ins)
        args.push_back(in[k]);
      out.elems.push_back(scalar(args, loc));
    }
    values[op->getResult(0)] = std::move(out);
  }

  static bool isElementwise(Operation *op);

  /// Whether a large result is left lazy (computed where it is used): an op
  /// in the body of an expr.fused, or a reshape of a lazy value.
  bool staysLazy(Operation *op);

  LogicalResult lowerOp(Operation *op);

  /// Element `lin` of a large gather: its source position is read from the
  /// gather's index table, then the source (in memory) at that position.
  Value gatherElement(ex::GatherOp g, Ix lin, Location loc);

  /// A scatter: small, its elements (zeros and the placed values); large,
  /// its memory filled with zeros by one loop, then the values written at
  /// their positions (by one loop over a table of them when there are more
  /// than the scalarization limit, else one store each).
  LogicalResult lowerScatter(ex::ScatterOp o);

  Value splatScalar(ex::ConstantOp c, Location loc);

  /// Refusals that hold whatever the size.
  LogicalResult checkScalarOp(Operation *op);

  //===--------------------------------------------------------------------===//
  // Reductions and matrix products
  //===--------------------------------------------------------------------===//

  static StringRef reduceName(ex::ReduceKind kind) { return ex::stringifyReduceKind(kind); }

  LogicalResult lowerReduce(ex::ReduceOp o);

  //===--------------------------------------------------------------------===//
  // Loop strategies (LoopStrategies.cpp): loop orders that avoid large strides
  //===--------------------------------------------------------------------===//

  /// A reduction marked "rows" (scaly-plan-loop-orders), as row
  /// accumulation: a nest over the result's elements, each combining its
  /// column of rows in order in a loop marked scaly.accumulate_rows (NumPy's
  /// order), which scaly-accumulate-rows moves outside the nest. False, and
  /// nothing built, without the mark or when the strategy does not apply.
  bool accumulateRows(ex::ReduceOp o);
  /// A float sum of all the elements of a value computed where it is read
  /// (scaly-plan-fusion's mark), larger than one block: the value written
  /// whole into a window by one nest and summed by the helper, the sum
  /// marked scaly.sum_in_blocks (scaly-sum-in-blocks then computes and sums
  /// one block of ex::kSumBlock elements at a time). False, and nothing
  /// built, when it does not apply.
  bool sumInBlocks(ex::ReduceOp o);

  /// Whether the lazy value `v` is computed by arithmetic only from values
  /// in memory and constants; `found` is set when it reads a transpose that
  /// moves the last axis (strided reads along the result's rows).
  bool readsTransposed(Value v, bool &found);

  /// Hand the expr.copy_plan of the op defining `v` to the nest the
  /// builder is in, which writes `v` (scaly.copy_plan, executed by
  /// scaly-tile-copies), when the plan's premise still holds: `v` reads a
  /// transpose through arithmetic only, given what is stored by now.
  void handCopyPlan(Value v);

  LogicalResult lowerMatmul(ex::MatmulOp o);

  /// A call that kept the block hint becomes a prog.call of the callee's
  /// procedure; its operands are passed by pointer.
  LogicalResult lowerCall(ex::CallOp call);
  /// A solver op (qp_solve, nlp_solve): its operands in memory, then a call
  /// of the module's solver wrapper `name` (declared once with prog.extern),
  /// one pointer per operand then per result (null when empty).
  LogicalResult lowerSolverCall(Operation *solve, StringRef name);

  /// Inputs of a procedure are read-only pointers; a window or output pointer
  /// passed as an input is viewed as const.
  Value asReadonly(Value ptr, Location loc);

  LogicalResult lowerLoop(ex::LoopOp loop);

  /// Copy the row-major buffer of `from` (typed like `like`) into `dst`.
  void materializeCopy(const Stored &from, Value like, Value dst, Location loc);

public:
  static std::string procName(StringRef callee) { return (callee + "_raw").str(); }
};

} // namespace scaly::lowering

#endif
