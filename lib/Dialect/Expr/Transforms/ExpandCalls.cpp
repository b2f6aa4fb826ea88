//===- ExpandCalls.cpp - inline calls that have no block hint ------------===//
//
// Function boundaries in Python do not promise C procedures: every expr.call
// without the `block` hint is replaced by a copy of the callee's body, unless
// expanding would copy the callee many times (a model unrolled in Python):
// a callee that would be copied at least kKeepCopies times, and whose copies
// would add at least kKeepOps operations, is kept as one procedure (its calls
// get the `block` hint). Functions no longer called (other than the first, the
// entry) are erased. Everything here is linear in the size of the module plus
// the size of what is expanded.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <vector>

namespace scaly::expr {
#define GEN_PASS_DEF_EXPANDCALLS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// A callee without the block hint is kept as a procedure when expanding it
/// would make at least this many copies of its body ...
constexpr int64_t kKeepCopies = 8;
/// ... holding at least this many operations in total.
constexpr int64_t kKeepOps = 1024;

int64_t saturatingAdd(int64_t a, int64_t b) {
  constexpr int64_t cap = int64_t(1) << 40;
  return std::min(cap, a + b);
}

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

/// The module's entries (expr::entryFunctions) as a set.
DenseSet<Operation *> rootsOf(ModuleOp module) {
  DenseSet<Operation *> roots;
  for (FuncOp f : entryFunctions(module))
    roots.insert(f);
  return roots;
}

struct ExpandCallsPass : scaly::expr::impl::ExpandCallsBase<ExpandCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    keepOftenCopiedCallees(module, symbols);
    // Expand only inside the functions that stay (the entry and those called
    // with the hint): the others are copied from, never expanded themselves,
    // so each expanded operation is copied once (expanding every function
    // would expand a chain of n nested calls n times).
    auto funcs = llvm::to_vector(module.getOps<FuncOp>());
    DenseSet<Operation *> roots = rootsOf(module);
    DenseSet<StringRef> kept;
    for (FuncOp f : funcs)
      if (roots.count(f))
        kept.insert(f.getSymName());
    module.walk([&](CallOp call) {
      if (call.getBlock())
        kept.insert(call.getCallee());
    });
    SmallVector<CallOp> work;
    for (FuncOp f : funcs)
      if (kept.count(f.getSymName()))
        f.walk([&](CallOp call) { work.push_back(call); });
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

  /// Give the block hint to every call of a function that expansion would
  /// copy often (see kKeepCopies, kKeepOps). Functions are visited callers
  /// first; `copies` counts the copies of a function's body that expanding
  /// it would make, given the decisions already taken for its callers (a call
  /// inside a loop body counts once: the loop is not unrolled). A module with
  /// a cycle is left alone (the expansion below reports it).
  void keepOftenCopiedCallees(ModuleOp module, SymbolTable &symbols) {
    auto funcs = llvm::to_vector(module.getOps<FuncOp>());
    DenseSet<Operation *> roots = rootsOf(module);
    if (funcs.size() < 2)
      return;
    DenseMap<Operation *, size_t> index;
    for (auto [i, f] : llvm::enumerate(funcs))
      index[f] = i;
    size_t n = funcs.size();
    // Calls made by each function, its own operation count, and whether it
    // is already a procedure (the entry, or called with the hint).
    std::vector<SmallVector<std::pair<size_t, CallOp>>> calls(n);
    std::vector<int64_t> ownOps(n, 0);
    std::vector<bool> procedure(n, false);
    std::vector<int> callers(n, 0);
    for (size_t i = 0; i < n; ++i)
      procedure[i] = roots.count(funcs[i]);
    for (size_t i = 0; i < n; ++i) {
      bool ok = true;
      funcs[i].getBody().walk([&](Operation *op) {
        auto call = dyn_cast<CallOp>(op);
        if (!call) {
          ++ownOps[i];
          return;
        }
        auto callee = symbols.lookup<FuncOp>(call.getCallee());
        if (!callee) {
          ok = false;
          return;
        }
        size_t j = index.lookup(callee);
        calls[i].push_back({j, call});
        ++callers[j];
        if (call.getBlock())
          procedure[j] = true;
      });
      if (!ok)
        return; // reported by the expansion
    }
    // Callers first (Kahn's algorithm); a cycle leaves some unvisited.
    std::vector<size_t> order;
    std::vector<int> pending = callers;
    for (size_t i = 0; i < n; ++i)
      if (pending[i] == 0)
        order.push_back(i);
    for (size_t k = 0; k < order.size(); ++k)
      for (auto &[j, call] : calls[order[k]])
        if (--pending[j] == 0)
          order.push_back(j);
    if (order.size() != n)
      return;
    // Operations of a function once everything it calls without the hint is
    // expanded into it (callees first).
    std::vector<int64_t> size(n, 0);
    for (size_t k = n; k-- > 0;) {
      size_t i = order[k];
      size[i] = ownOps[i];
      for (auto &[j, call] : calls[i])
        size[i] = saturatingAdd(size[i], procedure[j] ? 1 : size[j]);
    }
    std::vector<int64_t> copies(n, 0);
    for (size_t i : order) {
      if (!procedure[i] && copies[i] >= kKeepCopies && copies[i] * size[i] >= kKeepOps)
        procedure[i] = true;
      int64_t unit = procedure[i] ? 1 : copies[i];
      for (auto &[j, call] : calls[i])
        copies[j] = saturatingAdd(copies[j], unit);
    }
    for (size_t i = 0; i < n; ++i)
      for (auto &[j, call] : calls[i])
        if (procedure[j] && !call.getBlock())
          call.setBlock(true);
    // Calls made from functions that will be expanded are copied with their
    // attributes, so marking every call of a kept function suffices.
  }

  /// Erase every function that no entry can reach through the symbols its
  /// body (and those it reaches) refers to.
  void eraseUnusedFunctions(ModuleOp module, SymbolTable &symbols) {
    auto funcs = llvm::to_vector(module.getOps<FuncOp>());
    DenseSet<Operation *> roots = rootsOf(module);
    if (funcs.empty())
      return;
    DenseSet<Operation *> reached;
    SmallVector<FuncOp> work;
    for (FuncOp f : funcs)
      if (roots.count(f)) {
        reached.insert(f);
        work.push_back(f);
      }
    while (!work.empty()) {
      FuncOp f = work.pop_back_val();
      auto uses = SymbolTable::getSymbolUses(&f.getBody());
      if (!uses)
        return; // unknown symbol users: erase nothing
      for (const SymbolTable::SymbolUse &use : *uses)
        if (auto callee = symbols.lookup<FuncOp>(use.getSymbolRef().getRootReference()))
          if (reached.insert(callee).second)
            work.push_back(callee);
    }
    for (FuncOp f : funcs)
      if (!reached.count(f))
        symbols.erase(f);
  }
};

} // namespace
