//===- LoopStrategies.cpp - loop orders for strided reductions and copies -===//
//
// The nests and marks the loop passes start from, where "one loop per result
// axis, in order" would walk memory with a large stride or store a large
// temporary. lowerReduce asks first and falls back to the plain lowering
// when a strategy declines; materialize always emits the plain nest and
// hands it a copy plan when one applies.
//
//  * Row accumulation (`X.sum(axis=0)`, where scaly-plan-loop-orders marked
//    the reduction scaly.loop_order = "rows"): each result element reduces
//    its column of rows in order, sequentially (NumPy's own order for such
//    reductions: its iterator puts the contiguous axis inside and adds one
//    row at a time, so the result is NumPy's bit for bit). The lowering
//    emits it as the nest over the result's elements with the row loop
//    inside, marked scaly.accumulate_rows; scaly-accumulate-rows
//    interchanges the two, so the innermost loops run over the contiguous
//    trailing axes and vectorize. A strided pairwise sum per column (the
//    plain lowering) took 3-9x NumPy's time.
//
//  * Register blocks (a result computed through a transpose that moves the
//    last axis, with arithmetic only: `X.T + 0`, `2 * X.T - Y`, where
//    scaly-plan-loop-orders put an expr.copy_plan on its op): the lowering
//    emits the plain nest writing the value and hands it the plan
//    (handCopyPlan), after checking the plan's premise again: the pass
//    planned on scaly-plan-fusion's marks, but a view another consumer
//    needed in memory first (a transpose a matrix product read) is stored by
//    now, and read from there contiguously. Where the value no longer reads
//    a transpose through arithmetic only, or has no plan, the nest gets none
//    and stays plain (its inner loop vector lanes widen). scaly-tile-copies
//    builds the blocks (TileCopies.cpp says which plans, and why).
//
//  * Sums by block (a float sum of every element of a value computed where
//    it is read, larger than the helper's block): the value written whole
//    into a window by one nest and the helper's sum of it, marked
//    scaly.sum_in_blocks; scaly-sum-in-blocks computes and sums one block
//    at a time in a window of one block (SumInBlocks.cpp).
//
//===----------------------------------------------------------------------===//

#include "ProcLowering.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace scaly::lowering {

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
  // The nest over the result's elements for this index of the outer axes,
  // each reducing its column of rows in order. scaly-accumulate-rows
  // interchanges the row loop with the nest.
  SmallVector<Ix> innerIx = flat ? openLoops({run}, loc, axis + 1) : openLoops(inner, loc, axis + 1);
  auto rowElement = [&](Ix r) -> Value {
    if (flat) {
      Ix rowStart = mulAdd(mulAdd(outerLin, rows, r, loc), run, Ix{{}, 0}, loc);
      return elementFlat(in, mulAdd(rowStart, 1, innerIx[0], loc), loc);
    }
    SmallVector<Ix> at(outerIx.begin(), outerIx.end());
    at.push_back(r);
    llvm::append_range(at, innerIx);
    return elementAt(in, at, loc);
  };
  Value first = rowElement(Ix{{}, 0});
  auto loop = pg::createCountedLoop(b, loc, 1, rows, 1, "r", ValueRange{first});
  loop->setAttr(pg::kAccumulateRowsAttr, b.getUnitAttr());
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value x = rowElement(Ix{loop.getInductionVar()});
    pg::yieldOf(loop)->setOperands(
        lowering::combine2(b, o.getKind(), loop.getRegionIterArgs()[0], x, loc));
  }
  SmallVector<Ix> out(outerIx.begin(), outerIx.end());
  llvm::append_range(out, innerIx);
  Ix pos = flat ? mulAdd(outerLin, run, innerIx[0], loc) : linear(out, outShape, loc);
  storeAt(loop.getResult(0), mem, pos, loc);
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
  // The operand written whole into a window by one nest and summed by the
  // helper; scaly-sum-in-blocks computes and sums it one block at a time.
  Value window = newWindow(RankedTensorType::get({count}, elem), loc);
  materialize(in, window, loc);
  auto sum = b.create<pg::ReduceOp>(loc, elem, reduceName(o.getKind()),
                                    asReadonly(window, loc), count, 1);
  sum->setAttr(pg::kSumInBlocksAttr, b.getUnitAttr());
  if (inRegisters(o)) {
    values[o] = Stored{{sum}, {}};
    return true;
  }
  Value mem = resultMemory(o, loc);
  storeAt(sum, mem, Ix{{}, 0}, loc);
  values[o] = Stored{{}, mem};
  return true;
}

bool ProcLowering::readsTransposed(Value v, bool &found) {
  const Stored &s = values[v];
  if (!s.lazy)
    return true;
  Operation *op = computingOp(v);
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

void ProcLowering::handCopyPlan(Value v) {
  Operation *op = computingOp(v);
  Attribute plan = op ? op->getAttr(ex::kCopyPlanAttr) : Attribute();
  auto nest = dyn_cast_or_null<scf::ParallelOp>(b.getInsertionBlock()->getParentOp());
  SmallVector<int64_t> shape = shapeOf(v);
  // The nest's last two dimensions must be the value's last two axes (an
  // axis of one element has no dimension).
  if (!plan || !nest || shape.size() < 2 || shape[shape.size() - 2] < 2 || shape.back() < 2)
    return;
  // The plan's premise, which depends on what has been stored by now.
  bool found = false;
  if (!readsTransposed(v, found) || !found)
    return;
  nest->setAttr(pg::kCopyPlanNestAttr, plan);
}

} // namespace scaly::lowering
