//===- SumInBlocks.cpp - large sums computed and summed block by block ----===//
//
// A float sum of every element of a value computed where it is read
// (`(x * y).sum()`, `sc.sumsqr(x)` with more than one block of elements)
// is lowered as the plain thing: a nest writes the whole value into a
// workspace window, and the module's sum helper adds it up, pairwise within
// blocks of kSumBlock elements and the block sums in order from zero
// (NumPy's order). The lowering marks that prog.reduce
// scaly.sum_in_blocks.
//
// This pass strip-mines the nest by the helper's own blocks and contracts
// the window to one block: a loop over the blocks carries the total from
// zero; each iteration computes its block into the window and adds the
// helper's sum of it; the elements left over, the same way. The same
// additions in the same order, so the same result bit for bit, with a
// workspace of one block (`sc.sumsqr` at 10^6: 8 MB -> 64 KiB) that stays
// in the cache between its writes and its reads.
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
#define GEN_PASS_DEF_SUMINBLOCKS
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;
namespace ex = scaly::expr;

namespace {

/// A marked sum and what computes its operand.
struct BlockedSum {
  ReduceOp sum;
  /// The window the operand is written into, and the read-only view of it
  /// the sum reads (null when it reads the window itself).
  WindowOp window;
  OffsetOp view;
  /// The nest writing the window, element k at k.
  scf::ParallelOp nest;
  Value counter;
  /// The ops computing element k, in order.
  SmallVector<Operation *> elementOps;
  Value element;
};

FailureOr<BlockedSum> readBlockedSum(ReduceOp sum) {
  auto refuse = [&](const Twine &why) {
    return sum.emitOpError("is marked ") << kSumInBlocksAttr << ", but " << why;
  };
  BlockedSum s;
  s.sum = sum;
  if (sum.getKind() != "sum" || sum.getStride() != 1 || sum.getCount() <= ex::kSumBlock ||
      !isa<FloatType>(sum.getType()))
    return refuse(Twine("it is not a float sum of more than ") + Twine(ex::kSumBlock) +
                  " consecutive elements");
  Value ptr = sum.getPtr();
  s.view = ptr.getDefiningOp<OffsetOp>();
  if (s.view && !s.view.getIndex() && s.view.getBias() == 0)
    ptr = s.view.getBase();
  else
    s.view = {};
  s.window = ptr.getDefiningOp<WindowOp>();
  if (!s.window || s.window.getSize() != sum.getCount())
    return refuse("it does not read a workspace window of its count elements");
  // The window's only writer: a nest over its elements just before the sum.
  for (Operation *user : s.window->getUsers()) {
    auto at = dyn_cast<OffsetOp>(user);
    if (user == s.view.getOperation())
      continue;
    auto nest = at ? dyn_cast<scf::ParallelOp>(at->getParentOp()) : scf::ParallelOp();
    if (!nest || s.nest)
      return refuse("its window is read or written by more than one nest writing it");
    s.nest = nest;
  }
  if (!s.nest || s.nest->getBlock() != sum->getBlock() || !s.nest->isBeforeInBlock(sum))
    return refuse("no nest before it, in its block, writes its window");
  FailureOr<SmallVector<NestDim>> dims = nestDims(s.nest);
  if (failed(dims))
    return failure();
  if (dims->size() != 1 || (*dims)[0].lower != 0 || (*dims)[0].upper != sum.getCount() ||
      (*dims)[0].step != 1)
    return refuse("the nest writing its window is not one dimension over its elements by 1");
  Block *body = s.nest.getBody();
  Value iv = s.nest.getInductionVars()[0];
  Value cast = counterCast(iv);
  auto [store, at] = finalStore(body);
  if (!cast || !store || store.getValues().size() != 1 ||
      store.getOffset() != 0 || !at || at.getBase() != s.window.getResult() ||
      at.getIndex() != cast || at.getScale() != 1 || at.getBias() != 0)
    return refuse("the nest writing its window does not end with the store of element k at "
                  "k, its counter cast to i64");
  s.counter = cast;
  s.element = store.getValues()[0];
  // The window is contracted to one block: the element may not read it.
  FailureOr<SmallVector<Operation *>> ops =
      elementOps(body, s.element, {s.counter}, store, s.window, refuse);
  if (failed(ops))
    return failure();
  s.elementOps = std::move(*ops);
  return s;
}

/// Builds the blocks of one sum.
class BlockWriter {
public:
  BlockWriter(OpBuilder &b, BlockedSum &s) : b(b), s(s) {}

