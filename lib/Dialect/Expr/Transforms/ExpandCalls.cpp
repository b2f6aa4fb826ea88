//===- ExpandCalls.cpp - inline calls that have no block hint ------------===//
//
// Function boundaries in Python do not promise C procedures: every expr.call
// without the `block` hint is replaced by a copy of the callee's body.
// Functions no longer called (other than the first, the entry) are erased.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace scaly::expr {
#define GEN_PASS_DEF_EXPANDCALLS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Replace `call` by the body of `callee`. Returns the calls the copy brought in.
SmallVector<CallOp> inlineCall(CallOp call, FuncOp callee) {
  OpBuilder b(call);
  IRMapping map;
  Block &body = callee.getBody().front();
  map.map(body.getArguments(), call.getOperands());
  SmallVector<CallOp> nested;
  for (Operation &op : body.without_terminator()) {
    Operation *copy = b.clone(op, map);
    copy->walk([&](CallOp c) { nested.push_back(c); });
  }
  auto ret = cast<ReturnOp>(body.getTerminator());
  for (auto [result, returned] : llvm::zip(call.getResults(), ret.getOperands()))
    result.replaceAllUsesWith(map.lookupOrDefault(returned));
  call.erase();
  return nested;
}

struct ExpandCallsPass : scaly::expr::impl::ExpandCallsBase<ExpandCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<CallOp> work;
    module.walk([&](CallOp call) { work.push_back(call); });
    // Recursion is impossible (tracing cannot build a cycle), but a corrupt
    // module could hold one: bound the work instead of looping forever.
    size_t budget = 1000000;
    while (!work.empty()) {
      CallOp call = work.pop_back_val();
      if (call.getBlock())
        continue;
      auto callee = symbols.lookup<FuncOp>(call.getCallee());
      if (!callee) {
        call.emitOpError("calls unknown function @") << call.getCallee();
        return signalPassFailure();
      }
      if (callee == call->getParentOfType<FuncOp>() || --budget == 0) {
        call.emitOpError("is recursive and cannot be expanded");
        return signalPassFailure();
      }
      llvm::append_range(work, inlineCall(call, callee));
    }
    eraseUnusedFunctions(module, symbols);
  }

  /// Erase every function but the entry (the first) that nothing calls,
  /// repeating because erasing one can leave its callees unused.
  void eraseUnusedFunctions(ModuleOp module, SymbolTable &symbols) {
    auto funcs = llvm::to_vector(llvm::drop_begin(module.getOps<FuncOp>()));
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t i = 0; i < funcs.size(); ++i) {
        if (!SymbolTable::symbolKnownUseEmpty(funcs[i], module))
          continue;
        symbols.erase(funcs[i]);
        funcs.erase(funcs.begin() + i--);
        changed = true;
      }
    }
  }
};

} // namespace
