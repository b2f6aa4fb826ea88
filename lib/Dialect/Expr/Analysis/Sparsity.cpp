//===- Sparsity.cpp - structural Jacobian patterns ------------------------===//
//
// Dependency analysis: each value's elements carry the sorted set of wrt
// input elements they depend on *differentiably*, following the same
// choices as the derivative rules: comparisons, floor, ceil and integer
// casts carry nothing; a select depends on its two branches, not on its
// condition; every other value is treated as generically nonzero (the
// structural pattern). Elementwise ops are handled here through MLIR's
// Elementwise trait; every other op brings its own rule
// (SparsityRuleOpInterface, IR/SparsityRules.cpp), and calls, maps and scans
// come back here to have their callee analysed and composed.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Sparsity.h"
#include "scaly/Dialect/Expr/Passes.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "GroupByKey.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

using namespace mlir;
using namespace scaly::expr;

namespace {

bool anyFloat(ValueRange values) {
  return llvm::any_of(values, [](Value v) { return Differentiator::isFloat(v); });
}

/// Callees with more input elements than this are analysed at each call
/// rather than through a local pattern.
constexpr int64_t kLocalPatternLimit = 256;

/// The local pattern of a function: per result, per element, the argument
/// elements it depends on, numbered arg-major (symbol = base[k] + j).
struct LocalPattern {
  std::vector<int64_t> base;
  std::vector<int32_t> argOf; ///< per symbol, its argument k
  std::vector<Deps> results;
  std::vector<int64_t> resultSizes;
};

/// The sets of one value in the analysis: banded (Dependencies.h) while its
/// producers keep bands, else explicit; both once a rule has asked for the
/// explicit sets of a banded value (expanded once, then kept).
struct ValueDeps {
  Deps sets;
  Banded bands;
  ValueDeps() = default;
  ValueDeps(Deps sets) : sets(std::move(sets)) {}
  ValueDeps(Banded bands) : bands(std::move(bands)) {}
  explicit operator bool() const { return sets || bands; }
  /// The same sets (one banded value, expanded or not, is the same value).
  bool operator==(const ValueDeps &o) const {
    return bands || o.bands ? bands == o.bands : sets == o.sets;
  }
};
using DepsMap = DenseMap<Value, ValueDeps>;

/// The explicit sets of `d` (null when it depends on nothing), expanded from
/// its bands on first use and kept.
Deps explicitSets(ValueDeps &d) {
  if (!d.sets && d.bands)
    d.sets = expandBands(*d.bands);
  return d.sets;
}
Deps explicitSets(DepsMap &deps, Value v) {
  auto it = deps.find(v);
  return it == deps.end() ? nullptr : explicitSets(it->second);
}

/// Where compose() only counts: the entries the sets would have, refused
/// (TooManyEntries) as soon as they pass kMaxEntries.
struct EntryCount {
  int64_t entries = 0;
  void append(ArrayRef<int32_t> set) {
    entries += static_cast<int64_t>(set.size());
    checkEntries(entries, /*exact=*/false);
  }
  void appendUnsorted(SmallVectorImpl<int32_t> &list) {
    llvm::sort(list);
    entries += std::unique(list.begin(), list.end()) - list.begin();
    checkEntries(entries, /*exact=*/false);
  }
};

class DependencyAnalysis {
public:
  explicit DependencyAnalysis(ModuleOp module) : symbols(module) {}

  /// Deps of `f`'s results given the deps of its arguments.
  FailureOr<std::vector<ValueDeps>> run(FuncOp f, const std::vector<ValueDeps> &args);
  /// A call, map or scan: its callee's analysis applied to its operands.
  LogicalResult apply(Operation *application, DepsMap &deps);

private:
  SymbolTable symbols;
  std::map<Operation *, LocalPattern> locals;

