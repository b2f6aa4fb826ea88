//===- RollRepeats.cpp - repeated runs of operations back into expr.scan --===//
//
// A plain Python loop, `for _ in range(n): y = y * 1.0001 + 0.5`, traces to
// n copies of the same few operations, each reading the copy before it. At
// n = 300,000 that is 600,000 operations for every later pass and a C file
// of 6 MB. This pass finds such runs in a function's body and makes each one
// expr.scan of a new function holding one copy.
//
// A run is `count` consecutive copies of `period` operations (at least
// min-iterations copies and min-ops operations in all). Copy t must equal
// copy t-1 operation by operation (name, attributes, types), every operand
// being one of
//   * a value of the same copy, at the same place;
//   * a value of the copy before, at the same place: carried state (copy 0
//     reads the state's initial value there, from before the run);
//   * the same value in every copy, from before the run (passed whole).
// A value of a copy used after the next copy ends the run at that copy;
// values of the last copy used after the run are read from the scan's final
// state (one used that is not state is carried too, from zeros).
//
// The state is the carried values, flattened and concatenated into one
// vector when there are several (all of one element type, else the run is
// left alone). Operations with regions, and those that are not pure (solver
// calls keep state between calls), are never rolled.
//
// Finding runs: each operation gets a signature (name, attributes, result
// types, and how its operands are defined: a constant's value, an argument's
// position, or "computed"), and the signatures of the next kWindow
// operations are hashed together. In a run of period p that hash repeats
// every p operations, so stretches where the distance to the hash's previous
// occurrence stays p give the candidates, which are then checked exactly as
// above. Linear in the number of operations.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/Hashing.h"

#include <optional>

namespace scaly::expr {
#define GEN_PASS_DEF_ROLLREPEATS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Operations hashed together to find periods: long enough that the
/// rotations of one period differ.
constexpr size_t kWindow = 16;

/// How an operand of copy t is defined.
struct Source {
  enum Kind { Same, Previous, Outside } kind;
  unsigned index = 0;  // Same, Previous: the defining op's place in its copy
  unsigned result = 0; // ... and which of its results
  Value value;         // Outside: the value
};

/// A candidate run: copies of `period` operations from `begin`.
struct Run {
  size_t begin, period, count;
};

struct RollRepeatsPass : scaly::expr::impl::RollRepeatsBase<RollRepeatsPass> {
  using RollRepeatsBase::RollRepeatsBase;

