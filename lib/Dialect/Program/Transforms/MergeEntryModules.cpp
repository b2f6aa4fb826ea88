//===- MergeEntryModules.cpp - one module again after per-entry lowering --===//
//
// The inverse of scaly-outline-entries: each nested module's symbols move
// into the parent. A function several entries reached was copied into each
// of their modules and, lowered alike, is kept once. Copies that lowered
// differently (a helper whose unused results one entry's pipeline dropped,
// say) are both kept under different names, so every caller still calls
// exactly the code its own pipeline produced.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace scaly::prog {
#define GEN_PASS_DEF_MERGEENTRYMODULES
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;

namespace {

using Symbols = llvm::StringMap<Operation *>;

StringAttr symbolName(Operation *op) {
  return op->getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
}

/// Whether `incoming` (of module `from`) can be dropped for the merged
/// symbol of the same name: identical ops (a declaration's location aside)
/// whose references all name symbols that are the same on both sides too. Memoized; a cycle of references is
/// taken as the same (each op on it compared equal).
class SameSymbols {
public:
  SameSymbols(const Symbols &merged, const Symbols &from) : merged(merged), from(from) {}

  bool operator()(StringRef name) {
    auto [it, fresh] = memo.try_emplace(name, true);
    if (!fresh)
      return it->second;
    Operation *existing = merged.lookup(name), *incoming = from.lookup(name);
    bool same = true;
    if (existing && incoming) {
      // A declaration's location is only where it was first needed.
      same = OperationEquivalence::isEquivalentTo(
          existing, incoming,
          incoming->getNumRegions() ? OperationEquivalence::None
                                    : OperationEquivalence::IgnoreLocations);
      if (same)
        if (auto uses = SymbolTable::getSymbolUses(incoming))
          for (const SymbolTable::SymbolUse &use : *uses)
            if (!(*this)(use.getSymbolRef().getRootReference().getValue())) {
              same = false;
              break;
            }
    }
    memo[name] = same;
    return same;
  }

private:
  const Symbols &merged, &from;
  llvm::StringMap<bool> memo;
};

/// `<name>_<k>`, the lowest k free in both tables.
std::string freeName(StringRef name, const Symbols &a, const Symbols &b) {
  for (unsigned k = 1;; ++k) {
    std::string candidate = (name + "_" + Twine(k)).str();
    if (!a.count(candidate) && !b.count(candidate))
      return candidate;
  }
}

/// Renames `op`, a symbol among `scope`'s top-level ops, and every reference
/// to it from those ops.
void rename(Operation *op, StringRef newName, ArrayRef<Operation *> scope) {
  MLIRContext *ctx = op->getContext();
  StringAttr oldName = symbolName(op), to = StringAttr::get(ctx, newName);
  for (Operation *user : scope)
    (void)SymbolTable::replaceAllSymbolUses(oldName, to, user);
  SymbolTable::setSymbolName(op, to);
}

struct MergeEntryModulesPass
    : public scaly::prog::impl::MergeEntryModulesBase<MergeEntryModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto nested = llvm::to_vector(module.getOps<ModuleOp>());
    if (nested.empty())
      return;
    Symbols merged;
    SmallVector<Operation *> mergedOps;
    for (Operation &op : module.getOps())
      if (!isa<ModuleOp>(op)) {
        mergedOps.push_back(&op);
        if (StringAttr name = symbolName(&op))
          merged[name.getValue()] = &op;
      }
    for (ModuleOp m : nested) {
      Symbols from;
      SmallVector<Operation *> fromOps;
      for (Operation &op : m.getOps()) {
        fromOps.push_back(&op);
        if (StringAttr name = symbolName(&op))
          from[name.getValue()] = &op;
      }
      SameSymbols same(merged, from);
      // Decide first, then rename: a decision reads the references as the
      // lowering left them.
      llvm::SmallPtrSet<Operation *, 8> dropped;
      SmallVector<Operation *> renamedHere, renamedThere;
      for (Operation *op : fromOps) {
        StringAttr name = symbolName(op);
        if (!name || !merged.count(name.getValue()))
          continue;
        if (same(name.getValue()))
          dropped.insert(op);
        else if (op->getNumRegions() == 0) {
          // A declaration names something outside the module: it cannot be
          // renamed, and two different ones cannot both hold.
          op->emitOpError("declares '") << name.getValue()
              << "' differently from an earlier entry's module";
          return signalPassFailure();
        }
        else if (op->hasAttr("entry"))
          renamedThere.push_back(merged.lookup(name.getValue()));
        else
          renamedHere.push_back(op);
      }
      for (Operation *op : renamedHere) {
        StringRef old = symbolName(op).getValue();
        std::string fresh = freeName(old, merged, from);
        from.erase(old);
        rename(op, fresh, fromOps);
        from[fresh] = op;
      }
      for (Operation *op : renamedThere) {
        StringRef old = symbolName(op).getValue();
        std::string fresh = freeName(old, merged, from);
        merged.erase(old);
        rename(op, fresh, mergedOps);
        merged[fresh] = op;
      }
      for (Operation *op : fromOps) {
        if (dropped.contains(op)) {
          op->erase();
          continue;
        }
        op->moveBefore(m);
        mergedOps.push_back(op);
        if (StringAttr name = symbolName(op))
          merged[name.getValue()] = op;
      }
      m.erase();
    }
  }
};

} // namespace