  FailureOr<const LocalPattern *> local(FuncOp f);
  LogicalResult visit(Operation *op, DepsMap &deps);
  LogicalResult visitOp(Operation *op, DepsMap &deps);
  /// A map of a function of scalars over banded (or independent) operands:
  /// each result is the union of the bands of the operands its local
  /// pattern reads. False (nothing set) when the map is not of that form.
  bool mapBands(MapOp map, const LocalPattern &lp, DepsMap &deps);
  /// Append one application of a callee's local pattern to `out` (one per
  /// result), with `argElement(k, j)` giving the set of argument k's element
  /// j (empty when it depends on nothing).
  template <typename ArgFn, typename Sets>
  static void compose(const LocalPattern &lp, ArgFn argElement, std::vector<Sets> &out);
};

FailureOr<const LocalPattern *> DependencyAnalysis::local(FuncOp f) {
  if (auto it = locals.find(f); it != locals.end())
    return &it->second;
  LocalPattern lp;
  std::vector<ValueDeps> args;
  int64_t next = 0;
  for (Type t : f.getArgumentTypes()) {
    int64_t n = numElements(t);
    lp.base.push_back(next);
    if (next + n > INT32_MAX)
      return f.emitOpError("has too many input elements for a sparsity analysis");
    if (isa<FloatType>(getElementTypeOrSelf(t))) {
      DepSets d = freshSets();
      d.reserve(n);
      for (int64_t j = 0; j < n; ++j) {
        int32_t sym = static_cast<int32_t>(next + j);
        d.append(sym);
      }
      args.push_back(finish(std::move(d)));
    } else {
      args.emplace_back();
    }
    next += n;
  }
  for (size_t k = 0; k < lp.base.size(); ++k)
    lp.argOf.resize(k + 1 < lp.base.size() ? lp.base[k + 1] : next, static_cast<int32_t>(k));
  auto results = run(f, args);
  if (failed(results))
    return failure();
  for (ValueDeps &r : *results)
    lp.results.push_back(explicitSets(r));
  for (Type t : f.getResultTypes())
    lp.resultSizes.push_back(numElements(t));
  return &(locals[f] = std::move(lp));
}

template <typename ArgFn, typename Sets>
void DependencyAnalysis::compose(const LocalPattern &lp, ArgFn argElement,
                                 std::vector<Sets> &out) {
  SmallVector<int32_t, 16> list;
  for (auto [r, local] : llvm::enumerate(lp.results)) {
    if (!local) {
      for (int64_t e = 0; e < lp.resultSizes[r]; ++e)
        out[r].append({});
      continue;
    }
    for (int64_t e = 0; e < local->size(); ++e) {
      list.clear();
      ArrayRef<int32_t> syms = (*local)[e];
      if (syms.size() == 1) { // one argument element: its set as it is
        int32_t k = lp.argOf[syms[0]];
        out[r].append(argElement(k, syms[0] - lp.base[k]));
        continue;
      }
      for (int32_t sym : syms) {
        int32_t k = lp.argOf[sym];
        ArrayRef<int32_t> src = argElement(k, sym - lp.base[k]);
        list.append(src.begin(), src.end());
      }
      out[r].appendUnsorted(list);
    }
  }
}

FailureOr<std::vector<ValueDeps>> DependencyAnalysis::run(FuncOp f,
                                                          const std::vector<ValueDeps> &args) {
  DepsMap deps;
  Block &body = f.getBody().front();
  for (auto [a, d] : llvm::zip(body.getArguments(), args))
    deps[a] = d;
  // A value's sets are dropped after its last use: the analysis of a long
  // function then holds a few arrays of sets at a time, not one per value.
  DenseMap<Value, unsigned> usesLeft;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      ++usesLeft[v];
  std::vector<ValueDeps> out;
  for (Operation &op : body) {
    if (auto ret = dyn_cast<ReturnOp>(op)) {
      for (Value v : ret.getOperands())
        out.push_back(deps.lookup(v));
      return out;
    }
    if (failed(visit(&op, deps)))
      return failure();
    for (Value v : op.getOperands())
      if (--usesLeft[v] == 0)
        deps.erase(v);
  }
  return out;
}

/// For a product (either factor) or quotient (numerator) with a constant or
/// known-zero operand, the elements where that operand is zero; empty
/// otherwise.
std::vector<bool> zeroElements(Operation *op) {
  std::vector<bool> zero;
  if (!isa<MulOp, DivOp>(op))
    return zero;
  unsigned candidates = isa<MulOp>(op) ? 2 : 1;
  for (unsigned i = 0; i < candidates; ++i) {
    std::vector<bool> known = knownZeroElements(op->getOperand(i));
    if (known.empty())
      continue;
    zero.resize(known.size(), false);
    for (size_t e = 0; e < known.size(); ++e)
      zero[e] = zero[e] || known[e];
  }
  return zero;
}

/// The operands of a map or scan and, per operand, how far its elements move
/// per iteration: the callee's argument size when mapped, 0 when passed whole.
template <typename LoopOp, typename InFn>
std::pair<SmallVector<Deps>, SmallVector<int64_t>> iterationOperands(LoopOp loop, FuncOp callee,
                                                                     InFn in) {
  SmallVector<Deps> args;
  SmallVector<int64_t> strides;
  for (unsigned k = 0; k < loop->getNumOperands(); ++k) {
    args.push_back(in(k));
    strides.push_back(loop.isMapped(k) ? numElements(callee.getArgumentTypes()[k]) : 0);
  }
  return {args, strides};
}

/// What an op's rule sees: its operands' and results' sets in the analysis'
/// map, and the analysis itself for callees.
class RuleContext : public DependencyContext {
public:
  RuleContext(DependencyAnalysis &analysis, Operation *op, DepsMap &deps)
      : analysis(analysis), op(op), deps(deps) {}
  Deps operand(unsigned i) override { return explicitSets(deps, op->getOperand(i)); }
  Banded bandedOperand(unsigned i) override { return deps.lookup(op->getOperand(i)).bands; }
  void setResult(unsigned r, Deps d) override { deps[op->getResult(r)] = std::move(d); }
  void setResult(unsigned r, Banded b) override { deps[op->getResult(r)] = std::move(b); }
  LogicalResult applyCallee(Operation *application) override {
    return analysis.apply(application, deps);
  }

private:
  DependencyAnalysis &analysis;
  Operation *op;
  DepsMap &deps;
};

/// The entries of the element-wise union of `varying` (n elements each),
/// empty where `zeroAt` is set; counted without making it, and refused
/// (TooManyEntries) past kMaxEntries.
size_t unionEntries(ArrayRef<Deps> varying, const std::vector<bool> &zeroAt, int64_t n) {
  int64_t entries = 0;
  SmallVector<int32_t, 16> list;
  for (int64_t e = 0; e < n; ++e) {
    if (!zeroAt.empty() && zeroAt[e])
      continue;
    list.clear();
    for (const Deps &d : varying)
      list.append((*d)[e].begin(), (*d)[e].end());
    llvm::sort(list);
    entries += std::unique(list.begin(), list.end()) - list.begin();
  }
  checkEntries(entries);
  return static_cast<size_t>(entries);
}

/// A result past kMaxEntries entries, as an error on `op`.
LogicalResult tooManyEntries(Operation *op, const TooManyEntries &e) {
  return op->emitOpError("sparsity analysis: the pattern of its result (its Jacobian by the "
                         "input) would hold ")
         << (e.exact ? "" : "more than ") << e.entries
         << " entries; a pattern holds at most 2^31 - 1 (2147483647). Refused before it is "
            "allocated";
}

LogicalResult DependencyAnalysis::visit(Operation *op, DepsMap &deps) {
  // Sets past kMaxEntries are refused by their builders (TooManyEntries)
  // before they are allocated: an error on this op.
  try {
    return visitOp(op, deps);
  } catch (const TooManyEntries &e) {
    return tooManyEntries(op, e);
  }
}

LogicalResult DependencyAnalysis::visitOp(Operation *op, DepsMap &deps) {
  bool noInput = llvm::none_of(op->getOperands(), [&](Value v) { return bool(deps.lookup(v)); });
  if (noInput || op->hasTrait<ZeroDerivative>() || !anyFloat(op->getResults()))
    return success(); // results depend on nothing
  if (op->hasTrait<NotDifferentiable>())
    return op->emitOpError("is not differentiable yet: derivatives through it have no rule");
  if (auto math = dyn_cast<MathOp>(op))
    if (!mathFunction(1, static_cast<int>(math.getFn())).differentiable)
      return success();

  if (op->hasTrait<OpTrait::Elementwise>()) {
    int64_t n = numElements(op->getResult(0).getType());
    unsigned first = isa<SelectOp>(op) ? 1 : 0; // not the condition
    // A product with a constant zero (element) is zero whatever the other
    // factor: d(0 * x) = 0 * dx. So is a quotient with a zero numerator.
    auto zeroAt = zeroElements(op);
    if (!llvm::is_contained(zeroAt, true))
      zeroAt.clear(); // a constant factor without zeros changes nothing
    SmallVector<ValueDeps> operands;
    for (unsigned i = first; i < op->getNumOperands(); ++i)
      if (ValueDeps d = deps.lookup(op->getOperand(i));
          d && Differentiator::isFloat(op->getOperand(i)))
        if (!llvm::is_contained(operands, d))
          operands.push_back(d);
    // Operands that depend on anything share one set array, and no zero
    // factor: the result depends on exactly what they do (shared, not copied).
    if (operands.size() == 1 && zeroAt.empty()) {
      deps[op->getResult(0)] = operands[0];
      return success();
    }
    if (zeroAt.empty() && llvm::all_of(operands, [](const ValueDeps &d) { return d.bands; })) {
      SmallVector<const BandedSets *> parts;
      for (const ValueDeps &d : operands)
        parts.push_back(d.bands.get());
      if (auto all = unionOf(parts)) {
        deps[op->getResult(0)] = finishBands(std::move(*all));
        return success();
      }
    }
    SmallVector<Deps> varying;
    for (unsigned i = first; i < op->getNumOperands(); ++i)
      if (Differentiator::isFloat(op->getOperand(i)))
        if (Deps d = explicitSets(deps, op->getOperand(i)); d && !llvm::is_contained(varying, d))
          varying.push_back(d);
    DepSets out = freshSets();
    out.reserve(n);
    size_t bound = 0; // the union has at most the operands' entries
    for (const Deps &d : varying)
      bound += d->cols.size();
    if (bound > static_cast<size_t>(kMaxEntries))
      bound = unionEntries(varying, zeroAt, n); // exact, refused past the limit
    out.cols.reserve(bound);
    SmallVector<int32_t, 16> list;
    for (int64_t e = 0; e < n; ++e) {
      if (!zeroAt.empty() && zeroAt[e]) {
        out.append({});
        continue;
      }
      if (varying.size() == 1) {
        out.append((*varying[0])[e]);
        continue;
      }
      if (varying.size() == 2) { // a merge of two sorted sets
        ArrayRef<int32_t> a = (*varying[0])[e], b = (*varying[1])[e];
        std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out.cols));
        out.start.push_back(static_cast<int64_t>(out.cols.size()));
        continue;
      }
      list.clear();
      for (const Deps &d : varying)
        list.append((*d)[e].begin(), (*d)[e].end());
      out.appendUnsorted(list);
    }
    deps[op->getResult(0)] = finish(std::move(out));
    return success();
  }

  auto rule = dyn_cast<SparsityRuleOpInterface>(op);
  if (!rule)
    return op->emitOpError("has no sparsity rule");
  RuleContext ctx(*this, op, deps);
  return rule.propagateDependencies(ctx);
}

