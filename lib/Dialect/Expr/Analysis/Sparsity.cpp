//===- Sparsity.cpp - structural Jacobian patterns and colourings ---------===//
//
// Dependency analysis: each value's elements carry the sorted set of wrt
// input elements they depend on *differentiably*, following the same
// choices as the derivative rules: comparisons, floor, ceil and integer
// casts carry nothing; a select depends on its two branches, not on its
// condition; every other value is treated as generically nonzero (the
// structural pattern). Elementwise ops are handled through MLIR's
// Elementwise trait; structural ops each move indices.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Sparsity.h"
#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

using namespace mlir;
using namespace scaly::expr;

namespace {

// Most elements depend on a few inputs: inline storage avoids an allocation each.
using Set = llvm::SmallVector<int32_t, 4>;
/// Per-element dependency sets of one value; null: depends on nothing.
using Deps = std::shared_ptr<const std::vector<Set>>;

void normalize(Set &s) {
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
}

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * shape[i + 1];
  return s;
}

/// For each result element, the flat source element it reads.
template <typename Fn>
Deps moveElements(const Deps &from, int64_t count, Fn source) {
  if (!from)
    return nullptr;
  auto out = std::make_shared<std::vector<Set>>(count);
  for (int64_t e = 0; e < count; ++e)
    (*out)[e] = (*from)[source(e)];
  return out;
}

bool anyFloat(ValueRange values) {
  return llvm::any_of(values, [](Value v) { return Differentiator::isFloat(v); });
}

/// The local pattern of a function: per result, per element, the argument
/// elements it depends on, numbered arg-major (symbol = base[k] + j).
struct LocalPattern {
  std::vector<int64_t> base;
  std::vector<Deps> results;
};

class DependencyAnalysis {
public:
  explicit DependencyAnalysis(ModuleOp module) : symbols(module) {}

  /// Deps of `f`'s results given the deps of its arguments.
  FailureOr<std::vector<Deps>> run(FuncOp f, const std::vector<Deps> &args);

private:
  SymbolTable symbols;
  std::map<Operation *, LocalPattern> locals;

  FailureOr<const LocalPattern *> local(FuncOp f);
  LogicalResult visit(Operation *op, DenseMap<Value, Deps> &deps);
  /// Results of one application of a callee's local pattern, with
  /// `argElement(k, j)` giving the set of argument k's element j.
  template <typename ArgFn>
  static std::vector<std::vector<Set>> compose(const LocalPattern &lp, ArgFn argElement);
};

FailureOr<const LocalPattern *> DependencyAnalysis::local(FuncOp f) {
  if (auto it = locals.find(f); it != locals.end())
    return &it->second;
  LocalPattern lp;
  std::vector<Deps> args;
  int64_t next = 0;
  for (Type t : f.getArgumentTypes()) {
    int64_t n = numElements(t);
    lp.base.push_back(next);
    if (isa<FloatType>(getElementTypeOrSelf(t))) {
      auto d = std::make_shared<std::vector<Set>>(n);
      for (int64_t j = 0; j < n; ++j)
        (*d)[j] = {static_cast<int32_t>(next + j)};
      args.push_back(d);
    } else {
      args.push_back(nullptr);
    }
    next += n;
    if (next > INT32_MAX)
      return f.emitOpError("has too many input elements for a sparsity analysis");
  }
  auto results = run(f, args);
  if (failed(results))
    return failure();
  lp.results = std::move(*results);
  return &(locals[f] = std::move(lp));
}

template <typename ArgFn>
std::vector<std::vector<Set>> DependencyAnalysis::compose(const LocalPattern &lp,
                                                          ArgFn argElement) {
  std::vector<std::vector<Set>> out;
  for (const Deps &r : lp.results) {
    std::vector<Set> sets;
    if (r) {
      sets.resize(r->size());
      for (size_t e = 0; e < r->size(); ++e) {
        Set s;
        for (int32_t sym : (*r)[e]) {
          size_t k = std::upper_bound(lp.base.begin(), lp.base.end(), sym) - lp.base.begin() - 1;
          if (const Set *src = argElement(k, sym - lp.base[k]))
            s.insert(s.end(), src->begin(), src->end());
        }
        normalize(s);
        sets[e] = std::move(s);
      }
    }
    out.push_back(std::move(sets));
  }
  return out;
}

