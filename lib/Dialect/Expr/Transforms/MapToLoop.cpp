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

struct MapToLoopPass : scaly::expr::impl::MapToLoopBase<MapToLoopPass> {
  void runOnOperation() override {
    SmallVector<MapOp> maps;
    getOperation().walk([&](MapOp map) { maps.push_back(map); });
    SymbolTable symbols(getOperation());
    for (MapOp map : maps) {
      auto callee = symbols.lookup<FuncOp>(map.getCallee());
      if (!callee) {
        map.emitOpError("maps unknown function @") << map.getCallee();
        return signalPassFailure();
      }
      OpBuilder b(map);
      // The loop counter is named after the first output, as in `it_zn`.
      std::string counter = "it";
      auto func = map->getParentOfType<FuncOp>();
      if (func && func.getResNames().size() == 1)
        counter += "_" + cast<StringAttr>(func.getResNames()[0]).getValue().str();
      auto loop = b.create<LoopOp>(map.getLoc(), map.getResultTypes(), map.getCountAttr(),
                                   map.getOperands(), b.getStringAttr(counter));
      Block *body = new Block();
      loop.getBody().push_back(body);
      for (Type t : callee.getArgumentTypes())
        body->addArgument(t, map.getLoc());
      b.setInsertionPointToStart(body);
      auto call = b.create<CallOp>(map.getLoc(), callee.getResultTypes(), map.getCalleeAttr(),
                                   ValueRange(body->getArguments()), map.getBlockAttr(),
                                   ArrayAttr(), ArrayAttr());
      b.create<YieldOp>(map.getLoc(), call.getResults());
      map.replaceAllUsesWith(loop.getResults());
      map.erase();
    }
  }
};

} // namespace
