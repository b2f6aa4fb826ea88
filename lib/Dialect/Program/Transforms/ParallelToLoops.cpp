//===- ParallelToLoops.cpp - generate the loops of scf.parallel nests ----===//
//
// The lowering emits the loop nest computing a large array's elements as
// one scf.parallel: an iteration space and a body computing one element.
// This pass generates its loops, the program dialect's counted scf.for over
// i64 counters, first dimension outermost. Upstream's ParallelLowering
// (SCFToControlFlow) builds the same nest over index counters; the program
// dialect's counters are i64 (C's long long, the type of its index
// arithmetic) and carry their C names, so the nest is generated here.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "scaly/Dialect/Program/CountedLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace scaly::prog {
#define GEN_PASS_DEF_PARALLELTOLOOPS
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

LogicalResult generateLoops(scf::ParallelOp nest) {
  if (nest.getNumReductions() > 0)
    return nest.emitOpError("carries reduced values: scaly-parallel-to-loops generates the "
                            "loops of nests whose iterations only store (the lowering's)");
  FailureOr<SmallVector<NestDim>> dims = nestDims(nest);
  if (failed(dims))
    return failure();
  OpBuilder b(nest);
  Location loc = nest.getLoc();
  SmallVector<Value> counters;
  scf::ForOp innermost;
  for (const NestDim &d : *dims) {
    innermost = createCountedLoop(b, loc, d.lower, d.upper, d.step, d.name);
    b.setInsertionPoint(innermost.getBody()->getTerminator());
    counters.push_back(innermost.getInductionVar());
  }
  Block *body = nest.getBody();
  // Each counter's cast to i64 becomes the loop's counter; any other use
  // (none in the lowering's nests) reads the counter cast back to index.
  for (auto [iv, counter] : llvm::zip(nest.getInductionVars(), counters)) {
    for (OpOperand &use : llvm::make_early_inc_range(iv.getUses())) {
      auto cast = dyn_cast<arith::IndexCastOp>(use.getOwner());
      if (cast && cast.getType() == counter.getType()) {
        cast.replaceAllUsesWith(counter);
        cast.erase();
      }
    }
    if (!iv.use_empty())
      iv.replaceAllUsesWith(
          b.create<arith::IndexCastOp>(loc, b.getIndexType(), counter).getResult());
  }
  // scf.parallel has at least one dimension (its verifier says so).
  Block *into = innermost.getBody();
  into->getOperations().splice(into->getTerminator()->getIterator(), body->getOperations(),
                               body->begin(), body->getTerminator()->getIterator());
  eraseNest(nest);
  return success();
}

struct ParallelToLoopsPass : scaly::prog::impl::ParallelToLoopsBase<ParallelToLoopsPass> {
  void runOnOperation() override {
    // Outer nests first: an inner nest moves with its parent's body.
    SmallVector<scf::ParallelOp> nests;
    getOperation()->walk<WalkOrder::PreOrder>([&](scf::ParallelOp p) { nests.push_back(p); });
    for (scf::ParallelOp nest : nests)
      if (failed(generateLoops(nest)))
        return signalPassFailure();
  }
};

} // namespace