FailureOr<std::vector<Deps>> DependencyAnalysis::run(FuncOp f, const std::vector<Deps> &args) {
  DenseMap<Value, Deps> deps;
  Block &body = f.getBody().front();
  for (auto [a, d] : llvm::zip(body.getArguments(), args))
    deps[a] = d;
  // A value's sets are dropped after its last use: the analysis of a long
  // function then holds a few arrays of sets at a time, not one per value
  // (at n = 10^5 each is megabytes, and fresh memory costs page faults).
  DenseMap<Value, unsigned> usesLeft;
  for (Operation &op : body)
    for (Value v : op.getOperands())
      ++usesLeft[v];
  std::vector<Deps> out;
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

/// Whether every element of `v` is zero whatever the inputs: a zero
/// constant, or a product, quotient or rearrangement of such a value.
bool isKnownZero(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
    return attr && isa<FloatType>(attr.getElementType()) &&
           llvm::all_of(attr.getValues<APFloat>(), [](const APFloat &f) { return f.isZero(); });
  }
  if (isa<MulOp>(def))
    return isKnownZero(def->getOperand(0)) || isKnownZero(def->getOperand(1));
  if (isa<DivOp, NegOp, BroadcastOp, ReshapeOp, TransposeOp, SliceOp>(def))
    return isKnownZero(def->getOperand(0));
  return false;
}

/// For a product (either factor) or quotient (numerator) with a constant or
/// known-zero operand, the elements where that operand is zero; empty
/// otherwise.
std::vector<bool> zeroElements(Operation *op) {
  std::vector<bool> zero;
  if (!isa<MulOp, DivOp>(op))
    return zero;
  unsigned candidates = isa<MulOp>(op) ? 2 : 1;
  int64_t count = numElements(op->getResult(0).getType());
  for (unsigned i = 0; i < candidates; ++i) {
    if (isKnownZero(op->getOperand(i)))
      return std::vector<bool>(count, true);
    auto c = op->getOperand(i).getDefiningOp<ConstantOp>();
    if (!c)
      continue;
    auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!attr || !isa<FloatType>(attr.getElementType()))
      continue;
    int64_t n = numElements(op->getResult(0).getType());
    zero.resize(n, false);
    auto values = attr.getValues<APFloat>();
    for (int64_t e = 0; e < n; ++e)
      if ((attr.isSplat() ? *values.begin() : values[e]).isZero())
        zero[e] = true;
  }
  return zero;
}

Deps fromSets(std::vector<Set> sets) {
  bool any = llvm::any_of(sets, [](const Set &s) { return !s.empty(); });
  return any ? std::make_shared<const std::vector<Set>>(std::move(sets)) : nullptr;
}

