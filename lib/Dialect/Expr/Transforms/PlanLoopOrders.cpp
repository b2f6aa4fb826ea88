//===- PlanLoopOrders.cpp - loop orders that avoid large strides -----------===//
//
// "One loop per result axis, in order" walks memory with a large stride in
// two cases, and this pass marks both; scaly-lower-to-program hands the
// marks to the nests it emits (LoopStrategies.cpp), and the loop passes
// scaly-accumulate-rows and scaly-tile-copies execute them; none of them
// decides anything itself:
//
//  * A reduction over one axis that is not the last, into a large result
//    (`X.sum(axis=0)`): scaly.loop_order = "rows". The first row is copied
//    into the result and every later row combined into it, the innermost
//    loop running over the contiguous trailing axes (NumPy's own order, so
//    its result bit for bit).
//
//  * A large float result computed through a transpose that moves the last
//    axis, with arithmetic only (`X.T + 0`, `2 * X.T - Y`): expr.copy_plan
//    (CopyPlan.cpp), register blocks of its last two axes with the stores
//    and the loop order its size and place call for. The thresholds are
//    options, tuned on the development machine's caches (2 MiB L2, 32 MiB
//    last-level cache); their reasons are in their help (Passes.td).
//
// Whether a value reads a transpose "through arithmetic only" depends on
// which values the lowering has stored when it writes it. The plan follows
// scaly-plan-fusion's marks (a marked value is computed where it is read),
// counting a view with several uses as possibly stored too (another
// consumer, a matrix product say, may have needed it in memory first), so
// that every value the lowering could write in blocks carries a plan. The
// lowering checks the premise again when it writes the value and hands the
// plan to the nest writing it only where it still holds (else the plain
// nest, as for an unmarked value: a transpose a matrix product stored is
// then read contiguously).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

namespace scaly::expr {
#define GEN_PASS_DEF_PLANLOOPORDERS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Edge of a plain register block (4 x 4): the smallest result axes that
/// get blocks.
constexpr int64_t kBlockEdge = 4;

/// What the lowering's test of a value (readsTransposed, LoopStrategies.cpp:
/// computed by arithmetic only from values in memory, constants and views)
/// may find when it writes it: whether the test can hold without reading a
/// transpose that moves the last axis, and whether it can hold reading one.
struct Reads {
  bool plain = false, transposed = false;
  static Reads stored() { return {true, false}; }
  Reads operator|(Reads o) const { return {plain || o.plain, transposed || o.transposed}; }
};

/// The analysis behind a copy plan, remembering each operand's answer.
class TransposedReads {
public:
  explicit TransposedReads(int64_t limit) : limit(limit) {}

  /// What the test may find for the result of `op` computed where it is
  /// written.
  Reads computed(Operation *op) {
    if (auto t = dyn_cast<TransposeOp>(op)) {
      Reads in = operand(t.getOperand());
      return movesLastAxis(t) ? Reads{false, in.plain || in.transposed} : in;
    }
    if (isa<ConstantOp>(op))
      return Reads::stored();
    if (isa<BroadcastOp, SliceOp>(op))
      return operand(op->getOperand(0));
    if (!isCopyArithmetic(op))
      return {};
    // All operands must pass the test; one of them reading a transpose is
    // enough (each is counted on its own: more than the lowering can see,
    // never less).
    Reads all{true, false};
    bool canPass = true;
    for (Value x : op->getOperands()) {
      Reads r = operand(x);
      all.plain &= r.plain;
      all.transposed |= r.transposed;
      canPass &= r.plain || r.transposed;
    }
    all.transposed &= canPass;
    return all;
  }

private:
  /// How a value is held when a consumer's elements are computed.
  enum class Held { stored, lazy, either };

  Held heldOf(Value v) {
    Operation *def = v.getDefiningOp();
    // Arguments, small values (scalars) and constants (read alike whether
    // lazy or in a table) pass the test as they are.
    if (!def || numElements(v.getType()) <= limit || isa<ConstantOp>(def))
      return Held::stored;
    bool oneUse = v.hasOneUse();
    // A reshape shares its operand's storage, or is computed where it is
    // read when its operand is.
    if (auto r = dyn_cast<ReshapeOp>(def)) {
      Held in = heldOf(r.getOperand());
      return in == Held::stored ? in : in == Held::lazy && oneUse ? Held::lazy : Held::either;
    }
    if (!isComputedWhereRead(def))
      return Held::stored;
    // A marked value read once is read by this consumer only; a view read
    // several times may have been stored for another reader first.
    return oneUse ? Held::lazy : Held::either;
  }

  Reads operand(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    Held held = heldOf(v);
    Reads r = held == Held::stored ? Reads::stored() : computed(v.getDefiningOp());
    if (held == Held::either)
      r = r | Reads::stored();
    memo[v] = r;
    return r;
  }

