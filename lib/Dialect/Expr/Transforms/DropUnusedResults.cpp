//===- DropUnusedResults.cpp - results of kept functions nobody uses ------===//
//
// A function kept as a procedure (its calls have the block hint, e.g. the
// step of a scan whose second output is discarded) computes every result at
// every call even when no call uses one. This pass removes a result of a
// function when no call of it uses that result: from its return, its type,
// its result names and every call; the work that fed only that result then
// dies (removed here, with expr.loop's canonicalization pattern, so callees'
// own calls are seen unused, to a fixed point). Entries (`entry`) keep their signature, and so does a function
// referenced other than by expr.call (a map, scan, jvp or vjp) or never
// called. Nothing is done in a module without a marked entry.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace scaly::expr {
#define GEN_PASS_DEF_DROPUNUSEDRESULTS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Drops the results of `f` no call uses; false when nothing changed.
bool dropUnused(FuncOp f, ModuleOp module) {
  if (f.getEntry())
    return false;
  auto uses = SymbolTable::getSymbolUses(f, module);
  if (!uses)
    return false;
  SmallVector<CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<CallOp>(use.getUser());
    if (!call)
      return false;
    calls.push_back(call);
  }
  unsigned n = f.getFunctionType().getNumResults();
  if (calls.empty() || n == 0)
    return false;
  BitVector dead(n, true);
  for (CallOp call : calls)
    for (unsigned i = 0; i < n; ++i)
      if (!call.getResult(i).use_empty())
        dead.reset(i);
  // A call with no used result is dead code itself (expr.call is pure).
  if (dead.none() || dead.all())
    return false;

  auto ret = cast<ReturnOp>(f.getBody().front().getTerminator());
  ret->eraseOperands(dead);
  SmallVector<Type> results;
  SmallVector<Attribute> names;
  for (unsigned i = 0; i < n; ++i)
    if (!dead[i]) {
      results.push_back(f.getFunctionType().getResult(i));
      names.push_back(f.getResNames()[i]);
    }
  OpBuilder b(f.getContext());
  f.setFunctionTypeAttr(TypeAttr::get(b.getFunctionType(f.getFunctionType().getInputs(), results)));
  f.setResNamesAttr(b.getArrayAttr(names));
  if (auto attrs = f.getResAttrsAttr()) {
    SmallVector<Attribute> kept;
    for (unsigned i = 0; i < n; ++i)
      if (!dead[i])
        kept.push_back(attrs[i]);
    f.setResAttrsAttr(b.getArrayAttr(kept));
  }
  for (CallOp call : calls) {
    b.setInsertionPoint(call);
    ArrayAttr resAttrs;
    if (auto attrs = call.getResAttrsAttr()) {
      SmallVector<Attribute> kept;
      for (unsigned i = 0; i < n; ++i)
        if (!dead[i])
          kept.push_back(attrs[i]);
      resAttrs = b.getArrayAttr(kept);
    }
    auto fresh = b.create<CallOp>(call.getLoc(), results, call.getCalleeAttr(), call.getOperands(),
                                  call.getBlockAttr(), call.getArgAttrsAttr(), resAttrs);
    for (NamedAttribute attr : call->getDiscardableAttrs())
      fresh->setAttr(attr.getName(), attr.getValue());
    unsigned next = 0;
    for (unsigned i = 0; i < n; ++i)
      if (!dead[i])
        call.getResult(i).replaceAllUsesWith(fresh.getResult(next++));
    call.erase();
  }
  // The work of the body that fed only the dropped results, also inside
  // loops (whose results it fed are dropped by expr.loop's canonicalization
  // pattern): the greedy rewriter's dead-code removal with that pattern.
  RewritePatternSet patterns(f.getContext());
  LoopOp::getCanonicalizationPatterns(patterns, f.getContext());
  (void)applyPatternsAndFoldGreedily(f, std::move(patterns));
  return true;
}

struct DropUnusedResultsPass
    : scaly::expr::impl::DropUnusedResultsBase<DropUnusedResultsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto funcs = llvm::to_vector(module.getOps<FuncOp>());
    if (llvm::none_of(funcs, [](FuncOp f) { return f.getEntry(); }))
      return;
    // Dropping a result of one function can leave its callees' results
    // unused: repeat until nothing changes (each round drops at least one
    // result, so at most as many rounds as results).
    bool changed = true;
    while (changed) {
      changed = false;
      for (FuncOp f : funcs)
        changed |= dropUnused(f, module);
    }
  }
};

} // namespace