LogicalResult DependencyAnalysis::visit(Operation *op, DenseMap<Value, Deps> &deps) {
  auto in = [&](unsigned i) { return deps.lookup(op->getOperand(i)); };
  bool noInput = llvm::none_of(op->getOperands(), [&](Value v) { return bool(deps.lookup(v)); });
  if (noInput || op->hasTrait<ZeroDerivative>() || !anyFloat(op->getResults()))
    return success(); // results depend on nothing
  if (auto math = dyn_cast<MathOp>(op))
    if (math.getFn() == MathFn::floor || math.getFn() == MathFn::ceil)
      return success();

  if (op->hasTrait<OpTrait::Elementwise>()) {
    int64_t n = numElements(op->getResult(0).getType());
    std::vector<Set> sets(n);
    unsigned first = isa<SelectOp>(op) ? 1 : 0; // not the condition
    // A product with a constant zero (element) is zero whatever the other
    // factor: d(0 * x) = 0 * dx. So is a quotient with a zero numerator.
    auto zeroAt = zeroElements(op);
    // One operand that depends on anything, and no zero factor: the result
    // depends on exactly what it does (shared, not copied).
    SmallVector<unsigned> varying;
    for (unsigned i = first; i < op->getNumOperands(); ++i)
      if (in(i) && Differentiator::isFloat(op->getOperand(i)))
        varying.push_back(i);
    if (varying.size() == 1 && zeroAt.empty()) {
      deps[op->getResult(0)] = in(varying[0]);
      return success();
    }
    for (unsigned i = first; i < op->getNumOperands(); ++i) {
      Deps d = in(i);
      if (!d || !Differentiator::isFloat(op->getOperand(i)))
        continue;
      for (int64_t e = 0; e < n; ++e)
        if (zeroAt.empty() || !zeroAt[e])
          sets[e].insert(sets[e].end(), (*d)[e].begin(), (*d)[e].end());
    }
    for (Set &s : sets)
      normalize(s);
    deps[op->getResult(0)] = fromSets(std::move(sets));
    return success();
  }

  auto setResult = [&](Deps d) {
    deps[op->getResult(0)] = d;
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<ReshapeOp>([&](auto) { return setResult(in(0)); })
      .Case<BroadcastOp>([&](BroadcastOp b) {
        ArrayRef<int64_t> from = shapeOf(b.getOperand()), to = shapeOf(b.getResult());
        auto fromStrides = stridesOf(from), toStrides = stridesOf(to);
        size_t lead = to.size() - from.size();
        return setResult(moveElements(in(0), numElements(b.getType()), [&](int64_t e) {
          int64_t src = 0;
          for (size_t i = 0; i < from.size(); ++i) {
            int64_t idx = (e / toStrides[lead + i]) % to[lead + i];
            src += (from[i] == 1 ? 0 : idx) * fromStrides[i];
          }
          return src;
        }));
      })
      .Case<TransposeOp>([&](TransposeOp t) {
        ArrayRef<int64_t> to = shapeOf(t.getResult());
        auto fromStrides = stridesOf(shapeOf(t.getOperand())), toStrides = stridesOf(to);
        ArrayRef<int64_t> perm = t.getPermutation();
        return setResult(moveElements(in(0), numElements(t.getType()), [&](int64_t e) {
          int64_t src = 0;
          for (size_t i = 0; i < to.size(); ++i)
            src += ((e / toStrides[i]) % to[i]) * fromStrides[perm[i]];
          return src;
        }));
      })
      .Case<SliceOp>([&](SliceOp s) {
        ArrayRef<int64_t> to = shapeOf(s.getResult());
        auto fromStrides = stridesOf(shapeOf(s.getOperand())), toStrides = stridesOf(to);
        return setResult(moveElements(in(0), numElements(s.getType()), [&](int64_t e) {
          int64_t src = 0;
          for (size_t i = 0; i < to.size(); ++i)
            src += (s.getStarts()[i] + ((e / toStrides[i]) % to[i]) * s.getSteps()[i]) *
                   fromStrides[i];
          return src;
        }));
      })
      .Case<GatherOp>([&](GatherOp g) {
        ArrayRef<int64_t> idx = g.getIndices();
        return setResult(moveElements(in(0), idx.size(), [&](int64_t e) { return idx[e]; }));
      })
      .Case<ConcatOp>([&](ConcatOp c) {
        int64_t n = numElements(c.getType());
        std::vector<Set> sets(n);
        ArrayRef<int64_t> to = shapeOf(c.getResult());
        auto toStrides = stridesOf(to);
        int64_t offset = 0;
        for (unsigned p = 0; p < c.getNumOperands(); ++p) {
          Deps d = in(p);
          ArrayRef<int64_t> from = shapeOf(c.getOperand(p));
          int64_t size = numElements(c.getOperand(p).getType());
          if (d) {
            auto fromStrides = stridesOf(from);
            for (int64_t j = 0; j < size; ++j) {
              int64_t dst = offset + j;
              if (c.getAxis()) { // place element j of part p along the axis
                int64_t axis = *c.getAxis();
                dst = 0;
                for (size_t i = 0; i < from.size(); ++i) {
                  int64_t idx = (j / fromStrides[i]) % from[i];
                  dst += (i == static_cast<size_t>(axis) ? idx + offset : idx) * toStrides[i];
                }
              }
              sets[dst] = (*d)[j];
            }
          }
          offset += c.getAxis() ? from[*c.getAxis()] : size;
        }
        return setResult(fromSets(std::move(sets)));
      })
      .Case<ReduceOp, SumOp>([&](Operation *r) {
        Value x = r->getOperand(0);
        ArrayRef<int64_t> from = shapeOf(x);
        SmallVector<int64_t> axes;
        if (auto red = dyn_cast<ReduceOp>(r))
          axes.assign(red.getAxes().begin(), red.getAxes().end());
        else
          axes = llvm::to_vector(llvm::seq<int64_t>(0, from.size()));
        SmallVector<int64_t> kept;
        for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
          if (!llvm::is_contained(axes, i))
            kept.push_back(from[i]);
        auto fromStrides = stridesOf(from), keptStrides = stridesOf(kept);
        std::vector<Set> sets(numElements(r->getResult(0).getType()));
        const auto &d = *in(0);
        for (int64_t e = 0; e < numElements(x.getType()); ++e) {
          int64_t dst = 0, k = 0;
          for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
            if (!llvm::is_contained(axes, i))
              dst += ((e / fromStrides[i]) % from[i]) * keptStrides[k++];
          sets[dst].insert(sets[dst].end(), d[e].begin(), d[e].end());
        }
        for (Set &s : sets)
          normalize(s);
        return setResult(fromSets(std::move(sets)));
      })
      .Case<MatmulOp>([&](MatmulOp m) {
        // C[b,i,j] depends on row i of A and column j of B (all k).
        ArrayRef<int64_t> c = shapeOf(m.getResult());
        int64_t rows = c[c.size() - 2], cols = c.back(), inner = shapeOf(m.getLhs()).back();
        int64_t batch = numElements(m.getType()) / std::max<int64_t>(rows * cols, 1);
        Deps a = in(0), b = in(1);
        std::vector<Set> sets(numElements(m.getType()));
        for (int64_t bi = 0; bi < batch; ++bi) {
          std::vector<Set> rowSets(rows), colSets(cols);
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t k = 0; k < inner && a; ++k) {
              const Set &s = (*a)[(bi * rows + i) * inner + k];
              rowSets[i].insert(rowSets[i].end(), s.begin(), s.end());
            }
          for (int64_t j = 0; j < cols; ++j)
            for (int64_t k = 0; k < inner && b; ++k) {
              const Set &s = (*b)[(bi * inner + k) * cols + j];
              colSets[j].insert(colSets[j].end(), s.begin(), s.end());
            }
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
              Set &s = sets[(bi * rows + i) * cols + j];
              s = rowSets[i];
              s.insert(s.end(), colSets[j].begin(), colSets[j].end());
              normalize(s);
            }
        }
        return setResult(fromSets(std::move(sets)));
      })
      .Case<CallOp>([&](CallOp call) -> LogicalResult {
        auto lp = local(symbols.lookup<FuncOp>(call.getCallee()));
        if (failed(lp))
          return failure();
        auto sets = compose(**lp, [&](size_t k, int64_t j) -> const Set * {
          Deps d = in(k);
          return d ? &(*d)[j] : nullptr;
        });
        for (auto [r, s] : llvm::zip(call.getResults(), sets))
          deps[r] = fromSets(std::move(s));
        return success();
      })
      .Case<MapOp>([&](MapOp map) -> LogicalResult {
        FuncOp callee = symbols.lookup<FuncOp>(map.getCallee());
        auto lp = local(callee);
        if (failed(lp))
          return failure();
        std::vector<std::vector<Set>> stacked(map.getNumResults());
        for (int64_t it = 0; it < map.getCount(); ++it) {
          auto sets = compose(**lp, [&](size_t k, int64_t j) -> const Set * {
            Deps d = in(k);
            if (!d)
              return nullptr;
            int64_t size = numElements(callee.getArgumentTypes()[k]);
            return &(*d)[map.isMapped(k) ? it * size + j : j];
          });
          for (unsigned r = 0; r < sets.size(); ++r) {
            int64_t size = numElements(callee.getResultTypes()[r]);
            if (sets[r].empty())
              sets[r].resize(size);
            for (Set &s : sets[r])
              stacked[r].push_back(std::move(s));
          }
        }
        for (auto [r, s] : llvm::zip(map.getResults(), stacked))
          deps[r] = fromSets(std::move(s));
        return success();
      })
      .Case<ScanOp>([&](ScanOp scan) -> LogicalResult {
        FuncOp callee = symbols.lookup<FuncOp>(scan.getCallee());
        auto lp = local(callee);
        if (failed(lp))
          return failure();
        int64_t stateSize = numElements(callee.getArgumentTypes()[0]);
        std::vector<Set> state(stateSize);
        if (Deps d = in(0))
          state = *d;
        std::vector<std::vector<Set>> stacked(scan.getNumResults());
        for (int64_t it = 0; it < scan.getCount(); ++it) {
          auto sets = compose(**lp, [&](size_t k, int64_t j) -> const Set * {
            if (k == 0)
              return &state[j];
            Deps d = in(k);
            if (!d)
              return nullptr;
            int64_t size = numElements(callee.getArgumentTypes()[k]);
            return &(*d)[scan.isMapped(k) ? it * size + j : j];
          });
          for (unsigned r = 0; r < sets.size(); ++r)
            if (sets[r].empty())
              sets[r].resize(numElements(callee.getResultTypes()[r]));
          state = std::move(sets[0]);
          for (unsigned r = 1; r < sets.size(); ++r)
            for (Set &s : sets[r])
              stacked[r].push_back(std::move(s));
        }
        deps[scan.getResult(0)] = fromSets(std::move(state));
        for (unsigned r = 1; r < scan.getNumResults(); ++r)
          deps[scan.getResult(r)] = fromSets(std::move(stacked[r]));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("has no sparsity rule");
      });
}

} // namespace

