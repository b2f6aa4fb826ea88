//===- LoopStrategies.cpp - loop orders for strided reductions and copies -===//
//
// Loop orders other than "one loop per result axis, in order" where that
// order would walk memory with a large stride. lowerReduce and materialize
// ask first and fall back to the plain lowering when a strategy declines.
//
//  * Row accumulation (`X.sum(axis=0)`, where scaly-plan-loop-orders marked
//    the reduction scaly.loop_order = "rows"): the result is initialized
//    with the first row (slice 0 of the reduced axis) and every later row is
//    combined into it, the innermost loop running over the contiguous
//    trailing axes, so it reads and writes consecutive elements and
//    vectorizes. This is NumPy's own order for such reductions (its iterator
//    puts the contiguous axis inside and adds one row at a time), so the
//    result is NumPy's bit for bit; it is sequential, not pairwise, over the
//    reduced axis, as NumPy's is. A strided pairwise sum per column (the
//    plain lowering) took 3-9x NumPy's time.
//
//  * Register blocks (a result computed through a transpose that moves the
//    last axis, with arithmetic only: `X.T + 0`, `2 * X.T - Y`, where
//    scaly-plan-loop-orders put an expr.copy_plan on its op): the last two
//    result axes are walked in blocks as the plan says. Each block computes
//    its elements into named variables (consecutive elements of each source
//    row, all read before any store) and stores each of its rows as one store
//    of consecutive values (a vector store). The columns and rows left over
//    are plain loops. The plans, and why (measured at 2000 x 2000 and other
//    sizes against NumPy's time; docs/design.md has the numbers):
//
//    - plain 4 x 4 blocks, rows outermost (results that are not outputs, or
//      below 1 MiB): the plain nest, one strided scalar read per element,
//      took 2.6x NumPy's time, the blocks 1.8x. 32 x 32 tiles of scalar
//      loads and stores, or tiles of blocks, measured no faster.
//    - streamed lines (outputs of at least 1 MiB whose rows are whole cache
//      lines), under a run-time test that the output is 64-byte aligned:
//      each block row one line written with nontemporal stores, which never
//      fetch the line from memory first (a plain store that misses does):
//      doubles up to 16 MiB in 8 x 8 blocks, rows outermost (the strided
//      side is then the reads, from a source still in cache; columns
//      outermost, stores walking down rows of a multiple of 2 KiB took
//      3.4-5x NumPy's time); larger results and floats in blocks of 4 rows by
//      one line, columns outermost (0.96x NumPy's time at 2000 x 2000).
//    - element-aligned streams (the test's other branch, and outputs of at
//      least 1 MiB whose rows are not whole lines): 4 x 4 blocks in tiles of
//      256 columns, the rows outer within a tile, each block row one
//      element-aligned streaming store. A row's stores come in order, so its
//      lines fill in the write-combining buffers whatever their alignment:
//      500 x 4000 transposed 2.45x -> 1.35x NumPy's time.
//
//    The plan pass decides; this file executes (writeBlocks), after checking
//    the plan's premise again: the pass planned on scaly-plan-fusion's marks,
//    but a view another consumer needed in memory first (a transpose a matrix
//    product read) is stored by now, and read from there contiguously. Where
//    the value no longer reads a transpose through arithmetic only, or has no
//    plan, it gets the plain nest, whose inner loop vector lanes widen.
//
//===----------------------------------------------------------------------===//

#include "ProcLowering.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace scaly::lowering {

namespace {
/// Rows combined into the result per pass over it: fewer loads and stores of
/// the result, the same order of operations.
constexpr int64_t kRowGroup = 4;
} // namespace

/// Whether scaly-plan-loop-orders marked `op` with `order`.
static bool hasLoopOrder(Operation *op, StringRef order) {
  auto mark = op ? op->getAttrOfType<StringAttr>(ex::kLoopOrderAttr) : StringAttr();
  return mark && mark.getValue() == order;
}

