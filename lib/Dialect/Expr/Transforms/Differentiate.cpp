//===- Differentiate.cpp - eliminate expr.jvp and expr.vjp ----------------===//
//
// Each `expr.jvp @f` / `expr.vjp @f` becomes a call of a generated
// derivative function of @f:
//
//  * forward (`@f_jvp_<wrt>`): f's inputs, then one tangent per wrt input ->
//    the tangents of f's results. Ops are cloned in order; after each, its
//    forward rule (DifferentiableOpInterface::jvp) builds its tangents.
//  * reverse (`@f_vjp_<wrt>_<of>`): f's inputs, then one cotangent per `of`
//    result -> the cotangents of the wrt inputs. The primal ops are cloned
//    first, then each op's reverse rule runs, last op first, adding up the
//    cotangents of values used more than once.
//
// With the unit attribute `exact_zeros` (the compressed sweeps of Jacobians
// and Hessians), products of tangents or cotangents are exact with zeros
// (Differentiator::scale): the function and every callee derivative it asks
// for are made in that mode, named with an `_exact` suffix.
//
// Calls, maps and scans inside @f ask for their callees' derivative
// functions, so derivatives stay calls and maps (and callees made once per
// flags). Derivative ops inside a function are eliminated before the
// function is differentiated, so derivatives of derivatives work.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include <map>
#include <set>

namespace scaly::expr {
#define GEN_PASS_DEF_DIFFERENTIATE
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

std::string flagString(ArrayRef<bool> flags) {
  std::string s;
  for (bool f : flags)
    s += f ? '1' : '0';
  return s;
}

class DerivativeMaker : public Differentiator {
public:
  DerivativeMaker(ModuleOp module, OpBuilder &builder)
      : Differentiator(builder, module.getLoc()), module(module), symbols(module) {}

  FuncOp jvpFunction(FuncOp f, ArrayRef<bool> wrt) override;
  FuncOp vjpFunction(FuncOp f, ArrayRef<bool> wrt, ArrayRef<bool> of) override;
  FuncOp newFunction(FuncOp near, StringRef name, TypeRange ins, ArrayRef<std::string> inNames,
                     TypeRange outs, ArrayRef<std::string> outNames) override {
    auto attrs = [&](ArrayRef<std::string> names) {
      SmallVector<Attribute> out;
      for (const std::string &n : names)
        out.push_back(b.getStringAttr(n));
      return out;
    };
    return makeFunction(near, name.str(), SmallVector<Type>(ins), attrs(inNames),
                       SmallVector<Type>(outs), attrs(outNames));
  }
  void fail(Operation *op, const Twine &why) override {
    if (!failed)
      op->emitOpError(why);
    failed = true;
  }

  /// Replace every expr.jvp / expr.vjp in `f` by a call (once per function).
  void eliminate(FuncOp f);
  bool failed = false;

private:
  ModuleOp module;
  SymbolTable symbols;
  std::map<std::string, FuncOp> made;
  std::set<Operation *> clean, eliminating, inProgress;

  /// A new empty function next to `f`, its entry block created.
  FuncOp makeFunction(FuncOp f, const std::string &name, ArrayRef<Type> ins,
                      ArrayRef<Attribute> inNames, ArrayRef<Type> outs,
                      ArrayRef<Attribute> outNames);
  /// Differentiates `op` in forward mode; records the tangents of its results.
  void forwardRule(Operation *op, DenseMap<Value, Value> &tangents);
  void reverseRule(Operation *op, DenseMap<Value, Value> &cotangents);
  bool enter(FuncOp f);
  static void dropDeadOps(FuncOp f);
};

FuncOp DerivativeMaker::makeFunction(FuncOp f, const std::string &name, ArrayRef<Type> ins,
                                    ArrayRef<Attribute> inNames, ArrayRef<Type> outs,
                                    ArrayRef<Attribute> outNames) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(f);
  auto g = b.create<FuncOp>(f.getLoc(), b.getStringAttr(name),
                            TypeAttr::get(b.getFunctionType(ins, outs)), b.getArrayAttr(inNames),
                            b.getArrayAttr(outNames), f.getBlockAttr(), ArrayAttr(), ArrayAttr(),
                            UnitAttr());
  symbols.insert(g); // renames on a clash
  Block *body = new Block();
  g.getBody().push_back(body);
  for (Type t : ins)
    body->addArgument(t, f.getLoc());
  return g;
}

bool DerivativeMaker::enter(FuncOp f) {
  if (inProgress.count(f) || eliminating.count(f)) {
    fail(f, "is recursive: its derivative would need itself");
    return false;
  }
  eliminate(f);
  return !failed;
}

