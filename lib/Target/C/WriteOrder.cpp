//===- WriteOrder.cpp - which writes lie between a read and its use ------===//

#include "WriteOrder.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"

#include <algorithm>

using namespace mlir;
using namespace scaly;

std::optional<int64_t> c::constantIndex(Value v) {
  if (auto k = v.getDefiningOp<emitc::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(k.getValue()))
      return i.getValue().getSExtValue();
  return std::nullopt;
}

c::WriteOrder::Buffer c::WriteOrder::bufferOf(Value ptr) {
  while (Operation *def = ptr.getDefiningOp()) {
    if (isa<emitc::AddOp, emitc::CastOp>(def)) {
      ptr = def->getOperand(0);
      continue;
    }
    if (auto sub = dyn_cast<emitc::SubscriptOp>(def))
      if (auto k = constantIndex(sub.getIndices()[0]))
        return {sub.getValue(), *k};
    break;
  }
  return {ptr, -1};
}

void c::WriteOrder::number(Block &block) {
  int64_t epoch = 0;
  for (Operation &op : block) {
    epochs[&op] = epoch;
    if (auto assign = dyn_cast<emitc::AssignOp>(op)) {
      Value var = assign.getVar();
      // A local variable (a loop's carried value) is no buffer: no read of
      // memory depends on it. (Its own reads are ordered by the conversion,
      // which assigns carried values only at the end of a loop body, through
      // temporaries where needed.)
      if (var.getDefiningOp<emitc::VariableOp>())
        continue;
      std::optional<Buffer> target;
      if (auto sub = var.getDefiningOp<emitc::SubscriptOp>())
        target = bufferOf(sub.getValue());
      if (target)
        bufferWrites[{&block, *target}].push_back(epoch);
      else
        anyWrites[&block].push_back(epoch);
      ++epoch;
    } else if (isa<emitc::ForOp, emitc::IfOp, cdecl::LoopOp>(op) ||
               (isa<emitc::CallOpaqueOp, emitc::CallOp>(op) && op.getNumResults() == 0)) {
      anyWrites[&block].push_back(epoch);
      ++epoch;
    }
  }
}

bool c::WriteOrder::writtenBetween(Block *block, int64_t from, int64_t to, Buffer buffer) const {
  auto within = [&](const std::vector<int64_t> &epochs) {
    auto it = std::lower_bound(epochs.begin(), epochs.end(), from);
    return it != epochs.end() && *it < to;
  };
  if (auto it = anyWrites.find(block); it != anyWrites.end() && within(it->second))
    return true;
  auto it = bufferWrites.find({block, buffer});
  return it != bufferWrites.end() && within(it->second);
}

void c::WriteOrder::clear() {
  anyWrites.clear();
  bufferWrites.clear();
}