bool ProcLowering::accumulateRows(ex::ReduceOp o) {
  // The mark, and the strategy's conditions (a mark put by hand may be wrong).
  if (!hasLoopOrder(o, "rows") || !ex::accumulatesRows(o, limit))
    return false;
  Value in = o.getOperand();
  SmallVector<int64_t> shape = shapeOf(in);
  int64_t axis = o.getAxes()[0];
  // The contiguous run each row adds: the axes after the reduced one.
  SmallVector<int64_t> outer(shape.begin(), shape.begin() + axis);
  SmallVector<int64_t> inner(shape.begin() + axis + 1, shape.end());
  int64_t run = 1;
  for (int64_t n : inner)
    run *= n;
  Location loc = o.getLoc();
  SmallVector<int64_t> outShape = shapeOf(o);
  Value mem = resultMemory(o, loc);
  // Values computed from one linear index (in memory, elementwise over
  // memory) take one inner loop over the whole run; others one loop per
  // trailing axis.
  bool flat = isFlat(in);
  int64_t rows = shape[axis];
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Ix> outerIx = openLoops(outer, loc);
  Ix outerLin = linear(outerIx, outer, loc);
  // The inner loops over one run; returns the result position and the
  // element of each of `rs` there.
  auto rowLoops = [&](ArrayRef<Ix> rs) -> std::pair<Ix, SmallVector<Value>> {
    SmallVector<Value> xs;
    if (flat) {
      Ix k = openLoops({run}, loc, axis + 1)[0];
      for (Ix r : rs) {
        Ix rowStart = mulAdd(mulAdd(outerLin, rows, r, loc), run, Ix{{}, 0}, loc);
        xs.push_back(elementFlat(in, mulAdd(rowStart, 1, k, loc), loc));
      }
      return {mulAdd(outerLin, run, k, loc), xs};
    }
    SmallVector<Ix> innerIx = openLoops(inner, loc, axis + 1);
    SmallVector<Ix> out(outerIx.begin(), outerIx.end());
    llvm::append_range(out, innerIx);
    for (Ix r : rs) {
      SmallVector<Ix> at(outerIx.begin(), outerIx.end());
      at.push_back(r);
      llvm::append_range(at, innerIx);
      xs.push_back(elementAt(in, at, loc));
    }
    return {linear(out, outShape, loc), xs};
  };
  {
    // The first row initializes the result.
    OpBuilder::InsertionGuard g(b);
    auto [pos, xs] = rowLoops({Ix{{}, 0}});
    storeAt(xs[0], mem, pos, loc);
  }
  // Later rows are combined into it kRowGroup at a time, in order (one load
  // and store of the result per group), then the rows left over one by one.
  auto combineRows = [&](int64_t from, int64_t to, int64_t group) {
    OpBuilder::InsertionGuard g(b);
    auto loop = pg::createCountedLoop(b, loc, from, to, group, "r");
    b.setInsertionPoint(loop.getBody()->getTerminator());
    SmallVector<Ix> rs;
    for (int64_t t = 0; t < group; ++t)
      rs.push_back(mulAdd(Ix{loop.getInductionVar()}, 1, Ix{{}, t}, loc));
    auto [pos, xs] = rowLoops(rs);
    Value acc = loadAt(mem, pos, loc);
    for (Value x : xs)
      acc = lowering::combine2(b, o.getKind(), acc, x, loc);
    storeAt(acc, mem, pos, loc);
  };
  int64_t grouped = 1 + (rows - 1) / kRowGroup * kRowGroup;
  if (grouped > 1)
    combineRows(1, grouped, kRowGroup);
  if (grouped < rows)
    combineRows(grouped, rows, 1);
  values[o] = Stored{{}, mem};
  return true;
}