  /// The total, from zero: each whole block's sum added in order, then the
  /// sum of the elements left over.
  Value build() {
    int64_t count = s.sum.getCount();
    int64_t blocks = count / ex::kSumBlock, rest = count % ex::kSumBlock;
    Type elem = s.sum.getType();
    Value total = b.create<arith::ConstantOp>(loc(), elem, b.getZeroAttr(elem));
    if (blocks > 0) {
      auto loop = createCountedLoop(b, loc(), 0, blocks, 1, "block", ValueRange{total});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Ix first = mulAdd(b, Ix{loop.getInductionVar()}, ex::kSumBlock, Ix{{}, 0}, loc());
      Value blockSum = sumOfBlock(first, ex::kSumBlock);
      yieldOf(loop)->setOperands(
          ValueRange{b.create<arith::AddFOp>(loc(), loop.getRegionIterArgs()[0], blockSum)});
      total = loop.getResult(0);
    }
    if (rest > 0)
      total = b.create<arith::AddFOp>(loc(), total,
                                      sumOfBlock(Ix{{}, blocks * ex::kSumBlock}, rest));
    return total;
  }

private:
  OpBuilder &b;
  BlockedSum &s;
  Location loc() { return s.sum.getLoc(); }

  /// Elements first.. first + n computed into the window, and the helper's
  /// sum of them.
  Value sumOfBlock(Ix first, int64_t n) {
    {
      OpBuilder::InsertionGuard guard(b);
      auto fill = createCountedLoop(b, loc(), 0, n, 1, "i");
      b.setInsertionPoint(fill.getBody()->getTerminator());
      Ix i{fill.getInductionVar()};
      IRMapping map;
      map.map(s.counter, ixValue(b, mulAdd(b, first, 1, i, loc()), loc()));
      for (Operation *op : s.elementOps)
        b.clone(*op, map);
      Value at = b.create<OffsetOp>(loc(), s.window.getType(), s.window, i.v,
                                    b.getI64IntegerAttr(1), b.getI64IntegerAttr(0));
      b.create<StoreOp>(loc(), ValueRange{map.lookupOrDefault(s.element)}, at,
                        b.getI64IntegerAttr(0));
    }
    Value ptr = s.view ? b.clone(*s.view)->getResult(0) : Value(s.window.getResult());
    return b.create<ReduceOp>(loc(), s.sum.getType(), s.sum.getKind(), ptr, n, 1);
  }
};

struct SumInBlocksPass : scaly::prog::impl::SumInBlocksBase<SumInBlocksPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> marked;
    getOperation()->walk([&](ReduceOp sum) {
      if (sum->hasAttr(kSumInBlocksAttr))
        marked.push_back(sum);
    });
    for (ReduceOp sum : marked) {
      FailureOr<BlockedSum> s = readBlockedSum(sum);
      if (failed(s))
        return signalPassFailure();
      OpBuilder b(s->nest);
      Value total = BlockWriter(b, *s).build();
      sum.replaceAllUsesWith(total);
      OffsetOp view = s->view;
      sum.erase();
      if (view && view->use_empty())
        view.erase();
      eraseNest(s->nest);
      s->window.setSizeAttr(b.getI64IntegerAttr(ex::kSumBlock));
    }
  }
};

} // namespace
