//===- BuildModule.cpp - traced graph to the expression dialect ----------===//

#include "scaly/Trace/BuildModule.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;

namespace scaly::trace {
namespace {

Type elementType(MLIRContext &ctx, DType d) {
  Builder b(&ctx);
  switch (d) {
  case DType::F64: return b.getF64Type();
  case DType::F32: return b.getF32Type();
  case DType::I32: return b.getI32Type();
  case DType::I64: return b.getI64Type();
  case DType::Bool: return b.getI1Type();
  }
  return {};
}

RankedTensorType tensorType(MLIRContext &ctx, const Shape &shape, DType d) {
  return RankedTensorType::get(shape, elementType(ctx, d));
}

/// Per result, `{expr.sparse = {layout, nrow, ncol, batch, tables, <table>...}}`
/// for a sparse output
/// (an empty dictionary for a dense one); null when every output is dense.
ArrayAttr sparseResultAttrs(MLIRContext &ctx, const Function &fn) {
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
      fields.push_back(b.getNamedAttr(name, b.getDenseI64ArrayAttr(values)));
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
  ModuleBuilder(MLIRContext &ctx, ModuleOp module) : ctx(ctx), module(module) {}

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
                                       fn.block, nullptr, sparseResultAttrs(ctx, fn), isEntry);
    Block *entry = new Block();
    func.getBody().push_back(entry);
    for (Type t : ins)
      entry->addArgument(t, loc);
    b.setInsertionPointToStart(entry);

    // Only nodes the results depend on are emitted, in graph order (which is
    // a topological order: operands always precede their users).
    const Graph &g = *fn.graph;
    std::vector<char> live(g.size(), 0);
    for (int32_t r : fn.results)
      live[r] = 1;
    for (size_t i = g.size(); i-- > 0;)
      if (live[i])
        for (int32_t o : g.node(i).operands)
          live[o] = 1;
    std::vector<SmallVector<Value, 1>> values(g.size());
    for (size_t i = 0; i < g.size(); ++i)
      if (live[i])
        values[i] = emit(b, locationOf(g, g.node(i)), g.node(i), values, entry);
    SmallVector<Value> returned;
    for (int32_t r : fn.results)
      returned.push_back(values[r][0]);
    b.create<expr::ReturnOp>(loc, returned);
  }

  /// file:line of the Python operation a node came from.
  Location locationOf(const Graph &g, const Node &n) {
    if (n.file < 0)
      return UnknownLoc::get(&ctx);
    return FileLineColLoc::get(&ctx, g.files()[n.file], n.line, 0);
  }