void DerivativeMaker::forwardRule(Operation *op, DenseMap<Value, Value> &tangents) {
  SmallVector<Value> ts;
  bool any = false;
  for (Value v : op->getOperands()) {
    Value t = isFloat(v) ? tangents.lookup(v) : Value();
    ts.push_back(t);
    any |= bool(t);
  }
  if (!any || op->hasTrait<ZeroDerivative>() ||
      llvm::none_of(op->getResults(), [](Value r) { return isFloat(r); }))
    return;
  if (op->hasTrait<NotDifferentiable>())
    return fail(op, "is not differentiable yet: derivatives through it have no rule");
  auto rule = dyn_cast<DifferentiableOpInterface>(op);
  if (!rule)
    return fail(op, "has no derivative rule");
  loc = op->getLoc();
  SmallVector<Value> out = rule.jvp(*this, ts);
  for (auto [r, t] : llvm::zip(op->getResults(), out))
    if (t && isFloat(r))
      tangents[r] = t;
}

void DerivativeMaker::reverseRule(Operation *op, DenseMap<Value, Value> &cotangents) {
  SmallVector<Value> cs;
  bool any = false;
  for (Value r : op->getResults()) {
    Value c = cotangents.lookup(r);
    cs.push_back(c);
    any |= bool(c);
  }
  if (!any || op->hasTrait<ZeroDerivative>() ||
      llvm::none_of(op->getOperands(), [](Value v) { return isFloat(v); }))
    return;
  if (op->hasTrait<NotDifferentiable>())
    return fail(op, "is not differentiable yet: derivatives through it have no rule");
  auto rule = dyn_cast<DifferentiableOpInterface>(op);
  if (!rule)
    return fail(op, "has no derivative rule");
  loc = op->getLoc();
  SmallVector<Value> out = rule.vjp(*this, cs);
  for (auto [v, c] : llvm::zip(op->getOperands(), out))
    if (c && isFloat(v))
      cotangents[v] = add(cotangents.lookup(v), c);
}

FuncOp DerivativeMaker::jvpFunction(FuncOp f, ArrayRef<bool> wrt) {
  std::string mode = exactZeros ? "_exact" : "";
  std::string key = "jvp " + f.getSymName().str() + " " + flagString(wrt) + mode;
  if (auto it = made.find(key); it != made.end())
    return it->second;
  if (!enter(f))
    return nullptr;
  SmallVector<Type> ins(f.getArgumentTypes());
  SmallVector<Attribute> inNames(f.getArgNames().getValue());
  for (auto [i, on] : llvm::enumerate(wrt))
    if (on) {
      ins.push_back(f.getArgumentTypes()[i]);
      inNames.push_back(b.getStringAttr("d_" + cast<StringAttr>(f.getArgNames()[i]).str()));
    }
  SmallVector<Attribute> outNames;
  for (Attribute n : f.getResNames())
    outNames.push_back(b.getStringAttr("d_" + cast<StringAttr>(n).str()));
  FuncOp g = makeFunction(f, f.getSymName().str() + "_jvp_" + flagString(wrt) + mode, ins,
                         inNames, f.getResultTypes(), outNames);
  made[key] = g;
  inProgress.insert(f);

  OpBuilder::InsertionGuard guard(b);
  Block &body = g.getBody().front();
  b.setInsertionPointToEnd(&body);
  IRMapping primal;
  DenseMap<Value, Value> tangents;
  unsigned nin = f.getArgumentTypes().size(), k = nin;
  for (unsigned i = 0; i < nin; ++i) {
    primal.map(f.getBody().getArgument(i), body.getArgument(i));
    if (wrt[i])
      tangents[body.getArgument(i)] = body.getArgument(k++);
  }
  SmallVector<Value> results;
  for (Operation &op : f.getBody().front()) {
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      for (Value v : ret.getOperands()) {
        Value p = primal.lookup(v);
        results.push_back(orZeros(isFloat(p) ? tangents.lookup(p) : Value(), p.getType()));
      }
      break;
    }
    Operation *copy = b.clone(op, primal);
    forwardRule(copy, tangents);
    b.setInsertionPointToEnd(&body);
  }
  b.create<ReturnOp>(g.getLoc(), results);
  inProgress.erase(f);
  dropDeadOps(g);
  return g;
}

