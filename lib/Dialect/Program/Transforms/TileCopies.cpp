//===- TileCopies.cpp - register blocks and tiles of transposed copies ----===//
//
// A value computed through a transpose that moves the last axis reads its
// source with a stride along each result row. scaly-plan-loop-orders plans
// how such a copy is written (expr.copy_plan); the lowering hands the plan
// to the nest that writes the value (scaly.copy_plan on its scf.parallel)
// when the value still reads the transpose through arithmetic only. This
// pass transforms the nest as the plan says: its last two dimensions tiled
// into register blocks (each element computed into a named value, then
// each block row one store), the block loops ordered (rows, columns, or
// tiles of columns), the rows and columns left over as plain loops; with
// streamed lines, the whole under a run-time test that the array is 64-byte
// aligned, the plan's `unaligned` nest in the other branch. It runs before
// scaly-parallel-to-loops, which generates the loops of the leading
// dimensions and of every other nest.
//
// The plans, and why (measured at 2000 x 2000 and other sizes against
// NumPy's time; docs/design.md has the numbers):
//
// - plain 4 x 4 blocks, rows outermost (results that are not outputs, or
//   below 1 MiB): the plain nest, one strided scalar read per element,
//   took 2.6x NumPy's time, the blocks 1.8x. 32 x 32 tiles of scalar
//   loads and stores, or tiles of blocks, measured no faster.
// - streamed lines (outputs of at least 1 MiB whose rows are whole cache
//   lines), under a run-time test that the output is 64-byte aligned:
//   each block row one line written with nontemporal stores, which never
//   fetch the line from memory first (a plain store that misses does):
//   doubles up to 16 MiB in 8 x 8 blocks, rows outermost (the strided
//   side is then the reads, from a source still in cache; columns
//   outermost, stores walking down rows of a multiple of 2 KiB took
//   3.4-5x NumPy's time); larger results and floats in blocks of 4 rows by
//   one line, columns outermost (0.96x NumPy's time at 2000 x 2000).
// - element-aligned streams (the test's other branch, and outputs of at
//   least 1 MiB whose rows are not whole lines): 4 x 4 blocks in tiles of
//   256 columns, the rows outer within a tile, each block row one
//   element-aligned streaming store. A row's stores come in order, so its
//   lines fill in the write-combining buffers whatever their alignment:
//   500 x 4000 transposed 2.45x -> 1.35x NumPy's time.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Program/CountedLoop.h"
#include "scaly/Dialect/Program/IndexArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace scaly::prog {
#define GEN_PASS_DEF_TILECOPIES
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;
namespace ex = scaly::expr;

namespace {

/// What the pass needs of a nest that writes one array: its dimensions,
/// the i64 counters its body computes from, the element it stores and
/// where.
struct CopyNestBody {
  scf::ParallelOp nest;
  SmallVector<NestDim> dims;
  /// Each dimension's counter cast to i64, which the body reads.
  SmallVector<Value> counters;
  /// The ops computing the stored element, in order.
  SmallVector<Operation *> elementOps;
  Value element;
  /// The array the element is stored into, at the row-major position.
  Value dst;

  /// Whether `op` is one of the counters' casts.
  bool isCounter(Operation *op) const {
    return op->getNumResults() == 1 && llvm::is_contained(counters, op->getResult(0));
  }
};

/// Whether `v` is the row-major position of the counters `counters[0..k]`
/// in `dims`, as the lowering builds it: ((c0 * n1 + c1) * n2 + c2) ...
bool isRowMajor(Value v, ArrayRef<Value> counters, ArrayRef<NestDim> dims, size_t k) {
  if (k == 0)
    return v == counters[0];
  auto add = v.getDefiningOp<arith::AddIOp>();
  if (!add || add.getRhs() != counters[k])
    return false;
  auto mul = add.getLhs().getDefiningOp<arith::MulIOp>();
  std::optional<int64_t> size = mul ? getConstantIntValue(mul.getRhs()) : std::nullopt;
  return size && *size == dims[k].upper && isRowMajor(mul.getLhs(), counters, dims, k - 1);
}

FailureOr<CopyNestBody> readCopyNest(scf::ParallelOp nest) {
  CopyNestBody body{nest, {}, {}, {}, {}, {}};
  FailureOr<SmallVector<NestDim>> dims = nestDims(nest);
  if (failed(dims))
    return failure();
  body.dims = std::move(*dims);
  if (nest.getNumReductions() > 0 || body.dims.size() < 2 ||
      llvm::any_of(body.dims, [](const NestDim &d) { return d.lower != 0 || d.step != 1; }))
    return nest.emitOpError("has a copy plan but is not a nest of two or more dimensions from 0 "
                            "by 1 without reduced values");
  auto refuse = [&](const Twine &why) {
    return nest.emitOpError("has a copy plan, but ") << why;
  };
  for (Value iv : nest.getInductionVars()) {
    Value cast = counterCast(iv);
    if (!cast)
      return refuse("a counter is read other than through one cast to i64");
    body.counters.push_back(cast);
  }
  Block *block = nest.getBody();
  auto [store, at] = finalStore(block);
  if (!store || store.getValues().size() != 1 || store.getOffset() != 0 || !at ||
      !at.getIndex() || at.getScale() != 1 || at.getBias() != 0 ||
      !isRowMajor(at.getIndex(), body.counters, body.dims, body.dims.size() - 1) ||
      nest->isAncestor(at.getBase().getParentBlock()->getParentOp()))
    return refuse("its body does not end with the store of one element at the nest's "
                  "row-major position in an array defined outside it");
  body.dst = at.getBase();
  body.element = store.getValues()[0];
  // Blocks write the array in another order than the nest: the element may
  // not read it.
  FailureOr<SmallVector<Operation *>> ops =
      elementOps(block, body.element, body.counters, store, body.dst, refuse);
  if (failed(ops))
    return failure();
  body.elementOps = std::move(*ops);
  return body;
}

/// Builds the blocked nests of one copy.
class BlockWriter {
public:
  BlockWriter(OpBuilder &b, CopyNestBody &body) : b(b), body(body) {}

