//===- SplitLongProcs.cpp - keep every C function short -------------------===//
//
// C compilers take superlinear time on one long run of straight-line code:
// LLVM's machine scheduler and two-address pass, GCC's points-to analysis.
// Measured here, 30,000 statements of `v = v * 1.0001 + 0.5` in one function
// took clang -O2 62 s and gcc -O2 109 s; cut into noinline functions of
// 2,000 statements they took 4.5 s and 3.8 s, and ten times as many took ten
// times as long.
//
// This pass cuts the top-level block of a procedure with more than `max-ops`
// operations (nested ones counted) into consecutive parts. Each part becomes
// a procedure `<name>_part<k>` (marked `scaly.outlined`, printed noinline)
// taking the parent's inputs and outputs, one carried-values buffer per
// element type, and the workspace; the parent calls the parts in order.
//
// A value defined in one part and used in a later one is stored by its part
// into a slot of the carried buffer (a window of the parent's workspace) and
// loaded by the parts that use it; a slot is reused once its value is dead.
// Constants, pointer offsets, tables and nulls are recomputed in each part
// instead. A cut is only made where every value crossing it is a scalar of a
// storable type (f64, f32, i64, i32) or recomputable: a lane vector, an i1 or
// a workspace window live across a point moves the cut further on.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

#include <map>

namespace scaly::prog {
#define GEN_PASS_DEF_SPLITLONGPROCS
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

constexpr const char *kOutlinedAttr = "scaly.outlined";

/// Computed again where needed rather than carried: no memory effects, no
/// regions, and operands that are themselves recomputable or arguments.
class Recomputable {
public:
  bool operator()(Value v) {
    Operation *op = v.getDefiningOp();
    if (!op)
      return true; // a block argument of the procedure
    auto [it, inserted] = memo.try_emplace(op, false);
    if (!inserted)
      return it->second;
    bool ok = isa<arith::ConstantOp, OffsetOp, TableOp, NullOp>(op) &&
              llvm::all_of(op->getOperands(), [&](Value operand) { return (*this)(operand); });
    memo[op] = ok;
    return ok;
  }

private:
  DenseMap<Operation *, bool> memo;
};

bool storable(Type t) { return t.isF64() || t.isF32() || t.isInteger(64) || t.isInteger(32); }

/// The type of a carried buffer's elements, as an index into kCarriedTypes.
int carriedKind(Type t) {
  if (t.isF64())
    return 0;
  if (t.isF32())
    return 1;
  if (t.isInteger(64))
    return 2;
  return 3;
}
constexpr int kCarriedKinds = 4;

struct Part {
  size_t begin, end; // top-level operations [begin, end)
};

/// A value computed in one part and used in a later one.
struct Carried {
  Value value;
  size_t from, to; // defined in part `from`, last used in part `to`
  int kind;        // which carried buffer (see carriedKind)
  int64_t slot;    // its element in that buffer
};

struct SplitLongProcsPass : scaly::prog::impl::SplitLongProcsBase<SplitLongProcsPass> {
  using SplitLongProcsBase::SplitLongProcsBase;

