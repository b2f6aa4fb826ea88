//===- BuildModule.cpp - traced graph to the expression dialect ----------===//

#include "scaly/Trace/BuildModule.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace scaly::trace {
namespace {

/// Per result, `{expr.sparse = {layout, nrow, ncol, batch, tables, <table>...}}`
/// for a sparse output
/// (an empty dictionary for a dense one); null when every output is dense.
ArrayAttr sparseResultAttrs(MLIRContext &ctx, const Function &fn, bool tableValues) {
  if (std::none_of(fn.outputs.begin(), fn.outputs.end(),
                   [](const Port &p) { return bool(p.sparse); }))
    return nullptr;
  Builder b(&ctx);
  SmallVector<Attribute> dicts;
  for (const Port &p : fn.outputs) {
    if (!p.sparse) {
      dicts.push_back(b.getDictionaryAttr({}));
      continue;
    }
    SmallVector<NamedAttribute> fields{
        b.getNamedAttr("layout", b.getStringAttr(p.sparse->layout)),
        b.getNamedAttr("nrow", b.getI64IntegerAttr(p.sparse->nrow)),
        b.getNamedAttr("ncol", b.getI64IntegerAttr(p.sparse->ncol)),
        b.getNamedAttr("batch", b.getI64IntegerAttr(p.sparse->batch))};
    SmallVector<Attribute> order;
    for (const auto &[name, values] : p.sparse->tables) {
      // The values, or only their count (what the JIT's render needs).
      fields.push_back(tableValues ? b.getNamedAttr(name, b.getDenseI32ArrayAttr(*values))
                                   : b.getNamedAttr(name, b.getI64IntegerAttr(
                                                              static_cast<int64_t>(values->size()))));
      order.push_back(b.getStringAttr(name));
    }
    fields.push_back(b.getNamedAttr("tables", b.getArrayAttr(order)));
    auto layout = b.getDictionaryAttr(fields);
    dicts.push_back(b.getDictionaryAttr({b.getNamedAttr("expr.sparse", layout)}));
  }
  return b.getArrayAttr(dicts);
}

class ModuleBuilder {
public:
  ModuleBuilder(MLIRContext &ctx, ModuleOp module, bool tableValues)
      : ctx(ctx), module(module), tableValues(tableValues) {}

  /// Claim the entries' names first, so that no callee takes one of them
  /// (or makes `<entry>` by appending `_raw`).
  void reserveEntries(const std::vector<const Function *> &roots) {
    for (const Function *fn : roots) {
      if (!entryNames.insert(fn->name).second)
        throw std::invalid_argument("two entries of one module are named '" + fn->name +
                                    "': give each exported function its own name");
      taken.insert(fn->name);
      // A call of an entry from another entry refers to the entry's symbol.
      symbols[fn] = fn->name;
    }
  }

  /// Build the expr.func of an entry (its symbol is its name).
  void buildEntry(const Function &fn) { build(fn, fn.name, /*isEntry=*/true); }

  /// Symbol of `fn`, building its expr.func on first use. Callees become
  /// `<symbol>_raw` procedures, so no callee symbol may make an entry's name
  /// that way.
  StringRef symbolFor(const Function &fn) {
    auto it = symbols.find(&fn);
    if (it != symbols.end())
      return it->second;
    std::string name = fn.name;
    for (int k = 1; !taken.insert(name).second || entryNames.count(name + "_raw"); ++k)
      name = fn.name + "_" + std::to_string(k);
    symbols[&fn] = name;
    build(fn, name, /*isEntry=*/false);
    return symbols[&fn];
  }

private:
  MLIRContext &ctx;
  ModuleOp module;
  bool tableValues;
  llvm::DenseMap<const Function *, std::string> symbols;
  llvm::StringSet<> taken;
  llvm::StringSet<> entryNames;

  void build(const Function &fn, StringRef name, bool isEntry) {
    OpBuilder b(&ctx);
    b.setInsertionPointToEnd(module.getBody());
    Location loc = b.getUnknownLoc();
    SmallVector<Type> ins, outs;
    SmallVector<Attribute> inNames, outNames;
    for (const Port &p : fn.inputs) {
      ins.push_back(tensorType(ctx, p.shape, p.dtype));
      inNames.push_back(b.getStringAttr(p.name));
    }
    for (const Port &p : fn.outputs) {
      outs.push_back(tensorType(ctx, p.shape, p.dtype));
      outNames.push_back(b.getStringAttr(p.name));
    }
    auto func = b.create<expr::FuncOp>(loc, name, b.getFunctionType(ins, outs),
                                       b.getArrayAttr(inNames), b.getArrayAttr(outNames),
                                       fn.block, nullptr, sparseResultAttrs(ctx, fn, tableValues),
                                       isEntry);
    Block *entry = new Block();
    func.getBody().push_back(entry);
    for (Type t : ins)
      entry->addArgument(t, loc);
    b.setInsertionPointToStart(entry);

    // Only the ops the results depend on are cloned, in graph order (a
    // topological order: operands always precede their users).
    const Graph &g = *fn.graph;
    Block &traced = g.body();
    llvm::DenseSet<Operation *> live = g.liveOps(fn.results);
    IRMapping mapping;
    for (BlockArgument arg : traced.getArguments()) {
      unsigned position = static_cast<unsigned>(g.inputPosition(arg.getArgNumber()));
      if (position >= entry->getNumArguments())
        throw std::invalid_argument(fn.name + ": an input at position " +
                                    std::to_string(position) + " of " +
                                    std::to_string(entry->getNumArguments()));
      mapping.map(arg, entry->getArgument(position));
    }
    for (Operation &op : traced) {
      if (!live.contains(&op))
        continue;
      Operation *copy = b.clone(op, mapping);
      // Applications name their Function by a placeholder: bind it here.
      if (Graph::isApplication(copy))
        copy->setAttr("callee", FlatSymbolRefAttr::get(&ctx, symbolFor(g.callee(&op))));
    }
    SmallVector<Value> returned;
    for (int32_t r : fn.results)
      returned.push_back(mapping.lookupOrDefault(g.value(r)));
    b.create<expr::ReturnOp>(loc, returned);
  }
};

} // namespace

OwningOpRef<ModuleOp> buildExprModule(MLIRContext &ctx, const Function &root, bool tableValues) {
  return buildExprModule(ctx, std::vector<const Function *>{&root}, tableValues);
}

OwningOpRef<ModuleOp> buildExprModule(MLIRContext &ctx,
                                      const std::vector<const Function *> &roots,
                                      bool tableValues) {
  ctx.getOrLoadDialect<expr::ExprDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  ModuleBuilder builder(ctx, *module, tableValues);
  builder.reserveEntries(roots);
  for (const Function *fn : roots)
    builder.buildEntry(*fn);
  return module;
}

} // namespace scaly::trace