  SmallVector<Value, 1> emit(OpBuilder &b, Location loc, const Node &n,
                             const std::vector<SmallVector<Value, 1>> &values, Block *entry) {
    auto operand = [&](size_t k) { return values[n.operands[k]][0]; };
    auto allOperands = [&] {
      SmallVector<Value> args;
      for (size_t k = 0; k < n.operands.size(); ++k)
        args.push_back(operand(k));
      return args;
    };
    RankedTensorType type = tensorType(ctx, n.shape, n.dtype);
    switch (n.kind) {
    case OpKind::Input:
      return {entry->getArgument(n.sub)};
    case OpKind::Constant:
      return {b.create<expr::ConstantOp>(loc, constantAttr(type, n))};
    case OpKind::Add: return {b.create<expr::AddOp>(loc, operand(0), operand(1))};
    case OpKind::Sub: return {b.create<expr::SubOp>(loc, operand(0), operand(1))};
    case OpKind::Mul: return {b.create<expr::MulOp>(loc, operand(0), operand(1))};
    case OpKind::Div: return {b.create<expr::DivOp>(loc, operand(0), operand(1))};
    case OpKind::Neg: return {b.create<expr::NegOp>(loc, operand(0))};
    case OpKind::Math:
      return {b.create<expr::MathOp>(loc, static_cast<expr::MathFn>(n.sub), operand(0))};
    case OpKind::Math2:
      return {b.create<expr::Math2Op>(loc, static_cast<expr::Math2Fn>(n.sub), operand(0),
                                      operand(1))};
    case OpKind::Cmp:
      return {b.create<expr::CmpOp>(loc, type, static_cast<expr::CmpPredicate>(n.sub), operand(0),
                                    operand(1))};
    case OpKind::Select:
      return {b.create<expr::SelectOp>(loc, operand(0), operand(1), operand(2))};
    case OpKind::Cast: return {b.create<expr::CastOp>(loc, type, operand(0))};
    case OpKind::Broadcast: return {b.create<expr::BroadcastOp>(loc, type, operand(0))};
    case OpKind::Reshape: return {b.create<expr::ReshapeOp>(loc, type, operand(0))};
    case OpKind::Gather:
      return {b.create<expr::GatherOp>(loc, type, operand(0), b.getDenseI64ArrayAttr(n.ints))};
    case OpKind::Concat: {
      IntegerAttr axis = n.ints.empty() ? IntegerAttr() : b.getI64IntegerAttr(n.ints[0]);
      return {b.create<expr::ConcatOp>(loc, type, allOperands(), axis)};
    }
    case OpKind::Slice: {
      size_t rank = n.shape.size();
      ArrayRef<int64_t> all(n.ints);
      return {b.create<expr::SliceOp>(loc, type, operand(0),
                                      b.getDenseI64ArrayAttr(all.take_front(rank)),
                                      b.getDenseI64ArrayAttr(all.drop_front(rank)))};
    }
    case OpKind::Transpose:
      return {b.create<expr::TransposeOp>(loc, type, operand(0), b.getDenseI64ArrayAttr(n.ints))};
    case OpKind::Reduce:
      return {b.create<expr::ReduceOp>(loc, type, static_cast<expr::ReduceKind>(n.sub), operand(0),
                                       b.getDenseI64ArrayAttr(n.ints))};
    case OpKind::Matmul:
      return {b.create<expr::MatmulOp>(loc, type, operand(0), operand(1))};
    case OpKind::Sum: return {b.create<expr::SumOp>(loc, type, operand(0))};
    case OpKind::Call:
    case OpKind::Map:
    case OpKind::Scan: {
      const Function &callee = *n.callee;
      StringRef sym = symbolFor(callee);
      SmallVector<Value> args = allOperands();
      SmallVector<Type> results;
      for (const Port &p : callee.outputs) {
        Shape s = p.shape;
        if (n.kind == OpKind::Map || (n.kind == OpKind::Scan && results.size() > 0))
          s.insert(s.begin(), n.ints[0]);
        results.push_back(tensorType(ctx, s, p.dtype));
      }
      Operation *op;
      if (n.kind == OpKind::Call)
        op = b.create<expr::CallOp>(loc, results, sym, args, callee.block, nullptr, nullptr);
      else {
        DenseBoolArrayAttr mapped;
        if (n.ints.size() > 1) {
          SmallVector<bool> flags(n.ints.begin() + 1, n.ints.end());
          mapped = b.getDenseBoolArrayAttr(flags);
        }
        if (n.kind == OpKind::Map)
          op = b.create<expr::MapOp>(loc, results, sym, n.ints[0], args, callee.block, mapped);
        else
          op = b.create<expr::ScanOp>(loc, results, sym, n.ints[0], args, callee.block, mapped);
      }
      return SmallVector<Value, 1>(op->getResults());
    }
    case OpKind::Jvp:
    case OpKind::Vjp: {
      const Function &callee = *n.callee;
      StringRef sym = symbolFor(callee);
      SmallVector<Value> args = allOperands();
      size_t nin = callee.inputs.size();
      SmallVector<bool> wrt(n.ints.begin(), n.ints.begin() + nin);
      SmallVector<Type> results;
      if (n.kind == OpKind::Jvp) {
        for (const Port &p : callee.outputs)
          results.push_back(tensorType(ctx, p.shape, p.dtype));
        return SmallVector<Value, 1>(
            b.create<expr::JvpOp>(loc, results, sym, args, wrt)->getResults());
      }
      SmallVector<bool> of(n.ints.begin() + nin, n.ints.end());
      for (size_t i = 0; i < nin; ++i)
        if (wrt[i])
          results.push_back(tensorType(ctx, callee.inputs[i].shape, callee.inputs[i].dtype));
      return SmallVector<Value, 1>(
          b.create<expr::VjpOp>(loc, results, sym, args, wrt, of)->getResults());
    }
    case OpKind::Result:
      // Call/Map nodes keep all results in their slot; pick one.
      return {resultOf(values, n)};
    }
    return {};
  }

  Value resultOf(const std::vector<SmallVector<Value, 1>> &values, const Node &n) {
    Value any = values[n.operands[0]][0];
    return any.getDefiningOp()->getResult(n.sub);
  }

  DenseElementsAttr constantAttr(RankedTensorType type, const Node &n) {
    Type e = type.getElementType();
    if (e.isF64())
      return DenseElementsAttr::get(type, ArrayRef<double>(n.values));
    if (e.isF32()) {
      std::vector<float> v(n.values.begin(), n.values.end());
      return DenseElementsAttr::get(type, ArrayRef<float>(v));
    }
    SmallVector<APInt> ints;
    unsigned width = e.getIntOrFloatBitWidth();
    for (int64_t v : n.ints)
      ints.push_back(APInt(width, static_cast<uint64_t>(v), width > 1));
    return DenseElementsAttr::get(type, ints);
  }
};

} // namespace

OwningOpRef<ModuleOp> buildExprModule(MLIRContext &ctx, const Function &root) {
  return buildExprModule(ctx, std::vector<const Function *>{&root});
}

OwningOpRef<ModuleOp> buildExprModule(MLIRContext &ctx,
                                      const std::vector<const Function *> &roots) {
  ctx.getOrLoadDialect<expr::ExprDialect>();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
  ModuleBuilder builder(ctx, *module);
  builder.reserveEntries(roots);
  for (const Function *fn : roots)
    builder.buildEntry(*fn);
  return module;
}

} // namespace scaly::trace