bool DependencyAnalysis::mapBands(MapOp map, const LocalPattern &lp, DepsMap &deps) {
  // Iteration `it` reads element `it` of each mapped operand and gives
  // element `it` of each result: a union of bands stays a band.
  FuncOp callee = symbols.lookup<FuncOp>(map.getCallee());
  for (unsigned k = 0; k < map->getNumOperands(); ++k) {
    ValueDeps d = deps.lookup(map->getOperand(k));
    bool scalar = numElements(callee.getArgumentTypes()[k]) == 1;
    if (d && (!d.bands || !map.isMapped(k) || !scalar))
      return false; // explicit sets (only), or an operand not read element by element
  }
  if (llvm::any_of(lp.resultSizes, [](int64_t size) { return size != 1; }))
    return false;
  std::vector<Banded> results;
  for (const Deps &local : lp.results) {
    SmallVector<const BandedSets *> parts;
    if (local)
      for (int32_t sym : (*local)[0])
        if (Banded b = deps.lookup(map->getOperand(lp.argOf[sym])).bands)
          parts.push_back(b.get());
    auto all = unionOf(parts);
    if (!all)
      return false;
    all->size = map.getCount();
    results.push_back(finishBands(std::move(*all)));
  }
  for (auto [r, b] : llvm::zip(map.getResults(), results))
    deps[r] = b;
  return true;
}