  void runOnOperation() override {
    if (minIterations < 2 || minOps < 1 || maxPeriod < 1) {
      getOperation().emitError("scaly-roll-repeats: needs min-iterations >= 2, min-ops >= 1 "
                               "and max-period >= 1, got ")
          << static_cast<int64_t>(minIterations) << ", " << static_cast<int64_t>(minOps)
          << ", " << static_cast<int64_t>(maxPeriod);
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<FuncOp> funcs(module.getOps<FuncOp>());
    for (FuncOp f : funcs)
      rollIn(f, symbols);
  }

  // -- finding runs ---------------------------------------------------------

  static bool rollable(Operation *op) {
    return op->getNumRegions() == 0 && isPure(op) && op->getNumResults() > 0;
  }

  /// The signature of `op`: what must agree between copies, positions aside.
  static llvm::hash_code signature(Operation *op) {
    llvm::hash_code h = llvm::hash_combine(op->getName().getAsOpaquePointer(),
                                           op->getAttrDictionary().getAsOpaquePointer());
    for (Type t : op->getResultTypes())
      h = llvm::hash_combine(h, t.getAsOpaquePointer());
    for (Value v : op->getOperands()) {
      if (auto arg = dyn_cast<BlockArgument>(v))
        h = llvm::hash_combine(h, 1, arg.getArgNumber());
      else if (auto c = v.getDefiningOp<ConstantOp>())
        h = llvm::hash_combine(h, 2, c.getValue().getAsOpaquePointer());
      else
        h = llvm::hash_combine(h, 3, v.getType().getAsOpaquePointer());
    }
    return h;
  }

  void rollIn(FuncOp f, SymbolTable &symbols) {
    Block &body = f.getBody().front();
    std::vector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    if (ops.size() < static_cast<size_t>(minOps))
      return;
    DenseMap<Operation *, size_t> position;
    for (size_t i = 0; i < ops.size(); ++i)
      position[ops[i]] = i;

    std::vector<llvm::hash_code> sig(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
      sig[i] = rollable(ops[i]) ? signature(ops[i]) : llvm::hash_combine(i, 0xdead);
    // Distance from each window's hash to its previous occurrence.
    std::vector<size_t> distance(ops.size(), 0);
    DenseMap<unsigned, size_t> lastSeen; // hash_code truncated to unsigned
    for (size_t i = 0; i + kWindow <= ops.size(); ++i) {
      llvm::hash_code h = sig[i];
      for (size_t k = 1; k < kWindow; ++k)
        h = llvm::hash_combine(h, sig[i + k]);
      unsigned key = static_cast<unsigned>(static_cast<size_t>(h));
      auto [it, inserted] = lastSeen.try_emplace(key, i);
      if (!inserted) {
        distance[i] = i - it->second;
        it->second = i;
      }
    }

    std::vector<Run> runs;
    for (size_t i = 0; i < ops.size();) {
      size_t p = distance[i];
      if (p == 0 || p > static_cast<size_t>(maxPeriod)) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < ops.size() && distance[j] == p)
        ++j;
      // Windows i..j-1 repeat those p earlier: operations [i - p, j - 1 + kWindow).
      size_t begin = i - p, end = std::min(ops.size(), j - 1 + kWindow);
      if ((end - begin) / p >= static_cast<size_t>(minIterations))
        runs.push_back({begin, p, (end - begin) / p});
      i = j;
    }

    // Check and roll, last run first (rolling erases operations): a run may
    // only use operations before the first one rolled so far.
    size_t limit = ops.size();
    for (Run &run : llvm::reverse(runs))
      if (run.begin < limit)
        limit = std::min(limit, roll(f, symbols, ops, position, run, limit));
  }

  // -- checking a run -------------------------------------------------------

  /// How operand `j` of the op at place `r` of copy `t` of the run is
  /// defined, or nothing when it is none of the three kinds.
  static std::optional<Source> classify(Value v, const Run &run, size_t t,
                                        const DenseMap<Operation *, size_t> &position) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return Source{Source::Outside, 0, 0, v};
    auto it = position.find(def);
    if (it == position.end())
      return std::nullopt;
    size_t at = it->second, start = run.begin + t * run.period;
    unsigned result = cast<OpResult>(v).getResultNumber();
    if (at >= start && at < start + run.period)
      return Source{Source::Same, static_cast<unsigned>(at - start), result, {}};
    if (t > 0 && at >= start - run.period && at < start)
      return Source{Source::Previous, static_cast<unsigned>(at - start + run.period), result, {}};
    if (at < run.begin)
      return Source{Source::Outside, 0, 0, v};
    return std::nullopt;
  }

  static bool sameSource(const Source &a, const Source &b) {
    if (a.kind != b.kind)
      return false;
    if (a.kind == Source::Outside)
      return a.value == b.value;
    return a.index == b.index && a.result == b.result;
  }

  static bool sameOp(Operation *a, Operation *b) {
    return a->getName() == b->getName() && a->getAttrDictionary() == b->getAttrDictionary() &&
           a->getResultTypes() == b->getResultTypes() &&
           a->getNumOperands() == b->getNumOperands() && rollable(a) && rollable(b);
  }

