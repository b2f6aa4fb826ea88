//===- CountedLoop.cpp - scf.for loops of constant bounds -----------------===//

#include "scaly/Dialect/Program/CountedLoop.h"

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace scaly::prog {

std::optional<CountedBounds> countedBounds(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step)
    return std::nullopt;
  return CountedBounds{*lower, *upper, *step};
}

CountedBounds boundsOf(scf::ForOp loop) {
  std::optional<CountedBounds> bounds = countedBounds(loop);
  assert(bounds && "a program loop has constant bounds");
  return *bounds;
}

scf::ForOp createCountedLoop(OpBuilder &b, Location loc, int64_t lower, int64_t upper,
                             int64_t step, StringRef name, ValueRange inits) {
  auto constant = [&](int64_t k) {
    return b.create<arith::ConstantOp>(loc, b.getI64IntegerAttr(k)).getResult();
  };
  Value lo = constant(lower), hi = constant(upper), by = constant(step);
  auto loop = b.create<scf::ForOp>(
      loc, lo, hi, by, inits, [](OpBuilder &nested, Location at, Value, ValueRange carried) {
        nested.create<scf::YieldOp>(at, carried);
      });
  if (!name.empty())
    loop->setAttr(kLoopNameAttr, b.getStringAttr(name));
  return loop;
}

scf::ParallelOp createNest(OpBuilder &b, Location loc, ArrayRef<NestDim> dims,
                           SmallVectorImpl<Value> &counters) {
  SmallVector<Value> lower, upper, step;
  SmallVector<Attribute> names;
  for (const NestDim &d : dims) {
    lower.push_back(b.create<arith::ConstantIndexOp>(loc, d.lower));
    upper.push_back(b.create<arith::ConstantIndexOp>(loc, d.upper));
    step.push_back(b.create<arith::ConstantIndexOp>(loc, d.step));
    names.push_back(b.getStringAttr(d.name));
  }
  auto nest = b.create<scf::ParallelOp>(loc, lower, upper, step);
  nest->setAttr(kNestNamesAttr, b.getArrayAttr(names));
  b.setInsertionPointToStart(nest.getBody());
  for (Value iv : nest.getInductionVars())
    counters.push_back(b.create<arith::IndexCastOp>(loc, b.getI64Type(), iv));
  return nest;
}

FailureOr<SmallVector<NestDim>> nestDims(scf::ParallelOp nest) {
  Attribute attr = nest->getAttr(kNestNamesAttr);
  auto names = dyn_cast_or_null<ArrayAttr>(attr);
  if (attr && (!names || names.size() != nest.getNumLoops() ||
               !llvm::all_of(names, [](Attribute a) { return isa<StringAttr>(a); })))
    return nest.emitOpError("has ")
           << kNestNamesAttr << " " << attr << ": expected an array of one string per dimension ("
           << nest.getNumLoops() << ")";
  SmallVector<NestDim> dims;
  for (unsigned d = 0; d < nest.getNumLoops(); ++d) {
    std::optional<int64_t> lower = getConstantIntValue(nest.getLowerBound()[d]);
    std::optional<int64_t> upper = getConstantIntValue(nest.getUpperBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(nest.getStep()[d]);
    if (!lower || !upper || !step)
      return nest.emitOpError("has a bound of dimension ")
             << d << " that is not a constant: the program dialect's loops have constant bounds";
    StringRef name = names ? cast<StringAttr>(names[d]).getValue() : StringRef();
    dims.push_back({*lower, *upper, *step, name});
  }
  return dims;
}

Value counterCast(Value iv) {
  auto cast = iv.hasOneUse() ? dyn_cast<arith::IndexCastOp>(*iv.getUsers().begin())
                             : arith::IndexCastOp();
  return cast && cast.getType().isInteger(64) ? cast.getResult() : Value();
}

std::pair<StoreOp, OffsetOp> finalStore(Block *body) {
  auto store = dyn_cast_or_null<StoreOp>(body->getTerminator()->getPrevNode());
  return {store, store ? store.getPtr().getDefiningOp<OffsetOp>() : OffsetOp()};
}

bool onlyComputesOrReads(Operation *op) {
  if (op->getNumRegions() > 0)
    return false;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect());
  });
}

FailureOr<SmallVector<Operation *>>
elementOps(Block *body, Value element, ArrayRef<Value> counters, Operation *store, Value written,
           function_ref<InFlightDiagnostic(const Twine &)> refuse) {
  auto isCounter = [&](Operation *op) {
    return op->getNumResults() == 1 && llvm::is_contained(counters, op->getResult(0));
  };
  llvm::SetVector<Operation *> needed;
  SmallVector<Value> work{element};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || isCounter(def) || !needed.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  Value array = rootOf(written);
  SmallVector<Operation *> ops;
  for (Operation &op : body->without_terminator()) {
    if (needed.contains(&op)) {
      if (!onlyComputesOrReads(&op))
        return refuse(Twine("the nest's element is computed with '") +
                      op.getName().getStringRef() + "', which writes memory or holds a region");
      if (auto load = dyn_cast<LoadOp>(&op); load && rootOf(load.getPtr()) == array)
        return refuse("the nest's element reads the array the nest writes");
      ops.push_back(&op);
    } else if (&op != store && !isCounter(&op) && !onlyComputesOrReads(&op)) {
      return refuse(Twine("the nest holds '") + op.getName().getStringRef() +
                    "', which its element does not need");
    }
  }
  return ops;
}

void cloneElementOp(OpBuilder &b, Operation *op, IRMapping &map, IRMapping &shared,
                    Operation *nest) {
  bool fixed = isa<LoadOp>(op) && llvm::none_of(op->getOperands(), [&](Value v) {
                 return nest->isAncestor(v.getParentBlock()->getParentOp());
               });
  if (!fixed) {
    b.clone(*op, map);
    return;
  }
  Value loaded = op->getResult(0);
  if (!shared.contains(loaded))
    shared.map(loaded, b.clone(*op)->getResult(0));
  map.map(loaded, shared.lookup(loaded));
}

void eraseNest(scf::ParallelOp nest) {
  llvm::SmallSetVector<Operation *, 8> bounds;
  for (Value v : nest.getOperands())
    if (Operation *def = v.getDefiningOp())
      bounds.insert(def);
  nest.erase();
  for (Operation *def : bounds)
    if (def->use_empty() && isa<arith::ConstantOp>(def))
      def->erase();
}

} // namespace scaly::prog