bool ProcLowering::sumInBlocks(ex::ReduceOp o) {
  Value in = o.getOperand();
  if (!ex::sumsInBlocks(o) || !values[in].lazy || !isFlat(in))
    return false;
  Location loc = o.getLoc();
  Type elem = elementOf(o.getType());
  int64_t count = ex::numElements(in.getType());
  int64_t blocks = count / ex::kSumBlock, rest = count % ex::kSumBlock;
  Value window = newWindow(RankedTensorType::get({ex::kSumBlock}, elem), loc);
  // Block `first` / kSumBlock of the operand, `n` elements, into the window;
  // its sum.
  auto blockSum = [&](Ix first, int64_t n) -> Value {
    {
      OpBuilder::InsertionGuard guard(b);
      auto fill = pg::createCountedLoop(b, loc, 0, n, 1, "i");
      b.setInsertionPoint(fill.getBody()->getTerminator());
      Ix i{fill.getInductionVar()};
      storeAt(elementFlat(in, mulAdd(first, 1, i, loc), loc), window, i, loc);
    }
    return b.create<pg::ReduceOp>(loc, elem, reduceName(o.getKind()), asReadonly(window, loc),
                                  n, 1);
  };
  // The total starts at zero and adds each block's sum, as the helper does.
  Value total = lowering::constant(b, elem, b.getZeroAttr(elem), loc);
  if (blocks > 0) {
    auto loop = pg::createCountedLoop(b, loc, 0, blocks, 1, "block", ValueRange{total});
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Ix first = mulAdd(Ix{loop.getInductionVar()}, ex::kSumBlock, Ix{{}, 0}, loc);
      Value next = lowering::combine2(b, ex::ReduceKind::sum, loop.getRegionIterArgs()[0],
                                      blockSum(first, ex::kSumBlock), loc);
      pg::yieldOf(loop)->setOperands(ValueRange{next});
    }
    total = loop.getResult(0);
  }
  if (rest > 0)
    total = lowering::combine2(b, ex::ReduceKind::sum, total,
                               blockSum(Ix{{}, blocks * ex::kSumBlock}, rest), loc);
  if (inRegisters(o)) {
    values[o] = Stored{{total}, {}};
    return true;
  }
  Value mem = resultMemory(o, loc);
  storeAt(total, mem, Ix{{}, 0}, loc);
  values[o] = Stored{{}, mem};
  return true;
}

bool ProcLowering::readsTransposed(Value v, bool &found) {
  const Stored &s = values[v];
  if (!s.lazy)
    return true;
  Operation *op = v.getDefiningOp();
  if (auto t = dyn_cast<ex::TransposeOp>(op)) {
    found |= ex::movesLastAxis(t);
    return readsTransposed(t.getOperand(), found);
  }
  if (isa<ex::ConstantOp>(op))
    return true;
  if (isa<ex::BroadcastOp, ex::SliceOp>(op))
    return readsTransposed(op->getOperand(0), found);
  // Arithmetic only, as the plan pass assumed (a libm call per element is
  // better left to the plain nest, whose inner loop vector lanes widen).
  if (!ex::isCopyArithmetic(op))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value x) { return readsTransposed(x, found); });
}

bool ProcLowering::materializeBlocked(Value v, Value dst, Location loc) {
  std::optional<ex::CopyPlan> plan = ex::copyPlanOf(v);
  if (!plan)
    return false;
  // The plan's premise, which depends on what has been stored by now.
  bool found = false;
  if (!readsTransposed(v, found) || !found)
    return false;
  OpBuilder::InsertionGuard guard(b);
  if (!plan->unaligned) {
    writeBlocks(v, dst, plan->nest, loc);
    return true;
  }
  // Whole lines need each block row's line 64-byte aligned: every row is
  // when the result is (the plan's rows are whole lines), which only the
  // caller knows.
  Value aligned = b.create<pg::IsAlignedOp>(loc, b.getI1Type(), dst,
                                            b.getI64IntegerAttr(ex::kCacheLineBytes));
  auto branch = b.create<scf::IfOp>(loc, aligned, /*withElseRegion=*/true);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  writeBlocks(v, dst, plan->nest, loc);
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  writeBlocks(v, dst, *plan->unaligned, loc);
  return true;
}