  /// How many copies from run.begin match copy 1 exactly (0 or 1 when not
  /// even two do), and the template's sources (copy 1's).
  size_t matchingCopies(const std::vector<Operation *> &ops, size_t limit, const Run &run,
                        const DenseMap<Operation *, size_t> &position,
                        std::vector<SmallVector<Source>> &sources,
                        size_t maxCopies = SIZE_MAX) {
    size_t p = run.period, b = run.begin;
    if (b + 2 * p > limit)
      return 0;
    sources.assign(p, {});
    for (size_t r = 0; r < p; ++r) {
      Operation *op = ops[b + p + r];
      if (!sameOp(op, ops[b + r]))
        return 0;
      for (Value v : op->getOperands()) {
        std::optional<Source> s = classify(v, run, 1, position);
        if (!s)
          return 0;
        sources[r].push_back(*s);
      }
    }
    // Copy 0: the same, but what copy 1 reads from the copy before comes
    // from before the run.
    for (size_t r = 0; r < p; ++r)
      for (auto [j, v] : llvm::enumerate(ops[b + r]->getOperands())) {
        std::optional<Source> s = classify(v, run, 0, position);
        const Source &want = sources[r][j];
        if (!s || (want.kind == Source::Previous ? s->kind != Source::Outside
                                                 : !sameSource(*s, want)))
          return 0;
      }
    size_t t = 2;
    for (; t < maxCopies && b + (t + 1) * p <= limit; ++t) {
      bool ok = true;
      for (size_t r = 0; r < p && ok; ++r) {
        Operation *op = ops[b + t * p + r];
        if (!sameOp(op, ops[b + r])) {
          ok = false;
          break;
        }
        for (auto [j, v] : llvm::enumerate(op->getOperands())) {
          std::optional<Source> s = classify(v, run, t, position);
          if (!s || !sameSource(*s, sources[r][j])) {
            ok = false;
            break;
          }
        }
      }
      if (!ok)
        break;
    }
    return t;
  }

  // -- rolling --------------------------------------------------------------

  /// The longest prefix of copies from run.begin in which no value is used
  /// beyond the next copy, except the last copy's.
  static size_t withoutEscapes(const std::vector<Operation *> &ops, const Run &run,
                               size_t count, const DenseMap<Operation *, size_t> &position,
                               size_t &firstEscape) {
    size_t p = run.period, b = run.begin;
    firstEscape = count;
    for (size_t t = 0; t + 1 < count; ++t) {
      size_t limit = b + (t + 2) * p;
      for (size_t r = 0; r < p; ++r)
        for (Value v : ops[b + t * p + r]->getResults())
          for (Operation *user : v.getUsers()) {
            auto it = position.find(user);
            if (it == position.end() || it->second >= limit) {
              firstEscape = t;
              return t + 1;
            }
          }
    }
    return count;
  }

  /// Rolls the best run found from `candidate` (its copies may start at any
  /// of the period's places, and begin after a copy whose values escape);
  /// returns the first operation rolled, or `limit` when none was.
  size_t roll(FuncOp f, SymbolTable &symbols, const std::vector<Operation *> &ops,
              DenseMap<Operation *, size_t> &position, Run candidate, size_t limit) {
    size_t p = candidate.period;
    // A run never starts before `floor`: after a copy whose values escape,
    // the next try starts past it (and may not walk back over it).
    size_t floor = 0;
    for (size_t begin = candidate.begin; begin + static_cast<size_t>(minIterations) * p <= limit;) {
      // Copies may start at any place of the period: the earliest start
      // from which a few copies match.
      std::vector<SmallVector<Source>> sources;
      Run run{begin, p, 0};
      bool found = false;
      for (size_t from = std::max(floor, begin >= p - 1 ? begin - (p - 1) : 0);
           from < begin + p; ++from) {
        run.begin = from;
        if (matchingCopies(ops, limit, run, position, sources, 3) >= 3) {
          found = true;
          break;
        }
      }
      if (!found)
        return limit;
      // The hashes see a repeat only once a whole window repeats: the run
      // may begin earlier, by whole copies and then by single operations
      // (the earliest start carries the fewest values across copies).
      auto earlier = [&](size_t step) {
        if (run.begin < floor + step)
          return false;
        Run back{run.begin - step, p, 0};
        std::vector<SmallVector<Source>> backSources;
        if (matchingCopies(ops, limit, back, position, backSources, 3) < 3)
          return false;
        run = back;
        return true;
      };
      while (earlier(p)) {
      }
      for (size_t k = 1; k < p && earlier(1); ++k) {
      }
      size_t count = matchingCopies(ops, limit, run, position, sources);
      size_t firstEscape;
      size_t kept = withoutEscapes(ops, run, count, position, firstEscape);
      if (kept >= static_cast<size_t>(minIterations) &&
          kept * p >= static_cast<size_t>(minOps)) {
        run.count = kept;
        return rollChecked(f, symbols, ops, position, run, sources) ? run.begin : limit;
      }
      if (firstEscape >= count)
        return limit;
      begin = floor = run.begin + (firstEscape + 1) * p; // try again after the escaping copy
    }
    return limit;
  }

