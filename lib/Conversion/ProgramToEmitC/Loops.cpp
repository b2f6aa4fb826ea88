//===- Loops.cpp - C variables for the carried values of scf.for ----------===//

#include "Loops.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace scaly;

namespace {

/// `v` as a value of C type `t` (a lane vector read through its memory type
/// is cast to its value type).
Value converted(OpBuilder &b, Location loc, Value v, Type t) {
  return v.getType() == t ? v : b.create<emitc::CastOp>(loc, t, v).getResult();
}

/// `T v = init;`: a variable without initializer and its first assignment,
/// which the C printer prints as one declaration.
Value declare(OpBuilder &b, Location loc, Type t, Value init) {
  // The cast first: nothing may come between the variable and its first
  // assignment, or they print as two statements.
  Value value = converted(b, loc, init, t);
  Value var = b.create<emitc::VariableOp>(loc, t, emitc::OpaqueAttr::get(b.getContext(), ""));
  b.create<emitc::AssignOp>(loc, var, value);
  return var;
}

/// Whether `v` may read one of `vars` where it is printed: it is one of them,
/// or an op of `body` computes it from one (the printer may print such an op
/// at its use). Conservative: an op the printer names is evaluated where it
/// is defined, before any assignment, but counts here too.
bool mayRead(Value v, const llvm::DenseSet<Value> &vars, Block *body) {
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work{v};
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (vars.contains(x))
      return true;
    if (Operation *def = x.getDefiningOp(); def && def->getBlock() == body)
      work.append(def->operand_begin(), def->operand_end());
  }
  return false;
}

} // namespace

SmallVector<bool> c::liveCarried(scf::ForOp loop) {
  unsigned n = loop.getNumRegionIterArgs();
  SmallVector<bool> live(n, false);
  for (unsigned k = 0; k < n; ++k)
    live[k] = !loop.getResult(k).use_empty();
  Block *body = loop.getBody();
  scf::YieldOp yield = prog::yieldOf(loop);
  // A body op is needed when it runs for its effects (it holds a region,
  // writes memory or its effects are unknown) or a needed op (or the
  // yield of a live carried value) uses one of its results; a carried value
  // is live when it is used after the loop or read by a needed op or such a
  // yield. Unneeded ops are not printed, so their reads make no variable.
  llvm::DenseSet<Operation *> needed;
  auto readBy = [&](Value v) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = body->findAncestorOpInBlock(*use.getOwner());
      if (!user)
        continue;
      if (user == yield ? live[use.getOperandNumber()] : needed.contains(user))
        return true;
    }
    return false;
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Users come after their operands' definitions: walking backwards marks
    // a chain ending at the yield in one pass.
    for (Operation &op : llvm::reverse(body->without_terminator()))
      if (!needed.contains(&op) &&
          (!prog::onlyComputesOrReads(&op) || llvm::any_of(op.getResults(), readBy))) {
        needed.insert(&op);
        changed = true;
      }
    for (auto [k, arg] : llvm::enumerate(loop.getRegionIterArgs()))
      if (!live[k] && readBy(arg))
        live[k] = changed = true;
  }
  return live;
}

SmallVector<Value> c::declareCarried(OpBuilder &b, Location loc, ArrayRef<Type> types,
                                     ArrayRef<Value> inits) {
  SmallVector<Value> vars;
  for (auto [type, init] : llvm::zip(types, inits))
    vars.push_back(init ? declare(b, loc, type, init) : Value());
  return vars;
}

void c::assignCarried(OpBuilder &b, Location loc, ArrayRef<Value> vars, ArrayRef<Value> next,
                      Block *body) {
  // In list order, a value that may read a variable assigned earlier in the
  // list goes through a temporary, declared (and so computed) before the
  // first assignment.
  SmallVector<Value> value(vars.size());
  llvm::DenseSet<Value> assigned;
  for (auto [k, var] : llvm::enumerate(vars)) {
    if (!var || next[k] == var)
      continue; // nothing reads it, or it keeps its value
    value[k] = mayRead(next[k], assigned, body) ? declare(b, loc, var.getType(), next[k]) : next[k];
    assigned.insert(var);
  }
  for (auto [k, var] : llvm::enumerate(vars))
    if (value[k])
      b.create<emitc::AssignOp>(loc, var, converted(b, loc, value[k], var.getType()));
}