/// Throws TooManyEntries (not exact) when a result of a map of `count`
/// iterations of `lp` (operand sets `args`, `strides` apart per iteration; 0
/// for an operand passed whole) must hold more than kMaxEntries entries, by
/// a lower bound: each element holds at least the union of its whole
/// operands' sets (the same in every iteration: united once) and at least
/// its largest mapped operand's set (a size, not a union). Counting the
/// composed sets exactly sorts every iteration's lists: about a minute for
/// 50,000 iterations that each depend on 50,000 inputs through an operand
/// passed whole, where this bound takes a pass over the iterations.
static void refuseByLowerBound(const LocalPattern &lp, ArrayRef<Deps> args,
                               ArrayRef<int64_t> strides, int64_t count) {
  auto setOf = [&](int32_t sym, int64_t it) -> ArrayRef<int32_t> {
    int32_t k = lp.argOf[sym];
    return args[k] ? (*args[k])[it * strides[k] + sym - lp.base[k]] : ArrayRef<int32_t>();
  };
  SmallVector<int32_t, 16> list;
  for (const Deps &local : lp.results) {
    if (!local)
      continue;
    int64_t n = local->size();
    std::vector<int64_t> whole(n, 0), mappedStart(n + 1, 0);
    std::vector<int32_t> mapped;
    for (int64_t e = 0; e < n; ++e) {
      list.clear();
      for (int32_t sym : (*local)[e]) {
        if (strides[lp.argOf[sym]] != 0) {
          mapped.push_back(sym);
          continue;
        }
        ArrayRef<int32_t> s = setOf(sym, 0);
        list.append(s.begin(), s.end());
      }
      llvm::sort(list);
      whole[e] = std::unique(list.begin(), list.end()) - list.begin();
      mappedStart[e + 1] = static_cast<int64_t>(mapped.size());
    }
    int64_t bound = 0;
    for (int64_t it = 0; it < count; ++it)
      for (int64_t e = 0; e < n; ++e) {
        int64_t most = whole[e];
        for (int64_t m = mappedStart[e]; m < mappedStart[e + 1]; ++m)
          most = std::max<int64_t>(most, static_cast<int64_t>(setOf(mapped[m], it).size()));
        bound += most;
        if (bound > kMaxEntries)
          throw TooManyEntries(bound, /*exact=*/false);
      }
  }
}