  bool rollChecked(FuncOp f, SymbolTable &symbols, const std::vector<Operation *> &ops,
                   DenseMap<Operation *, size_t> &position, const Run &run,
                   const std::vector<SmallVector<Source>> &sources) {
    size_t p = run.period, b = run.begin, count = run.count;
    size_t end = b + count * p;

    // The state: values read from the copy before, then the last copy's
    // values used after the run.
    struct Slot {
      unsigned index, result;
      Value init; // from before the run, or null: zeros
    };
    SmallVector<Slot> slots;
    auto slotOf = [&](unsigned index, unsigned result) -> int {
      for (auto [k, s] : llvm::enumerate(slots))
        if (s.index == index && s.result == result)
          return static_cast<int>(k);
      return -1;
    };
    for (size_t r = 0; r < p; ++r)
      for (auto [j, s] : llvm::enumerate(sources[r])) {
        if (s.kind != Source::Previous)
          continue;
        Value init = ops[b + r]->getOperand(j);
        int k = slotOf(s.index, s.result);
        if (k < 0)
          slots.push_back({s.index, s.result, init});
        else if (slots[k].init != init)
          return false; // copy 0 reads two different values for one state
      }
    for (size_t r = 0; r < p; ++r)
      for (Value v : ops[end - p + r]->getResults()) {
        bool usedAfter = llvm::any_of(v.getUsers(), [&](Operation *user) {
          auto it = position.find(user);
          return it == position.end() || it->second >= end;
        });
        unsigned result = cast<OpResult>(v).getResultNumber();
        if (usedAfter && slotOf(r, result) < 0)
          slots.push_back({static_cast<unsigned>(r), result, Value()});
      }
    if (slots.empty())
      return false; // nothing carried and nothing used: a dead run, for other passes
    auto slotType = [&](const Slot &s) {
      return cast<RankedTensorType>(ops[b + s.index]->getResult(s.result).getType());
    };
    Type element = slotType(slots[0]).getElementType();
    int64_t stateSize = 0;
    for (const Slot &s : slots) {
      RankedTensorType t = slotType(s);
      if (t.getElementType() != element || !t.hasStaticShape() || !isa<FloatType>(element))
        return false;
      stateSize += t.getNumElements();
    }
    bool packed = slots.size() > 1;
    MLIRContext *ctx = f.getContext();
    Type stateType = packed ? RankedTensorType::get({stateSize}, element)
                            : static_cast<Type>(slotType(slots[0]));

    // Values passed whole: those every copy reads from before the run.
    SmallVector<Value> invariants;
    DenseMap<Value, unsigned> invariantIndex;
    for (auto &perOp : sources)
      for (const Source &s : perOp)
        if (s.kind == Source::Outside && !invariantIndex.count(s.value) &&
            !s.value.getDefiningOp<ConstantOp>()) {
          invariantIndex[s.value] = invariants.size();
          invariants.push_back(s.value);
        }

    // The step function: (state, invariants...) -> state.
    SmallVector<Type> inTypes{stateType};
    SmallVector<Attribute> inNames{StringAttr::get(ctx, "state")};
    for (auto [k, v] : llvm::enumerate(invariants)) {
      inTypes.push_back(v.getType());
      inNames.push_back(StringAttr::get(ctx, "invariant" + std::to_string(k)));
    }
    OpBuilder fb(ctx);
    fb.setInsertionPoint(f);
    std::string name = (f.getSymName() + "_repeat").str();
    auto step = fb.create<FuncOp>(ops[b]->getLoc(), fb.getStringAttr(name),
                                  TypeAttr::get(fb.getFunctionType(inTypes, {stateType})),
                                  fb.getArrayAttr(inNames),
                                  fb.getArrayAttr({StringAttr::get(ctx, "state")}), UnitAttr(),
                                  ArrayAttr(), ArrayAttr(), UnitAttr());
    symbols.insert(step); // renames on a clash
    Block *stepBody = new Block();
    step.getBody().push_back(stepBody);
    for (Type t : inTypes)
      stepBody->addArgument(t, ops[b]->getLoc());
    OpBuilder sb = OpBuilder::atBlockEnd(stepBody);
    Location loc = ops[b]->getLoc();

    // Unpack the state.
    SmallVector<Value> current;
    int64_t offset = 0;
    for (const Slot &s : slots) {
      RankedTensorType t = slotType(s);
      if (!packed) {
        current.push_back(stepBody->getArgument(0));
        break;
      }
      auto flat = RankedTensorType::get({t.getNumElements()}, element);
      Value piece = sb.create<SliceOp>(loc, flat, stepBody->getArgument(0),
                                       sb.getDenseI64ArrayAttr({offset}),
                                       sb.getDenseI64ArrayAttr({1}));
      current.push_back(t == flat ? piece : sb.create<ReshapeOp>(loc, t, piece).getResult());
      offset += t.getNumElements();
    }
    // One copy: copy 1's operations, reading the state where it reads copy 0.
    std::vector<Operation *> cloned(p);
    for (size_t r = 0; r < p; ++r) {
      Operation *op = ops[b + p + r];
      SmallVector<Value> operands;
      for (auto [j, s] : llvm::enumerate(sources[r])) {
        switch (s.kind) {
        case Source::Same:
          operands.push_back(cloned[s.index]->getResult(s.result));
          break;
        case Source::Previous:
          operands.push_back(current[slotOf(s.index, s.result)]);
          break;
        case Source::Outside:
          if (auto c = s.value.getDefiningOp<ConstantOp>())
            operands.push_back(sb.clone(*c)->getResult(0));
          else
            operands.push_back(stepBody->getArgument(1 + invariantIndex[s.value]));
          break;
        }
      }
      Operation *copy = sb.clone(*op);
      copy->setOperands(operands);
      cloned[r] = copy;
    }
    SmallVector<Value> next;
    for (const Slot &s : slots)
      next.push_back(cloned[s.index]->getResult(s.result));
    Value yielded = packed ? sb.create<ConcatOp>(loc, stateType, next, IntegerAttr()).getResult()
                           : next[0];
    sb.create<ReturnOp>(loc, ValueRange{yielded});

    // The scan, where the run began.
    OpBuilder b0(ops[b]);
    SmallVector<Value> inits;
    for (const Slot &s : slots) {
      if (s.init) {
        inits.push_back(s.init);
        continue;
      }
      RankedTensorType t = slotType(s);
      inits.push_back(b0.create<ConstantOp>(
          loc, DenseElementsAttr::get(t, b0.getFloatAttr(element, 0.0))));
    }
    Value init = packed ? b0.create<ConcatOp>(loc, stateType, inits, IntegerAttr()).getResult()
                        : inits[0];
    SmallVector<Value> scanOperands{init};
    scanOperands.append(invariants.begin(), invariants.end());
    SmallVector<bool> mapped(scanOperands.size(), false);
    auto scan = b0.create<ScanOp>(loc, TypeRange{stateType}, SymbolRefAttr::get(step),
                                  b0.getI64IntegerAttr(static_cast<int64_t>(count)),
                                  scanOperands, UnitAttr(), b0.getDenseBoolArrayAttr(mapped));
    // What the run's last copy gave later operations, from the final state.
    b0.setInsertionPointAfter(scan);
    offset = 0;
    for (const Slot &s : slots) {
      Value old = ops[end - p + s.index]->getResult(s.result);
      RankedTensorType t = slotType(s);
      Value fresh = scan.getResult(0);
      if (packed) {
        auto flat = RankedTensorType::get({t.getNumElements()}, element);
        fresh = b0.create<SliceOp>(loc, flat, fresh, b0.getDenseI64ArrayAttr({offset}),
                                   b0.getDenseI64ArrayAttr({1}));
        if (t != flat)
          fresh = b0.create<ReshapeOp>(loc, t, fresh);
      }
      offset += t.getNumElements();
      old.replaceUsesWithIf(fresh, [&](OpOperand &use) {
        auto it = position.find(use.getOwner());
        return it == position.end() || it->second >= end;
      });
    }
    for (size_t i = end; i-- > b;) {
      position.erase(ops[i]);
      ops[i]->dropAllUses();
      ops[i]->erase();
    }
    return true;
  }
};

} // namespace