FuncOp DerivativeMaker::vjpFunction(FuncOp f, ArrayRef<bool> wrt, ArrayRef<bool> of) {
  std::string mode = exactZeros ? "_exact" : "";
  std::string key =
      "vjp " + f.getSymName().str() + " " + flagString(wrt) + " " + flagString(of) + mode;
  if (auto it = made.find(key); it != made.end())
    return it->second;
  if (!enter(f))
    return nullptr;
  SmallVector<Type> ins(f.getArgumentTypes()), outs;
  SmallVector<Attribute> inNames(f.getArgNames().getValue()), outNames;
  for (auto [j, on] : llvm::enumerate(of))
    if (on) {
      ins.push_back(f.getResultTypes()[j]);
      inNames.push_back(b.getStringAttr("adj_" + cast<StringAttr>(f.getResNames()[j]).str()));
    }
  for (auto [i, on] : llvm::enumerate(wrt))
    if (on) {
      outs.push_back(f.getArgumentTypes()[i]);
      outNames.push_back(b.getStringAttr("adj_" + cast<StringAttr>(f.getArgNames()[i]).str()));
    }
  FuncOp g = makeFunction(f, f.getSymName().str() + "_vjp_" + flagString(wrt) + "_" +
                                flagString(of) + mode,
                         ins, inNames, outs, outNames);
  made[key] = g;
  inProgress.insert(f);

  OpBuilder::InsertionGuard guard(b);
  Block &body = g.getBody().front();
  b.setInsertionPointToEnd(&body);
  IRMapping primal;
  unsigned nin = f.getArgumentTypes().size();
  for (unsigned i = 0; i < nin; ++i)
    primal.map(f.getBody().getArgument(i), body.getArgument(i));
  SmallVector<Operation *> copies;
  ReturnOp ret;
  for (Operation &op : f.getBody().front()) {
    if ((ret = dyn_cast<ReturnOp>(op)))
      break;
    copies.push_back(b.clone(op, primal));
  }
  DenseMap<Value, Value> cotangents;
  unsigned k = nin;
  for (auto [j, on] : llvm::enumerate(of))
    if (on) {
      Value p = primal.lookup(ret.getOperand(j));
      if (isFloat(p))
        cotangents[p] = add(cotangents.lookup(p), body.getArgument(k));
      ++k;
    }
  for (Operation *op : llvm::reverse(copies)) {
    reverseRule(op, cotangents);
    b.setInsertionPointToEnd(&body);
  }
  SmallVector<Value> results;
  for (auto [i, on] : llvm::enumerate(wrt))
    if (on)
      results.push_back(orZeros(cotangents.lookup(body.getArgument(i)),
                                body.getArgument(i).getType()));
  b.create<ReturnOp>(g.getLoc(), results);
  inProgress.erase(f);
  dropDeadOps(g);
  return g;
}

void DerivativeMaker::eliminate(FuncOp f) {
  if (clean.count(f) || eliminating.count(f))
    return;
  eliminating.insert(f);
  SmallVector<Operation *> ops;
  f.walk([&](Operation *op) {
    if (isa<JvpOp, VjpOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto callee = SymbolTable::lookupNearestSymbolFrom<FuncOp>(
        op, op->getAttrOfType<FlatSymbolRefAttr>("callee"));
    if (!callee)
      return fail(op, "differentiates an unknown function");
    // The op's mode, for its function and the callee derivatives it asks for.
    bool outer = exactZeros;
    exactZeros = op->hasAttr("exact_zeros");
    FuncOp g = isa<JvpOp>(op)
                   ? jvpFunction(callee, cast<JvpOp>(op).getWrt())
                   : vjpFunction(callee, cast<VjpOp>(op).getWrt(), cast<VjpOp>(op).getOf());
    exactZeros = outer;
    if (!g)
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    auto call = b.create<CallOp>(op->getLoc(), op->getResultTypes(),
                                 FlatSymbolRefAttr::get(g.getSymNameAttr()), op->getOperands(),
                                 callee.getBlockAttr(), nullptr, nullptr);
    op->replaceAllUsesWith(call.getResults());
    op->erase();
  }
  eliminating.erase(f);
  clean.insert(f);
}

void DerivativeMaker::dropDeadOps(FuncOp f) {
  SmallVector<Operation *> ops;
  for (Operation &op : f.getBody().front())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() && isPure(op) && !op->hasTrait<OpTrait::IsTerminator>())
      op->erase();
}

struct DifferentiatePass : scaly::expr::impl::DifferentiateBase<DifferentiatePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(module.getContext());
    DerivativeMaker maker(module, builder);
    for (FuncOp f : llvm::to_vector(module.getOps<FuncOp>())) {
      maker.eliminate(f);
      if (maker.failed)
        return signalPassFailure();
    }
    // The marks of masked cotangents served the rules only.
    module.walk([](SelectOp s) { s->removeAttr(Differentiator::kMaskAttr); });
  }
};

} // namespace
