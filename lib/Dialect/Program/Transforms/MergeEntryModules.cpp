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
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

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

/// The names both sides define whose incoming op can be dropped for the
/// merged one: identical ops (a declaration's location aside) whose
/// references each name a symbol that is itself kept once, or that only the
/// incoming side defines (it moves as it is). The largest such set: a cycle
/// of identical functions is kept once, and one that reaches a difference
/// anywhere is not.
llvm::StringSet<> keptOnce(const Symbols &merged, const Symbols &from,
                           ArrayRef<Operation *> fromOps) {
  auto both = [&](StringRef name) { return merged.count(name) && from.count(name); };
  llvm::StringSet<> same;
  llvm::StringMap<SmallVector<StringRef>> refs; // the names of `both` each one references
  for (Operation *incoming : fromOps) {
    StringAttr name = symbolName(incoming);
    if (!name || !both(name.getValue()))
      continue;
    Operation *existing = merged.lookup(name.getValue());
    // A declaration's location is only where it was first needed.
    if (!OperationEquivalence::isEquivalentTo(existing, incoming,
                                              incoming->getNumRegions()
                                                  ? OperationEquivalence::None
                                                  : OperationEquivalence::IgnoreLocations))
      continue;
    same.insert(name.getValue());
    if (auto uses = SymbolTable::getSymbolUses(incoming))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (StringRef r = use.getSymbolRef().getRootReference().getValue(); both(r))
          refs[name.getValue()].push_back(r);
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[name, targets] : refs)
      if (same.contains(name) &&
          llvm::any_of(targets, [&](StringRef r) { return !same.contains(r); })) {
        same.erase(name);
        changed = true;
      }
  }
  return same;
}

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

/// Renames `op`, listed in `table`, to a name free in `table` and `other`,
/// with every reference to it from `scope`.
void renameApart(Operation *op, Symbols &table, const Symbols &other,
                 ArrayRef<Operation *> scope) {
  StringRef old = symbolName(op).getValue();
  std::string fresh = freeName(old, table, other);
  table.erase(old);
  rename(op, fresh, scope);
  table[fresh] = op;
}

/// The index scaly-outline-entries gave the module's entry, or -1.
int64_t entryIndex(ModuleOp m) {
  auto index = m->getAttrOfType<IntegerAttr>("scaly.entry_index");
  return index ? index.getInt() : -1;
}

struct MergeEntryModulesPass
    : public scaly::prog::impl::MergeEntryModulesBase<MergeEntryModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto nested = llvm::to_vector(module.getOps<ModuleOp>());
    if (nested.empty())
      return;
    // In the entries' order, which scaly-outline-entries recorded when it
    // put the largest first (modules without the mark first, in their order),
    // all to where the first nested module is.
    Operation *place = nested.front();
    llvm::stable_sort(nested, [](ModuleOp a, ModuleOp b) { return entryIndex(a) < entryIndex(b); });
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
      llvm::StringSet<> same = keptOnce(merged, from, fromOps);
      // Decide first, then rename: a decision reads the references as the
      // lowering left them.
      llvm::SmallPtrSet<Operation *, 8> dropped;
      SmallVector<Operation *> renamedHere, renamedThere;
      for (Operation *op : fromOps) {
        StringAttr name = symbolName(op);
        if (!name || !merged.count(name.getValue()))
          continue;
        if (same.contains(name.getValue())) {
          dropped.insert(op);
        } else if (op->getNumRegions() == 0) {
          // A declaration names something outside the module: it cannot be
          // renamed, and two different ones cannot both hold.
          op->emitOpError("declares '") << name.getValue()
              << "' differently from an earlier entry's module";
          return signalPassFailure();
        } else if (op->hasAttr("entry")) {
          Operation *earlier = merged.lookup(name.getValue());
          if (earlier->getNumRegions() == 0) {
            op->emitOpError("is an entry named like '")
                << name.getValue() << "', which an earlier entry's module declares";
            return signalPassFailure();
          }
          renamedThere.push_back(earlier);
        } else {
          renamedHere.push_back(op);
        }
      }
      for (Operation *op : renamedHere)
        renameApart(op, from, merged, fromOps);
      for (Operation *op : renamedThere)
        renameApart(op, merged, from, mergedOps);
      for (Operation *op : fromOps) {
        if (dropped.contains(op)) {
          op->erase();
          continue;
        }
        op->moveBefore(place);
        mergedOps.push_back(op);
        if (StringAttr name = symbolName(op))
          merged[name.getValue()] = op;
      }
    }
    for (ModuleOp m : nested)
      m.erase();
  }
};

} // namespace
