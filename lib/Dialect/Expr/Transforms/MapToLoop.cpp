//===- MapToLoop.cpp - expr.map to expr.loop -----------------------------===//
//
// `expr.map @f(%xs) count n` becomes an `expr.loop n` whose body calls @f on
// one slice of each operand. The call keeps the map's block hint, so
// scaly-expand-calls later decides whether @f survives as a procedure.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace scaly::expr {
#define GEN_PASS_DEF_MAPTOLOOP
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Replace a map or scan by an expr.loop whose body calls the callee once:
/// mapped operands become slices, unmapped ones are used whole from the
/// enclosing block, and a scan's state is the loop's carried value.
template <typename OpT>
LogicalResult toLoop(OpT op, SymbolTable &symbols, bool isScan) {
  auto callee = symbols.lookup<FuncOp>(op.getCallee());
  if (!callee)
    return op.emitOpError("maps unknown function @") << op.getCallee();
  OpBuilder b(op);
  // The loop counter is named after the first output, as in `it_zn`.
  std::string counter = "it";
  auto func = op->template getParentOfType<FuncOp>();
  if (func && func.getResNames().size() == 1)
    counter += "_" + cast<StringAttr>(func.getResNames()[0]).getValue().str();
  SmallVector<Value> loopOperands;
  for (auto [i, v] : llvm::enumerate(op.getOperands()))
    if ((isScan && i == 0) || op.isMapped(i))
      loopOperands.push_back(v);
  auto loop = b.create<LoopOp>(op.getLoc(), op.getResultTypes(), op.getCountAttr(), loopOperands,
                               b.getStringAttr(counter),
                               isScan ? b.getI64IntegerAttr(1) : IntegerAttr());
  Block *body = new Block();
  loop.getBody().push_back(body);
  SmallVector<Value> args;
  for (auto [i, v] : llvm::enumerate(op.getOperands())) {
    bool sliced = (isScan && i == 0) || op.isMapped(i);
    args.push_back(sliced ? body->addArgument(callee.getArgumentTypes()[i], op.getLoc()) : v);
  }
  b.setInsertionPointToStart(body);
  auto call = b.create<CallOp>(op.getLoc(), callee.getResultTypes(), op.getCalleeAttr(), args,
                               op.getBlockAttr(), ArrayAttr(), ArrayAttr());
  b.create<YieldOp>(op.getLoc(), call.getResults());
  op.replaceAllUsesWith(loop.getResults());
  op.erase();
  return success();
}

struct MapToLoopPass : scaly::expr::impl::MapToLoopBase<MapToLoopPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<MapOp, ScanOp>(op))
        ops.push_back(op);
    });
    SymbolTable symbols(getOperation());
    for (Operation *op : ops) {
      LogicalResult ok = isa<MapOp>(op) ? toLoop(cast<MapOp>(op), symbols, false)
                                        : toLoop(cast<ScanOp>(op), symbols, true);
      if (failed(ok))
        return signalPassFailure();
    }
  }
};

} // namespace