LogicalResult DependencyAnalysis::apply(Operation *application, DepsMap &deps) {
  auto in = [&](unsigned i) { return explicitSets(deps, application->getOperand(i)); };
  return llvm::TypeSwitch<Operation *, LogicalResult>(application)
      .Case<CallOp>([&](CallOp call) -> LogicalResult {
        FuncOp callee = symbols.lookup<FuncOp>(call.getCallee());
        // A large callee is analysed with the caller's sets, once: its local
        // pattern would cost as much to build as to compose, per element.
        // Small callees keep a local pattern, composed at each call (an
        // unrolled loop calls one many times).
        int64_t inputs = 0;
        for (Type t : callee.getArgumentTypes())
          inputs += numElements(t);
        if (inputs > kLocalPatternLimit) {
          std::vector<ValueDeps> args;
          for (unsigned k = 0; k < call.getNumOperands(); ++k)
            args.push_back(deps.lookup(call.getOperand(k)));
          auto results = run(callee, args);
          if (failed(results))
            return failure();
          for (auto [r, d] : llvm::zip(call.getResults(), *results))
            deps[r] = d;
          return success();
        }
        auto lp = local(callee);
        if (failed(lp))
          return failure();
        std::vector<DepSets> sets(call.getNumResults());
        compose(**lp, [&](size_t k, int64_t j) -> ArrayRef<int32_t> {
          Deps d = in(k);
          return d ? (*d)[j] : ArrayRef<int32_t>();
        }, sets);
        for (auto [r, s] : llvm::zip(call.getResults(), sets))
          deps[r] = finish(std::move(s));
        return success();
      })
      .Case<MapOp>([&](MapOp map) -> LogicalResult {
        FuncOp callee = symbols.lookup<FuncOp>(map.getCallee());
        auto lp = local(callee);
        if (failed(lp))
          return failure();
        if (mapBands(map, **lp, deps))
          return success();
        std::vector<DepSets> stacked(map.getNumResults());
        for (size_t r = 0; r < stacked.size(); ++r)
          stacked[r].reserve(map.getCount() * (*lp)->resultSizes[r]);
        // Per operand: its sets and, for a mapped one, the stride of an iteration.
        auto [args, strides] = iterationOperands(map, callee, in);
        for (int64_t it = 0; it < map.getCount(); ++it) {
          compose(**lp, [&](size_t k, int64_t j) -> ArrayRef<int32_t> {
            return args[k] ? (*args[k])[it * strides[k] + j] : ArrayRef<int32_t>();
          }, stacked);
          if (it > 0)
            continue;
          // About as many entries per iteration as the first has: reserved,
          // unless that passes the limit; then the iterations are counted
          // first, and a result past it refused before it is allocated.
          bool large = llvm::any_of(stacked, [&](const DepSets &s) {
            return static_cast<int64_t>(s.cols.size()) * map.getCount() > kMaxEntries;
          });
          if (!large) {
            for (DepSets &s : stacked)
              s.cols.reserve(s.cols.size() * map.getCount() + 16);
            continue;
          }
          // A bound from the sets' sizes alone refuses most such maps at
          // once; the others are counted exactly.
          refuseByLowerBound(**lp, args, strides, map.getCount());
          std::vector<EntryCount> counts(stacked.size());
          for (int64_t i = 0; i < map.getCount(); ++i)
            compose(**lp, [&](size_t k, int64_t j) -> ArrayRef<int32_t> {
              return args[k] ? (*args[k])[i * strides[k] + j] : ArrayRef<int32_t>();
            }, counts);
          for (auto [s, count] : llvm::zip(stacked, counts)) {
            checkEntries(count.entries);
            s.cols.reserve(count.entries);
          }
        }
        for (auto [r, s] : llvm::zip(map.getResults(), stacked))
          deps[r] = finish(std::move(s));
        return success();
      })
      .Case<ScanOp>([&](ScanOp scan) -> LogicalResult {
        FuncOp callee = symbols.lookup<FuncOp>(scan.getCallee());
        auto lp = local(callee);
        if (failed(lp))
          return failure();
        int64_t stateSize = numElements(callee.getArgumentTypes()[0]);
        DepSets state = freshSets();
        if (Deps d = in(0)) {
          state.start = d->start;
          state.cols = d->cols;
        } else {
          for (int64_t j = 0; j < stateSize; ++j)
            state.append({});
        }
        // Result 0 of each step is the next state; the others are stacked.
        std::vector<DepSets> step(scan.getNumResults());
        auto [args, strides] = iterationOperands(scan, callee, in);
        for (int64_t it = 0; it < scan.getCount(); ++it) {
          recycle(std::move(step[0]));
          step[0] = freshSets();
          compose(**lp, [&](size_t k, int64_t j) -> ArrayRef<int32_t> {
            if (k == 0)
              return state[j];
            return args[k] ? (*args[k])[it * strides[k] + j] : ArrayRef<int32_t>();
          }, step);
          std::swap(state, step[0]);
        }
        deps[scan.getResult(0)] = finish(std::move(state));
        for (unsigned r = 1; r < scan.getNumResults(); ++r)
          deps[scan.getResult(r)] = finish(std::move(step[r]));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("is not a call, map or scan");
      });
}

} // namespace