  void runOnOperation() override {
    if (maxOps < 1) {
      getOperation().emitError("scaly-split-long-procs: max-ops must be at least 1, got ")
          << static_cast<int64_t>(maxOps);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<ProcOp> procs(module.getOps<ProcOp>());
    for (ProcOp proc : procs)
      split(proc, symbols);
  }

  void split(ProcOp proc, SymbolTable &symbols) {
    Block &body = proc.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    SmallVector<int64_t> weight;
    int64_t total = 0;
    for (Operation *op : ops) {
      int64_t w = 0;
      op->walk([&](Operation *) { ++w; });
      weight.push_back(w);
      total += w;
    }
    if (total <= maxOps)
      return;

    // Where each top-level value is last used, at top level (a use nested in
    // a loop counts at the loop).
    DenseMap<Operation *, size_t> position;
    for (auto [i, op] : llvm::enumerate(ops))
      position[op] = i;
    auto lastUse = [&](Value v, size_t def) {
      size_t last = def;
      for (Operation *user : v.getUsers())
        if (Operation *top = body.findAncestorOpInBlock(*user); top && position.count(top))
          last = std::max(last, position[top]);
      return last;
    };
    Recomputable recomputable;
    DenseMap<Value, size_t> last;
    // Values that forbid a cut while live: neither storable nor recomputable.
    std::vector<SmallVector<Value>> endsAt(ops.size());
    int64_t blocking = 0;
    SmallVector<Part> parts;
    size_t begin = 0;
    int64_t accumulated = 0;
    DenseSet<Value> blockingValues;
    for (size_t i = 0; i < ops.size(); ++i) {
      for (Value v : ops[i]->getResults()) {
        size_t l = lastUse(v, i);
        last[v] = l;
        if (l > i) {
          endsAt[l].push_back(v);
          if (!storable(v.getType()) && !recomputable(v)) {
            ++blocking;
            blockingValues.insert(v);
          }
        }
      }
      for (Value v : endsAt[i])
        if (blockingValues.erase(v))
          --blocking;
      accumulated += weight[i];
      if (accumulated >= maxOps && blocking == 0 && i + 1 < ops.size()) {
        parts.push_back({begin, i + 1});
        begin = i + 1;
        accumulated = 0;
      }
    }
    if (parts.empty())
      return; // no point where only carriable values are live
    parts.push_back({begin, ops.size()});

    // Part of each top-level operation; the values that cross a cut, with
    // the part of their last use.
    SmallVector<size_t> partOf(ops.size());
    for (auto [k, part] : llvm::enumerate(parts))
      for (size_t i = part.begin; i < part.end; ++i)
        partOf[i] = k;
    std::vector<Carried> carried;
    for (size_t i = 0; i < ops.size(); ++i)
      for (Value v : ops[i]->getResults())
        if (partOf[last[v]] > partOf[i] && !recomputable(v))
          carried.push_back({v, partOf[i], partOf[last[v]], carriedKind(v.getType()), -1});

    // Slots: a value holds its slot from its part's end to its last part's
    // start (parts load what they carry in before storing what they carry
    // out), so a slot freed at part k can take a value defined in part k.
    int64_t slots[kCarriedKinds] = {0, 0, 0, 0};
    std::vector<SmallVector<int64_t>> freeSlots(kCarriedKinds);
    std::multimap<size_t, const Carried *> releaseAt;
    for (size_t k = 0, c = 0; k < parts.size(); ++k) {
      for (auto it = releaseAt.begin(); it != releaseAt.end() && it->first <= k;) {
        freeSlots[it->second->kind].push_back(it->second->slot);
        it = releaseAt.erase(it);
      }
      for (; c < carried.size() && carried[c].from == k; ++c) {
        Carried &value = carried[c];
        auto &free = freeSlots[value.kind];
        value.slot = free.empty() ? slots[value.kind]++ : free.pop_back_val();
        releaseAt.insert({value.to, &value});
      }
    }
    DenseMap<Value, const Carried *> carriedOf;
    for (const Carried &value : carried)
      carriedOf[value.value] = &value;

    MLIRContext *ctx = proc.getContext();
    Type elementTypes[kCarriedKinds] = {Float64Type::get(ctx), Float32Type::get(ctx),
                                        IntegerType::get(ctx, 64), IntegerType::get(ctx, 32)};
    const char *bufferNames[kCarriedKinds] = {"carried", "carried_f32", "carried_i64",
                                              "carried_i32"};

    // The parts' signature: the parent's inputs and outputs, the carried
    // buffers, the workspace.
    unsigned numInputs = proc.getNumInputs(), numOutputs = proc.getNumOutputs();
    ArrayRef<Type> parentTypes = proc.getArgumentTypes();
    SmallVector<Type> types(parentTypes.begin(), parentTypes.end() - 1);
    SmallVector<Attribute> names(proc.getArgNames().begin(), proc.getArgNames().end() - 1);
    SmallVector<int64_t> outputSizes(proc.getOutputSizes());
    llvm::StringSet<> taken;
    for (Attribute name : proc.getArgNames())
      taken.insert(cast<StringAttr>(name).getValue());
    SmallVector<int> kinds;
    for (int kind = 0; kind < kCarriedKinds; ++kind) {
      if (slots[kind] == 0)
        continue;
      kinds.push_back(kind);
      types.push_back(PtrType::get(ctx, elementTypes[kind], false));
      std::string name = bufferNames[kind];
      while (taken.count(name))
        name += "_";
      taken.insert(name);
      names.push_back(StringAttr::get(ctx, name));
      outputSizes.push_back(slots[kind]);
    }
    types.push_back(parentTypes.back());
    names.push_back(proc.getArgNames()[proc.getArgNames().size() - 1]);
    auto type = FunctionType::get(ctx, types, {});
    auto bufferArg = [&](Block *block, int kind) {
      unsigned index = numInputs + numOutputs;
      for (int k : kinds) {
        if (k == kind)
          return block->getArgument(index);
        ++index;
      }
      llvm_unreachable("a carried value of a kind without a buffer");
    };

    // The parent: its carried buffers, then one call per part.
    OpBuilder b(proc.getContext());
    b.setInsertionPointToStart(&body);
    Location loc = proc.getLoc();
    Value workspace = proc.getWorkspaceArg();
    SmallVector<Value> buffers;
    for (int kind : kinds)
      buffers.push_back(b.create<WindowOp>(loc, PtrType::get(ctx, elementTypes[kind], false),
                                           workspace, b.getI64IntegerAttr(slots[kind]),
                                           b.getI64IntegerAttr(-1)));
    SmallVector<Value> callOperands(body.getArguments().begin(),
                                    body.getArguments().begin() + numInputs + numOutputs);
    callOperands.append(buffers.begin(), buffers.end());
    callOperands.push_back(workspace);

    SmallVector<ProcOp> outlinedParts;
    for (auto [k, part] : llvm::enumerate(parts)) {
      std::string name = (proc.getSymName() + "_part" + Twine(k)).str();
      while (symbols.lookup(name))
        name += "_";
      OpBuilder mb(proc);
      auto outlined = mb.create<ProcOp>(ops[part.begin]->getLoc(), name, type,
                                        mb.getArrayAttr(names),
                                        mb.getDenseI64ArrayAttr(proc.getInputSizes()),
                                        mb.getDenseI64ArrayAttr(outputSizes), false, 0,
                                        nullptr, nullptr);
      outlined->setAttr(kOutlinedAttr, mb.getUnitAttr());
      symbols.insert(outlined);
      Block *block = new Block();
      outlined.getBody().push_back(block);
      for (Type t : types)
        block->addArgument(t, loc);
      fill(block, ops, part, k, body, numInputs + numOutputs, carriedOf, recomputable,
           [&](int kind) { return bufferArg(block, kind); });
      outlinedParts.push_back(outlined);
    }
    // Once every part holds its ops (a later part's uses of an earlier
    // part's value now read the load or the copy it made), each part loses
    // what only later parts used, then the ports it does not use, and the
    // parent calls the parts in order.
    OpBuilder cb(body.getTerminator());
    for (ProcOp outlined : outlinedParts) {
      // A recomputable value made in a part for later parts only (which
      // recompute it themselves) is dead there: C would warn of it.
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(outlined.getBody().front())))
        if (isOpTriviallyDead(&op))
          op.erase();
      SmallVector<Value> operands = dropUnusedPorts(outlined, numInputs, callOperands);
      cb.create<CallOp>(outlined.getLoc(), FlatSymbolRefAttr::get(ctx, outlined.getSymName()),
                        operands, nullptr, nullptr);
    }
  }