  /// The copy as `nest` says, at the builder's position.
  void write(const ex::CopyNest &nest);

private:
  OpBuilder &b;
  CopyNestBody &body;
  Location loc() { return body.nest.getLoc(); }
  size_t rank() const { return body.dims.size(); }
  int64_t size(size_t d) const { return body.dims[d].upper; }

  Ix loop(int64_t from, int64_t to, int64_t step, StringRef name) {
    auto f = createCountedLoop(b, loc(), from, to, step, name);
    b.setInsertionPoint(f.getBody()->getTerminator());
    return Ix{f.getInductionVar()};
  }

  /// The counters of the leading dimensions with row i and column j.
  SmallVector<Ix> at(ArrayRef<Ix> lead, Ix i, Ix j) const {
    SmallVector<Ix> idx(lead.begin(), lead.end());
    idx.push_back(i);
    idx.push_back(j);
    return idx;
  }

  IRMapping countersAt(ArrayRef<Ix> idx) {
    IRMapping map;
    for (auto [counter, ix] : llvm::zip(body.counters, idx))
      map.map(counter, ixValue(b, ix, loc()));
    return map;
  }

  /// The element at `idx`, its ops cloned from the body; loads of memory
  /// at a fixed place are made once per block (`shared`), as the lowering
  /// reads such an element once per loop body.
  Value element(ArrayRef<Ix> idx, IRMapping &shared) {
    IRMapping map = countersAt(idx);
    for (Operation *op : body.elementOps)
      cloneElementOp(b, op, map, shared, body.nest);
    return map.lookupOrDefault(body.element);
  }

  /// One block at rows bi.., columns bj..: its elements, each a named
  /// value, then each row's consecutive values in one store.
  void block(ArrayRef<Ix> lead, Ix bi, Ix bj, const ex::CopyNest &nest);