  int64_t limit;
  DenseMap<Value, Reads> memo;
};

struct PlanLoopOrdersPass : public scaly::expr::impl::PlanLoopOrdersBase<PlanLoopOrdersPass> {
  using PlanLoopOrdersBase::PlanLoopOrdersBase;

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    TransposedReads reads(scalarizeLimit);
    WalkResult walk = getOperation()->walk([&](Operation *op) {
      if (!isa<ExprDialect>(op->getDialect()))
        return WalkResult::advance();
      op->removeAttr(kLoopOrderAttr);
      op->removeAttr(kCopyPlanAttr);
      if (auto reduce = dyn_cast<ReduceOp>(op); reduce && accumulatesRows(reduce, scalarizeLimit))
        op->setAttr(kLoopOrderAttr, StringAttr::get(ctx, "rows"));
      if (!mayBeBlocked(op) || !mayBeWritten(op) || !reads.computed(op).transposed)
        return WalkResult::advance();
      PlaceAttr place = placeOf(op->getResult(0));
      if (!place) {
        op->emitError() << getArgument()
                        << ": a transposed copy needs scaly-plan-placement's expr.place first "
                           "(where its result goes decides its stores)";
        return WalkResult::interrupt();
      }
      op->setAttr(kCopyPlanAttr, copyPlanAttr(ctx, planFor(op->getResult(0), place)));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult checkOptions() {
    Operation *op = getOperation();
    if (failed(checkScalarizeLimit(op, getArgument(), scalarizeLimit)))
      return failure();
    // The options as numbers (an Option streams as something else).
    int64_t stream = streamBytes, cached = cachedBytes, tile = tileColumns;
    if (stream < 0 || cached < 0)
      return op->emitError() << getArgument()
                             << ": stream-bytes and cached-bytes must be at least 0, got " << stream
                             << " and " << cached;
    if (tile <= 0 || tile % kBlockEdge != 0)
      return op->emitError() << getArgument() << ": tile-columns must be a positive multiple of "
                             << kBlockEdge << " (the columns of a block), got " << tile;
    return success();
  }

  /// Whether the result of `op` is large, float and of at least 4 x 4 in its
  /// last two axes: register blocks may write it.
  bool mayBeBlocked(Operation *op) {
    if (op->getNumResults() != 1 || numElements(op->getResult(0).getType()) <= scalarizeLimit)
      return false;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
      return false;
    ArrayRef<int64_t> shape = type.getShape();
    return shape[shape.size() - 2] >= kBlockEdge && shape.back() >= kBlockEdge;
  }

  /// Whether the lowering may write the result of `op` to memory: not when
  /// it is computed where it is read by its one reader, an elementwise op or
  /// a view, which computes its elements in its own loop (a reshape or a
  /// matrix product, say, may write it whole).
  static bool mayBeWritten(Operation *op) {
    Value r = op->getResult(0);
    if (!isComputedWhereRead(op) || !r.hasOneUse())
      return true;
    Operation *reader = *r.getUsers().begin();
    return !isElementwise(reader) && !isa<BroadcastOp, TransposeOp, SliceOp>(reader);
  }

  /// The blocks, stores and loop order for `result`, planned into `place`.
  CopyPlan planFor(Value result, PlaceAttr place) {
    auto type = cast<RankedTensorType>(result.getType());
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    int64_t bytes = numElements(type) * elemBytes;
    // Smaller results, and values that are not outputs, are likely read
    // from the caches by their consumer: plain stores, rows outermost.
    if (place.getKind() != PlaceKind::output || bytes < streamBytes)
      return {CopyNest{kBlockEdge, kBlockEdge, CopyStores::plain, CopyOrder::rows, 0}, std::nullopt};
    // Streamed element by element: a row's stores come in order, so its
    // lines fill in the write-combining buffers whatever their alignment.
    CopyNest elementStreams{kBlockEdge, kBlockEdge, CopyStores::elements, CopyOrder::tiles,
                            tileColumns};
    if (type.getShape().back() * elemBytes % kCacheLineBytes != 0)
      return {elementStreams, std::nullopt};
    // Rows of whole lines: each block row one line, when the output is
    // 64-byte aligned. Doubles that fit in the last-level cache go rows
    // outermost in 8 x 8 blocks (the strided side is the reads, from a
    // source still in cache); larger ones, and floats, columns outermost
    // (the inner loop reads the source rows' lines in order).
    int64_t line = kCacheLineBytes / elemBytes;
    bool cached = elemBytes == 8 && bytes <= cachedBytes;
    CopyNest lines{cached ? line : kBlockEdge, line, CopyStores::lines,
                   cached ? CopyOrder::rows : CopyOrder::columns, 0};
    return {lines, elementStreams};
  }
};

} // namespace
