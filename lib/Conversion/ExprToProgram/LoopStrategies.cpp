//===- LoopStrategies.cpp - loop orders for strided reductions ------------===//
//
// The strategy step of the structured lowering that picks a loop order other
// than "one loop per result axis, in order" where that order would walk
// memory with a large stride. lowerReduce asks it first and falls back to
// the plain lowering (a strided helper call per result element) when it
// declines.
//
//  * Row accumulation (a reduction over one axis that is not the last, with a
//    large result: `X.sum(axis=0)`): the result is initialized with the first
//    row (slice 0 of the reduced axis) and every later row is combined into
//    it, the innermost loop running over the contiguous trailing axes, so it
//    reads and writes consecutive elements and vectorizes. This is NumPy's own
//    order for such reductions (its iterator puts the contiguous axis inside
//    and adds one row at a time), so the result is NumPy's bit for bit; it is
//    sequential, not pairwise, over the reduced axis, as NumPy's is. A strided
//    pairwise sum per column (the plain lowering) took 3-9x NumPy's time.
//
// Transposed copies keep the plain nest: tiling it (32 x 32 tiles of scalar
// loads and stores) measured slower here, see docs/design.md.
//
//===----------------------------------------------------------------------===//

#include "ProcLowering.h"
#include "ScalarOps.h"

namespace scaly::lowering {

namespace {
/// Rows combined into the result per pass over it: fewer loads and stores of
/// the result, the same order of operations.
constexpr int64_t kRowGroup = 4;
} // namespace

bool ProcLowering::accumulateRows(ex::ReduceOp o) {
  Value in = o.getOperand();
  SmallVector<int64_t> shape = shapeOf(in);
  ArrayRef<int64_t> axes = o.getAxes();
  if (axes.size() != 1 || !isLarge(in) || !isLarge(o))
    return false;
  int64_t axis = axes[0];
  int64_t rank = static_cast<int64_t>(shape.size());
  if (axis == rank - 1 || shape[axis] < 2)
    return false;
  // The contiguous run each row adds: the axes after the reduced one.
  SmallVector<int64_t> outer(shape.begin(), shape.begin() + axis);
  SmallVector<int64_t> inner(shape.begin() + axis + 1, shape.end());
  int64_t run = 1;
  for (int64_t n : inner)
    run *= n;
  if (run < 2)
    return false;
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
    auto loop = b.create<pg::ForOp>(loc, from, to, group, "r");
    b.setInsertionPoint(loop.getBodyBlock()->getTerminator());
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

} // namespace scaly::lowering
