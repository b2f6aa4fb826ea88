//===- Placement.cpp - where the lowering puts values ----------------------===//
//
// The lowering reads scaly-plan-placement's plan (expr.place on each op):
// a value planned into an output or a loop's yielded slice is produced there
// (a pointer at its offset, made once), one planned into the workspace gets
// a window of its own; a carried value's next value is built where expr.next
// says. Spills of operands that must be read from memory (inMemory) are
// still decided here, by what the lowering has stored so far.
//
//===----------------------------------------------------------------------===//

#include "ProcLowering.h"

namespace scaly::lowering {

LogicalResult ProcLowering::checkPlanned(ex::FuncOp func) {
  if (!ex::scalarizeLimitOf(func))
    return func.emitOpError("has no scalarize limit (expr.scalarize_limit): run "
                            "scaly-plan-placement before scaly-lower-to-program");
  WalkResult walk = func.getBody().walk([](Operation *op) {
    if (op->hasAttr(ex::kFusedAttr) && !isa<ex::FusedOp>(op->getParentOp())) {
      op->emitOpError("is marked scaly.fused but is not in an expr.fused: run "
                      "scaly-form-fused-ops before scaly-lower-to-program");
      return WalkResult::interrupt();
    }
    if (!ex::needsPlacement(op))
      return WalkResult::advance();
    if (!op->hasAttr(ex::kPlaceAttr)) {
      op->emitOpError("has no placement plan (expr.place): run scaly-plan-placement before "
                      "scaly-lower-to-program");
      return WalkResult::interrupt();
    }
    auto loop = dyn_cast<ex::LoopOp>(op);
    if (loop && loop.getNumCarried() > 0 && !loop->hasAttr(ex::kNextAttr)) {
      op->emitOpError("has no plan for its next values (expr.next): run scaly-plan-placement "
                      "before scaly-lower-to-program");
      return WalkResult::interrupt();
    }
    return failed(checkYieldedIntoWindow(op)) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ProcLowering::checkYieldedIntoWindow(Operation *op) {
  auto loop = dyn_cast_or_null<ex::LoopOp>(op->getParentOp());
  if (!loop)
    return success();
  for (OpResult r : op->getResults()) {
    ex::PlaceAttr place = ex::placeOf(r);
    if (!place || place.getKind() != ex::PlaceKind::yield ||
        place.getIndex() >= loop.getNumCarried() ||
        ex::nextInWindow(loop, static_cast<unsigned>(place.getIndex())))
      continue;
    return op->emitOpError("result #")
           << r.getResultNumber() << " is planned into the next value of carried value "
           << place.getIndex() << " (" << place
           << "), which the loop's expr.next builds in registers (rerun scaly-plan-placement)";
  }
  return success();
}

Block *ProcLowering::scopeBlockOf(Value v) {
  Block *block = v.getParentBlock();
  while (isa<ex::FusedOp>(block->getParentOp()))
    block = block->getParentOp()->getBlock();
  return block;
}

Value ProcLowering::destinationOf(Value v) {
  ex::PlaceAttr place = ex::placeOf(v);
  if (!place || !place.isDestination())
    return {};
  Value base;
  auto index = static_cast<size_t>(place.getIndex());
  if (place.getKind() == ex::PlaceKind::output) {
    base = index < outputs.size() ? outputs[index] : Value();
  } else {
    for (const Scope &s : scopes)
      if (s.exprBlock == scopeBlockOf(v) && index < s.yieldMemory.size())
        base = s.yieldMemory[index];
  }
  if (!base || place.getOffset() == 0)
    return base;
  Value &ptr = placedPointers[{base, place.getOffset()}];
  if (!ptr)
    ptr = b.create<pg::OffsetOp>(v.getLoc(), base.getType(), base, Value(),
                                 b.getI64IntegerAttr(1), b.getI64IntegerAttr(place.getOffset()));
  return ptr;
}

Value ProcLowering::inMemory(Value v, Location loc) {
  const Stored &s = values[v];
  if (s.inMemory())
    return s.ptr;
  OpBuilder::InsertionGuard guard(b);
  Block *defined = scopeBlockOf(v);
  bool placed = false;
  for (size_t k = 0; k + 1 < scopes.size(); ++k)
    if (scopes[k].exprBlock == defined) {
      b.setInsertionPoint(scopes[k + 1].openedBy);
      placed = true;
      break;
    }
  // Never inside a loop nest opened for a structured op (a small array read
  // at computed offsets): written once before the nest, it also dominates
  // every later use.
  if (!placed) {
    Operation *outermost = nullptr;
    for (Operation *p = b.getInsertionBlock()->getParentOp();
         p && isa<scf::ForOp, scf::ParallelOp>(p); p = p->getParentOp()) {
      if (llvm::any_of(scopes, [&](const Scope &s) { return s.openedBy == p; }))
        break;
      outermost = p;
    }
    if (outermost)
      b.setInsertionPoint(outermost);
  }
  Value window = newWindow(v.getType(), loc);
  writeTo(v, window, loc);
  values[v] = Stored{{}, window};
  return window;
}

Value ProcLowering::newWindow(Type tensorType, Location loc) {
  auto ptrType = pg::PtrType::get(b.getContext(), elementOf(tensorType), false);
  return b.create<pg::WindowOp>(loc, ptrType, workspace,
                                b.getI64IntegerAttr(ex::numElements(tensorType)),
                                b.getI64IntegerAttr(-1));
}

Value ProcLowering::resultMemory(Value result, Location loc) {
  if (Value dst = destinationOf(result))
    return dst;
  ex::PlaceAttr place = ex::placeOf(result);
  if (!place || place.getKind() != ex::PlaceKind::workspace) {
    auto r = cast<OpResult>(result);
    InFlightDiagnostic diag = r.getOwner()->emitOpError("result #")
                              << r.getResultNumber() << " needs memory, but its plan ";
    if (place)
      diag << place;
    else
      diag << "(none)";
    diag << " gives it none (rerun scaly-plan-placement)";
    planBroken = true;
  }
  return newWindow(result.getType(), loc);
}

} // namespace scaly::lowering