FailureOr<SparsityPattern> scaly::expr::jacobianPattern(ModuleOp module, FuncOp f, unsigned wrt,
                                                        unsigned of) {
  PassManager pm(module.getContext());
  pm.addPass(createDifferentiate());
  if (failed(pm.run(module)))
    return failure();
  std::vector<Deps> args(f.getArgumentTypes().size());
  int64_t n = numElements(f.getArgumentTypes()[wrt]);
  if (n > INT32_MAX)
    return f.emitOpError("input is too large for a sparsity analysis");
  auto seed = std::make_shared<std::vector<Set>>(n);
  for (int64_t j = 0; j < n; ++j)
    (*seed)[j] = {static_cast<int32_t>(j)};
  args[wrt] = seed;
  DependencyAnalysis analysis(module);
  auto results = analysis.run(f, args);
  if (failed(results))
    return failure();
  SparsityPattern p;
  p.nrow = numElements(f.getResultTypes()[of]);
  p.ncol = n;
  std::vector<std::vector<int64_t>> columns(n);
  if (Deps d = (*results)[of])
    for (int64_t r = 0; r < p.nrow; ++r)
      for (int32_t c : (*d)[r])
        columns[c].push_back(r);
  p.colind.push_back(0);
  for (auto &col : columns) {
    p.row.insert(p.row.end(), col.begin(), col.end());
    p.colind.push_back(static_cast<int64_t>(p.row.size()));
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Colourings
//===----------------------------------------------------------------------===//

/// Rows of each column and columns of each row.
static std::pair<std::vector<std::vector<int64_t>>, std::vector<std::vector<int64_t>>>
adjacency(const SparsityPattern &p) {
  std::vector<std::vector<int64_t>> colRows(p.ncol), rowCols(p.nrow);
  for (int64_t c = 0; c < p.ncol; ++c)
    for (int64_t k = p.colind[c]; k < p.colind[c + 1]; ++k) {
      colRows[c].push_back(p.row[k]);
      rowCols[p.row[k]].push_back(c);
    }
  return {colRows, rowCols};
}

/// Greedy distance-2 colouring of the "left" vertices of a bipartite graph.
static std::vector<int64_t> greedyPartial(const std::vector<std::vector<int64_t>> &mine,
                                          const std::vector<std::vector<int64_t>> &theirs) {
  std::vector<int64_t> colour(mine.size(), -1), forbidden;
  for (size_t v = 0; v < mine.size(); ++v) {
    for (int64_t r : mine[v])
      for (int64_t w : theirs[r])
        if (colour[w] >= 0) {
          if (forbidden.size() <= static_cast<size_t>(colour[w]))
            forbidden.resize(colour[w] + 1, -1);
          forbidden[colour[w]] = static_cast<int64_t>(v);
        }
    int64_t c = 0;
    while (c < static_cast<int64_t>(forbidden.size()) && forbidden[c] == static_cast<int64_t>(v))
      ++c;
    colour[v] = c;
  }
  return colour;
}

std::vector<int64_t> scaly::expr::colourColumns(const SparsityPattern &p) {
  auto [colRows, rowCols] = adjacency(p);
  return greedyPartial(colRows, rowCols);
}

std::vector<int64_t> scaly::expr::colourRows(const SparsityPattern &p) {
  auto [colRows, rowCols] = adjacency(p);
  return greedyPartial(rowCols, colRows);
}

std::vector<int64_t> scaly::expr::starColouring(const SparsityPattern &p) {
  if (p.nrow != p.ncol)
    throw std::invalid_argument("a star colouring needs a square pattern");
  // The adjacency graph: i ~ j when (i, j) or (j, i) is stored, i != j.
  int64_t n = p.ncol;
  std::vector<std::vector<int64_t>> adj(n);
  for (int64_t c = 0; c < n; ++c)
    for (int64_t k = p.colind[c]; k < p.colind[c + 1]; ++k)
      if (p.row[k] != c) {
        adj[c].push_back(p.row[k]);
        adj[p.row[k]].push_back(c);
      }
  for (auto &a : adj) {
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
  }
  // Gebremedhin, Manne and Pothen (2005), star colouring algorithm 1: a
  // vertex avoids its neighbours' colours, the colours of uncoloured
  // neighbours' neighbours, and, for a coloured neighbour w, the colour of a
  // neighbour x of w when x has a neighbour y != w coloured like w (which
  // would make the path v-w-x-y two-coloured).
  std::vector<int64_t> colour(n, -1), forbidden;
  auto forbid = [&](int64_t c, int64_t v) {
    if (c < 0)
      return;
    if (forbidden.size() <= static_cast<size_t>(c))
      forbidden.resize(c + 1, -1);
    forbidden[c] = v;
  };
  for (int64_t v = 0; v < n; ++v) {
    for (int64_t w : adj[v])
      forbid(colour[w], v);
    for (int64_t w : adj[v]) {
      if (colour[w] < 0) {
        for (int64_t x : adj[w])
          if (x != v)
            forbid(colour[x], v);
        continue;
      }
      for (int64_t x : adj[w]) {
        if (x == v || colour[x] < 0)
          continue;
        for (int64_t y : adj[x])
          if (y != w && colour[y] == colour[w]) {
            forbid(colour[x], v);
            break;
          }
      }
    }
    int64_t c = 0;
    while (c < static_cast<int64_t>(forbidden.size()) && forbidden[c] == v)
      ++c;
    colour[v] = c;
  }
  return colour;
}

std::vector<bool> scaly::expr::symmetricSource(const SparsityPattern &p,
                                               const std::vector<int64_t> &colour) {
  auto [colRows, rowCols] = adjacency(p);
  // Per row, how many of its columns carry each colour.
  auto uniqueIn = [&](int64_t row, int64_t c) {
    int count = 0;
    for (int64_t j : rowCols[row])
      count += colour[j] == c;
    return count == 1;
  };
  std::vector<bool> fromRow;
  for (int64_t j = 0; j < p.ncol; ++j)
    for (int64_t k = p.colind[j]; k < p.colind[j + 1]; ++k) {
      int64_t i = p.row[k];
      if (uniqueIn(i, colour[j]))
        fromRow.push_back(true);
      else if (uniqueIn(j, colour[i]))
        fromRow.push_back(false);
      else
        throw std::logic_error("star colouring does not determine entry (" + std::to_string(i) +
                               ", " + std::to_string(j) + ")");
    }
  return fromRow;
}
