//===- OutlineEntries.cpp - one nested module per entry -------------------===//
//
// The lowering pipeline is a sequence of module passes: several entries of
// one module would lower one after another. Giving each entry a module of
// its own, holding copies of the functions it reaches, makes the entries
// independent: the pass manager runs a pipeline nested on builtin.module on
// each of them in parallel (MLIR runs nested pipelines over sibling
// isolated ops on the context's thread pool). A function reached from
// several entries is copied into each; scaly-merge-entry-modules keeps one
// copy afterwards when they lowered alike.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace scaly::expr {
#define GEN_PASS_DEF_OUTLINEENTRIES
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// The module's top-level symbols `root` reaches through symbol references,
/// itself included.
llvm::SmallPtrSet<Operation *, 16> reachedSymbols(Operation *root, SymbolTable &symbols) {
  llvm::SmallPtrSet<Operation *, 16> seen{root};
  SmallVector<Operation *> work{root};
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    auto uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      Operation *target = symbols.lookup(use.getSymbolRef().getRootReference());
      if (target && seen.insert(target).second)
        work.push_back(target);
    }
  }
  return seen;
}

struct OutlineEntriesPass : public scaly::expr::impl::OutlineEntriesBase<OutlineEntriesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<FuncOp> entries;
    for (FuncOp f : module.getOps<FuncOp>())
      if (f.getEntry())
        entries.push_back(f);
    if (entries.size() < 2)
      return;
    SymbolTable symbols(module);
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    SmallVector<ModuleOp> modules;
    // What each entry reaches: walks of every function's body, read only,
    // one entry per task (in parallel on a threaded context).
    SmallVector<llvm::SmallPtrSet<Operation *, 16>> reached(entries.size());
    parallelFor(module.getContext(), 0, entries.size(),
                [&](size_t k) { reached[k] = reachedSymbols(entries[k], symbols); });
    llvm::DenseMap<Operation *, int> reachedBy; // how many entries reach each symbol
    for (auto [entry, symbolsReached] : llvm::zip(entries, reached)) {
      modules.push_back(b.create<ModuleOp>(entry.getLoc()));
      for (Operation *op : symbolsReached)
        ++reachedBy[op];
    }
    // In the whole module's order: each nested module lists its functions as
    // the whole module did. A function one entry reaches moves there; one
    // several reach is copied into each (a reached entry without its mark).
    for (Operation &op : llvm::make_early_inc_range(module.getOps())) {
      if (isa<ModuleOp>(op))
        continue;
      int users = reachedBy.lookup(&op);
      for (auto [k, entry] : llvm::enumerate(entries)) {
        if (!reached[k].contains(&op))
          continue;
        OpBuilder inner = OpBuilder::atBlockEnd(modules[k].getBody());
        if (users == 1) {
          op.moveBefore(inner.getInsertionBlock(), inner.getInsertionBlock()->end());
          break;
        }
        Operation *copy = inner.clone(op);
        if (auto f = dyn_cast<FuncOp>(copy); f && &op != entry.getOperation())
          f.setEntry(false);
      }
      if (users != 1)
        op.erase();
    }
    orderLargestFirst(modules);
  }

  /// The pass manager hands sibling modules to its threads in their order,
  /// each thread taking the next when it is done. The largest entries
  /// (a Jacobian next to its function, say) go first, so that none starts
  /// last while the other threads idle. `scaly.entry_index` keeps the
  /// entries' order for scaly-merge-entry-modules, which the C follows.
  static void orderLargestFirst(ArrayRef<ModuleOp> modules) {
    SmallVector<std::pair<int64_t, ModuleOp>> bySize;
    MLIRContext *ctx = modules.front()->getContext();
    for (auto [k, entryModule] : llvm::enumerate(modules)) {
      ModuleOp m = entryModule;
      m->setAttr("scaly.entry_index", IntegerAttr::get(IntegerType::get(ctx, 64), (int64_t)k));
      bySize.push_back({0, m});
    }
    parallelForEach(ctx, bySize, [](std::pair<int64_t, ModuleOp> &sized) {
      sized.second.walk([&](Operation *) { ++sized.first; });
    });
    llvm::stable_sort(bySize, [](auto &a, auto &b) { return a.first > b.first; });
    for (auto &[ops, m] : bySize)
      m->moveBefore(m->getBlock(), m->getBlock()->end());
  }
};

} // namespace