  /// Rows [r0, r1) by columns [c0, c1) as the body computes them.
  void plain(ArrayRef<Ix> lead, int64_t r0, int64_t r1, int64_t c0, int64_t c1);
};

void BlockWriter::block(ArrayRef<Ix> lead, Ix bi, Ix bj, const ex::CopyNest &nest) {
  SmallVector<Ix> is, js;
  for (int64_t t = 0; t < nest.blockRows; ++t)
    is.push_back(mulAdd(b, bi, 1, Ix{{}, t}, loc()));
  for (int64_t t = 0; t < nest.blockCols; ++t)
    js.push_back(mulAdd(b, bj, 1, Ix{{}, t}, loc()));
  SmallVector<SmallVector<Value>> elems(nest.blockRows);
  IRMapping shared;
  // Computed column by column: each reads consecutive elements of one
  // source row when the transpose swaps the last two axes. Each element is
  // named ("scaly.name", as the C printer's names): it is computed into a
  // variable before the stores, so C compilers see the reads of a source
  // row together (vector loads and shuffles), not spread across stores that
  // may alias them.
  for (int64_t c = 0; c < nest.blockCols; ++c)
    for (int64_t r = 0; r < nest.blockRows; ++r) {
      Value x = element(at(lead, is[r], js[c]), shared);
      if (Operation *def = x.getDefiningOp(); def && def->getBlock() == b.getInsertionBlock() &&
                                              def->getNumResults() == 1 &&
                                              !isa<arith::ConstantOp>(def))
        def->setAttr(kLoopNameAttr, b.getStringAttr("b" + std::to_string(r) + std::to_string(c)));
      elems[r].push_back(x);
    }
  SmallVector<int64_t> shape;
  for (const NestDim &d : body.dims)
    shape.push_back(d.upper);
  for (int64_t r = 0; r < nest.blockRows; ++r) {
    Ix lin = linear(b, at(lead, is[r], bj), shape, loc());
    Value ptr = b.create<OffsetOp>(loc(), body.dst.getType(), body.dst,
                                   ixValue(b, lin, loc()), b.getI64IntegerAttr(1),
                                   b.getI64IntegerAttr(0));
    auto store = b.create<StoreOp>(loc(), ValueRange(elems[r]), ptr, b.getI64IntegerAttr(0));
    store.setStreaming(nest.stores != ex::CopyStores::plain);
    store.setElementAligned(nest.stores == ex::CopyStores::elements);
  }
}

void BlockWriter::plain(ArrayRef<Ix> lead, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  OpBuilder::InsertionGuard g(b);
  Ix i = loop(r0, r1, 1, "i");
  Ix j = loop(c0, c1, 1, "j");
  IRMapping map = countersAt(at(lead, i, j));
  for (Operation &op : body.nest.getBody()->without_terminator())
    if (!body.isCounter(&op))
      b.clone(op, map);
}

void BlockWriter::write(const ex::CopyNest &nest) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Ix> lead;
  for (size_t d = 0; d + 2 < rank(); ++d)
    lead.push_back(loop(0, size(d), 1, body.dims[d].name));
  int64_t rows = size(rank() - 2), cols = size(rank() - 1);
  int64_t fullRows = rows / nest.blockRows * nest.blockRows;
  int64_t fullCols = cols / nest.blockCols * nest.blockCols;
  {
    // Full blocks.
    OpBuilder::InsertionGuard g(b);
    if (nest.order == ex::CopyOrder::columns) {
      // The columns are the outer loop: the inner loop then reads the
      // source rows' lines in order (what the prefetcher follows), while
      // each store writes a whole line wherever it lands.
      Ix bj = loop(0, fullCols, nest.blockCols, "j");
      Ix bi = loop(0, fullRows, nest.blockRows, "i");
      block(lead, bi, bj, nest);
    } else if (nest.order == ex::CopyOrder::tiles) {
      // Tiles of nest.tile columns, each row of a tile written in order
      // (its lines fill in the write-combining buffers): a tile's source
      // rows stay in the first-level cache from one block row to the next.
      int64_t tiled = fullCols / nest.tile * nest.tile;
      if (tiled > 0) {
        OpBuilder::InsertionGuard t(b);
        Ix tile = loop(0, tiled, nest.tile, "t");
        Ix bi = loop(0, fullRows, nest.blockRows, "i");
        Ix j = loop(0, nest.tile, nest.blockCols, "j");
        block(lead, bi, mulAdd(b, tile, 1, j, loc()), nest);
      }
      if (tiled < fullCols) {
        Ix bi = loop(0, fullRows, nest.blockRows, "i");
        block(lead, bi, loop(tiled, fullCols, nest.blockCols, "j"), nest);
      }
    } else { // rows outermost
      Ix bi = loop(0, fullRows, nest.blockRows, "i");
      block(lead, bi, loop(0, fullCols, nest.blockCols, "j"), nest);
    }
  }
  if (fullCols < cols) // the columns left over, beside the blocks
    plain(lead, 0, fullRows, fullCols, cols);
  if (fullRows < rows) // the rows left over, full width
    plain(lead, fullRows, rows, 0, cols);
}

LogicalResult tileCopy(scf::ParallelOp nest, Attribute planAttr) {
  FailureOr<CopyNestBody> body = readCopyNest(nest);
  if (failed(body))
    return failure();
  SmallVector<int64_t> shape;
  for (const NestDim &d : body->dims)
    shape.push_back(d.upper);
  std::string why;
  std::optional<ex::CopyPlan> plan =
      ex::readCopyPlan(planAttr, RankedTensorType::get(shape, body->element.getType()), why);
  if (!plan)
    return nest.emitOpError("has ") << kCopyPlanNestAttr << " " << planAttr << ": " << why;
  OpBuilder b(nest);
  BlockWriter writer(b, *body);
  if (!plan->unaligned) {
    writer.write(plan->nest);
  } else {
    // Whole lines need each block row's line 64-byte aligned: every row is
    // when the array is (the plan's rows are whole lines), which only the
    // caller knows.
    Value aligned = b.create<IsAlignedOp>(nest.getLoc(), b.getI1Type(), body->dst,
                                          b.getI64IntegerAttr(ex::kCacheLineBytes));
    auto branch = b.create<scf::IfOp>(nest.getLoc(), aligned, /*withElseRegion=*/true);
    b.setInsertionPoint(branch.thenBlock()->getTerminator());
    writer.write(plan->nest);
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    writer.write(*plan->unaligned);
  }
  eraseNest(nest);
  return success();
}

struct TileCopiesPass : scaly::prog::impl::TileCopiesBase<TileCopiesPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ParallelOp, Attribute>> copies;
    getOperation()->walk([&](scf::ParallelOp nest) {
      if (Attribute plan = nest->getAttr(kCopyPlanNestAttr))
        copies.push_back({nest, plan});
    });
    for (auto [nest, plan] : copies)
      if (failed(tileCopy(nest, plan)))
        return signalPassFailure();
  }
};

} // namespace