void ProcLowering::writeBlocks(Value v, Value dst, const ex::CopyNest &nest, Location loc) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<int64_t> shape = shapeOf(v);
  size_t rank = shape.size();
  SmallVector<Ix> lead = openLoops(ArrayRef<int64_t>(shape).drop_back(2), loc);
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  int64_t blockRows = nest.blockRows, blockCols = nest.blockCols;
  int64_t fullRows = rows / blockRows * blockRows, fullCols = cols / blockCols * blockCols;
  auto at = [&](Ix i, Ix j) {
    SmallVector<Ix> idx(lead.begin(), lead.end());
    idx.push_back(i);
    idx.push_back(j);
    return idx;
  };
  auto loop = [&](int64_t from, int64_t to, int64_t step, StringRef name) {
    auto f = pg::createCountedLoop(b, loc, from, to, step, name);
    b.setInsertionPoint(f.getBody()->getTerminator());
    return Ix{f.getInductionVar()};
  };
  // One block at rows bi.., columns bj..: its elements, then each row's
  // consecutive values in one store.
  auto block = [&](Ix bi, Ix bj) {
    SmallVector<Ix> is, js;
    for (int64_t t = 0; t < blockRows; ++t)
      is.push_back(mulAdd(bi, 1, Ix{{}, t}, loc));
    for (int64_t t = 0; t < blockCols; ++t)
      js.push_back(mulAdd(bj, 1, Ix{{}, t}, loc));
    SmallVector<SmallVector<Value>> elems(blockRows);
    // Computed column by column: each reads consecutive elements of one
    // source row when the transpose swaps the last two axes.
    // Each element is named ("scaly.name", as the C printer's names): it is
    // computed into a variable before the stores, so C compilers see the
    // reads of a source row together (vector loads and shuffles), not
    // spread across stores that may alias them.
    for (int64_t c = 0; c < blockCols; ++c)
      for (int64_t r = 0; r < blockRows; ++r) {
        Value x = elementAt(v, at(is[r], js[c]), loc);
        if (Operation *def = x.getDefiningOp(); def && def->getBlock() == b.getInsertionBlock() &&
                                                def->getNumResults() == 1 && !isa<arith::ConstantOp>(def))
          def->setAttr("scaly.name", b.getStringAttr("b" + std::to_string(r) + std::to_string(c)));
        elems[r].push_back(x);
      }
    for (int64_t r = 0; r < blockRows; ++r) {
      Ix lin = linear(at(is[r], bj), shape, loc);
      auto store = b.create<pg::StoreOp>(loc, ValueRange(elems[r]),
                                         advanced(dst, ixValue(lin, loc), loc),
                                         b.getI64IntegerAttr(0));
      store.setStreaming(nest.stores != ex::CopyStores::plain);
      store.setElementAligned(nest.stores == ex::CopyStores::elements);
    }
  };
  {
    // Full blocks of blockRows rows.
    OpBuilder::InsertionGuard g(b);
    if (nest.order == ex::CopyOrder::columns) {
      // The columns are the outer loop: the inner loop then reads the
      // source rows' lines in order (what the prefetcher follows), while
      // each store writes a whole line wherever it lands.
      Ix bj = loop(0, fullCols, blockCols, "j");
      block(loop(0, fullRows, blockRows, "i"), bj);
    } else if (nest.order == ex::CopyOrder::tiles) {
      // Tiles of nest.tile columns, each row of a tile written in order
      // (its lines fill in the write-combining buffers): a tile's source
      // rows stay in the first-level cache from one block row to the next.
      int64_t tiled = fullCols / nest.tile * nest.tile;
      if (tiled > 0) {
        OpBuilder::InsertionGuard t(b);
        Ix tile = loop(0, tiled, nest.tile, "t");
        Ix bi = loop(0, fullRows, blockRows, "i");
        block(bi, mulAdd(tile, 1, loop(0, nest.tile, blockCols, "j"), loc));
      }
      if (tiled < fullCols) {
        Ix bi = loop(0, fullRows, blockRows, "i");
        block(bi, loop(tiled, fullCols, blockCols, "j"));
      }
    } else { // rows outermost
      Ix bi = loop(0, fullRows, blockRows, "i");
      block(bi, loop(0, fullCols, blockCols, "j"));
    }
  }
  auto plain = [&](int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    OpBuilder::InsertionGuard g(b);
    Ix i = loop(r0, r1, 1, "i");
    Ix j = loop(c0, c1, 1, "j");
    SmallVector<Ix> idx = at(i, j);
    storeAt(elementAt(v, idx, loc), dst, linear(idx, shape, loc), loc);
  };
  if (fullCols < cols) // the columns left over, beside the blocks
    plain(0, fullRows, fullCols, cols);
  if (fullRows < rows) // the rows left over, full width
    plain(fullRows, rows, 0, cols);
}

} // namespace scaly::lowering