  /// Removes the inputs, outputs and carried buffers `part` does not use
  /// (the C would warn of unused parameters); returns the operands of a call
  /// to it, `all` being those of a call with every port.
  SmallVector<Value> dropUnusedPorts(ProcOp part, unsigned numInputs, ArrayRef<Value> all) {
    Block &block = part.getBody().front();
    unsigned ports = block.getNumArguments() - 1; // the workspace stays
    llvm::BitVector unused(block.getNumArguments());
    SmallVector<Type> types;
    SmallVector<Attribute> names;
    SmallVector<int64_t> inputSizes, outputSizes;
    SmallVector<Value> operands;
    ArrayRef<int64_t> oldIn = part.getInputSizes(), oldOut = part.getOutputSizes();
    for (unsigned i = 0; i <= ports; ++i) {
      if (i < ports && block.getArgument(i).use_empty()) {
        unused.set(i);
        continue;
      }
      types.push_back(block.getArgument(i).getType());
      names.push_back(part.getArgNames()[i]);
      operands.push_back(all[i]);
      if (i < numInputs)
        inputSizes.push_back(oldIn[i]);
      else if (i < ports)
        outputSizes.push_back(oldOut[i - numInputs]);
    }
    block.eraseArguments(unused);
    Builder b(part.getContext());
    part.setFunctionTypeAttr(TypeAttr::get(b.getFunctionType(types, {})));
    part.setArgNamesAttr(b.getArrayAttr(names));
    part.setInputSizes(inputSizes);
    part.setOutputSizes(outputSizes);
    return operands;
  }