/// `b` united with its transpose: stored (r, r + c) is (r + c, r) there,
/// row r + c at distance -c. Null when that needs too many bands.
static std::optional<BandedSets> withTranspose(const BandedSets &b) {
  std::vector<BandedSets> transposed;
  for (const Band &band : b.bands)
    for (int64_t c : band.offsets)
      transposed.push_back(BandedSets{b.size, {Band{band.lo + c, band.hi + c, {-c}}}});
  SmallVector<const BandedSets *> parts{&b};
  for (const BandedSets &t : transposed)
    parts.push_back(&t);
  return unionOf(parts);
}

/// The pattern of d(result `of`) / d(argument `wrt`) of `f`, once its
/// derivative ops are eliminated (united with its transpose when
/// `symmetric`).
static FailureOr<SparsityPattern> patternOf(ModuleOp module, FuncOp f, unsigned wrt, unsigned of,
                                            bool symmetric) {
  std::vector<ValueDeps> args(f.getArgumentTypes().size());
  int64_t n = numElements(f.getArgumentTypes()[wrt]);
  if (n > INT32_MAX)
    return f.emitOpError("input is too large for a sparsity analysis");
  int64_t nrow = numElements(f.getResultTypes()[of]);
  if (nrow > INT32_MAX)
    return f.emitOpError("result is too large for a sparsity analysis");
  if (symmetric && nrow != n)
    return f.emitOpError("result ") << of << " has " << nrow << " elements and input " << wrt
                                    << " has " << n << ": a symmetric pattern must be square";
  // Input element j depends on itself: one band at distance 0.
  BandedSets seed;
  seed.size = n;
  if (n)
    seed.bands.push_back(Band{0, n, {0}});
  args[wrt] = finishBands(std::move(seed));
  DependencyAnalysis analysis(module);
  auto results = analysis.run(f, args);
  if (failed(results))
    return failure();
  SparsityPattern p;
  p.nrow = nrow;
  p.ncol = n;
  p.colind.assign(n + 1, 0);
  ValueDeps &d = (*results)[of];
  std::optional<BandedSets> united;
  if (symmetric && d.bands && (united = withTranspose(*d.bands)))
    d = ValueDeps(finishBands(std::move(*united)));
  else if (symmetric) {
    explicitSets(d);
    d.bands = nullptr; // its sets, then the union with their transpose below
  }
  // Every band's columns lie within the input (a broken rule would write
  // outside the tables below): checked per band, not per entry.
  if (Banded b = d.bands)
    for (const Band &band : b->bands)
      if (band.lo < 0 || band.hi > nrow || band.lo + band.offsets.front() < 0 ||
          band.hi - 1 + band.offsets.back() >= n)
        return f.emitOpError("sparsity analysis: rows [")
               << band.lo << ", " << band.hi << ") at distances " << band.offsets.front() << " .. "
               << band.offsets.back() << " leave the " << nrow << " x " << n << " pattern";
  // The tables are 32-bit (SparsityPattern): a pattern of more entries is
  // refused here, before they are counted in 32 bits.
  int64_t entries = 0;
  if (Banded b = d.bands)
    for (const Band &band : b->bands)
      entries += (band.hi - band.lo) * static_cast<int64_t>(band.offsets.size());
  else if (Deps sets = d.sets)
    entries = static_cast<int64_t>(sets->cols.size());
  if (entries > INT32_MAX)
    return f.emitOpError("sparsity analysis: ")
           << entries << " stored entries; a pattern holds at most 2^31 - 1";
  // Rows by column: rows come out ascending within a column.
  if (Banded b = d.bands) {
    groupByKey(n, [&](auto emit) {
      for (const Band &band : b->bands)
        for (int64_t r = band.lo; r < band.hi; ++r)
          for (int64_t c : band.offsets)
            emit(r + c, r);
    }, p.colind, p.row);
  } else if (Deps sets = d.sets) {
    for (int32_t c : sets->cols)
      if (c < 0 || c >= n)
        return f.emitOpError("sparsity analysis: column ") << c << " outside the " << nrow
                                                          << " x " << n << " pattern";
    if (sets->size() != nrow)
      return f.emitOpError("sparsity analysis: ")
             << sets->size() << " sets for the " << nrow << " rows of the pattern";
    groupByKey(n, [&](auto emit) {
      for (int64_t r = 0; r < p.nrow; ++r)
        for (int32_t c : (*sets)[r])
          emit(c, r);
    }, p.colind, p.row);
    if (symmetric)
      return symmetricUnion(p);
  }
  return p;
}

FailureOr<SparsityPattern> scaly::expr::jacobianPattern(ModuleOp module, FuncOp f, unsigned wrt,
                                                        unsigned of, bool symmetric) {
  PassManager pm(module.getContext());
  pm.addPass(createDifferentiate());
  if (failed(pm.run(module)))
    return failure();
  // Every set is gone when patternOf returns (or throws): the reused arrays
  // are given back then.
  auto release = llvm::make_scope_exit([] { releaseRecycledSets(); });
  try {
    return patternOf(module, f, wrt, of, symmetric);
  } catch (const TooManyEntries &e) { // sets expanded outside an op's rule
    return tooManyEntries(f, e);
  }
}