  /// Fills `block` with part `k`: loads of the values it carries in,
  /// recomputed values, its operations (moved from the parent, their
  /// operands from outside the part replaced), stores of the values it
  /// carries out, and the return. Earlier parts are filled already; later
  /// parts still use this part's values where they are, until they are
  /// filled in turn. Moving rather than cloning: cloning a
  /// Jacobian's 21,000 operations and erasing the originals was three
  /// quarters of the pass.
  template <typename BufferOf>
  void fill(Block *block, ArrayRef<Operation *> ops, Part part, size_t k, Block &parentBody,
            unsigned numPorts, const DenseMap<Value, const Carried *> &carriedOf,
            Recomputable &recomputable, BufferOf bufferOf) {
    OpBuilder b = OpBuilder::atBlockEnd(block);
    IRMapping map;
    // The parent's inputs, outputs and workspace are the part's.
    for (unsigned i = 0; i < numPorts; ++i)
      map.map(parentBody.getArgument(i), block->getArgument(i));
    map.map(parentBody.getArguments().back(), block->getArguments().back());
    // What the part reads from outside it: carried in, or recomputed.
    std::function<Value(Value)> fromOutside = [&](Value v) -> Value {
      if (Value known = map.lookupOrNull(v))
        return known;
      // An argument of an earlier part (an operand of a value recomputed
      // from there): the parts' arguments are the same list until the
      // unused ones are dropped, after every part is filled.
      if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() != &parentBody) {
        assert(isa<ProcOp>(arg.getOwner()->getParentOp()) &&
               "a value crossing a cut is an argument of an earlier part, not of a nested block");
        map.map(v, block->getArgument(arg.getArgNumber()));
        return block->getArgument(arg.getArgNumber());
      }
      if (auto it = carriedOf.find(v); it != carriedOf.end()) {
        const Carried *c = it->second;
        Value loaded = b.create<LoadOp>(v.getLoc(), v.getType(), bufferOf(c->kind),
                                        b.getI64IntegerAttr(c->slot));
        map.map(v, loaded);
        return loaded;
      }
      Operation *def = v.getDefiningOp();
      assert(def && recomputable(v) && "a value crossing a cut is carried or recomputable");
      for (Value operand : def->getOperands())
        fromOutside(operand);
      Operation *clone = b.clone(*def, map);
      return clone->getResult(cast<OpResult>(v).getResultNumber());
    };
    DenseSet<Operation *> inside;
    for (size_t i = part.begin; i < part.end; ++i)
      inside.insert(ops[i]);
    // Whether `def` is one of the part's ops or nested in one (earlier
    // parts' ops have moved into their own procedures already).
    auto inPart = [&](Operation *def) {
      for (Operation *op = def; op && !isa<ProcOp>(op); op = op->getParentOp())
        if (inside.contains(op))
          return true;
      return false;
    };
    for (size_t i = part.begin; i < part.end; ++i)
      ops[i]->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (Operation *def = operand.getDefiningOp(); def && !inPart(def))
            fromOutside(operand);
      });
    SmallVector<std::pair<Value, const Carried *>> carriedOut;
    for (size_t i = part.begin; i < part.end; ++i) {
      ops[i]->moveBefore(block, block->end());
      ops[i]->walk([&](Operation *nested) {
        for (OpOperand &use : nested->getOpOperands())
          if (Value outside = map.lookupOrNull(use.get()))
            use.set(outside);
      });
      for (Value v : ops[i]->getResults())
        if (auto it = carriedOf.find(v); it != carriedOf.end() && it->second->from == k)
          carriedOut.push_back({v, it->second});
    }
    for (auto [v, c] : carriedOut)
      b.create<StoreOp>(v.getLoc(), ValueRange{v}, bufferOf(c->kind),
                        b.getI64IntegerAttr(c->slot));
    b.create<ReturnOp>(block->getParentOp()->getLoc());
  }
};

} // namespace
