//===- SparsityRules.cpp - each structural op's sparsity rule -------------===//
//
// SparsityRuleOpInterface for the ops that move, combine or reduce elements
// (elementwise ops share the analysis' one rule). Each result element gets
// the union of the sets of the operand elements it is computed from; the
// analysis (Analysis/Sparsity.cpp) calls these in order and composes callees.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace scaly::expr;

// -- the arrays of sets ------------------------------------------------------

namespace {
/// Arrays of sets no longer used, kept for the next value.
thread_local std::vector<DepSets> recycledSets;
constexpr size_t kRecycledLimit = 32;

ArrayRef<int64_t> shapeOf(Value v) { return cast<RankedTensorType>(v.getType()).getShape(); }
} // namespace

void scaly::expr::recycle(DepSets &&sets) {
  if (recycledSets.size() < kRecycledLimit)
    recycledSets.push_back(std::move(sets));
}

void scaly::expr::releaseRecycledSets() {
  recycledSets.clear();
  recycledSets.shrink_to_fit();
}

DepSets scaly::expr::freshSets() {
  if (recycledSets.empty())
    return DepSets();
  DepSets s = std::move(recycledSets.back());
  recycledSets.pop_back();
  s.start.assign(1, 0);
  s.cols.clear();
  return s;
}

Deps scaly::expr::finish(DepSets sets) {
  if (sets.cols.empty()) {
    recycle(std::move(sets));
    return nullptr;
  }
  return Deps(new DepSets(std::move(sets)), [](const DepSets *d) {
    recycle(std::move(*const_cast<DepSets *>(d)));
    delete d;
  });
}

Deps scaly::expr::fromLists(std::vector<SmallVector<int32_t, 4>> &lists) {
  // Each list made sorted and distinct in place first, so that the value is
  // sized exactly (and refused past kMaxEntries) before it is allocated.
  int64_t entries = 0;
  for (auto &l : lists) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    entries += static_cast<int64_t>(l.size());
  }
  checkEntries(entries);
  DepSets out = freshSets();
  out.reserve(static_cast<int64_t>(lists.size()));
  out.cols.reserve(entries);
  for (auto &l : lists)
    out.append(l);
  return finish(std::move(out));
}

// -- banded sets -------------------------------------------------------------

Deps scaly::expr::expandBands(const BandedSets &b) {
  DepSets out = freshSets();
  out.start.assign(b.size + 1, 0);
  size_t total = 0;
  for (const Band &band : b.bands)
    total += static_cast<size_t>(band.hi - band.lo) * band.offsets.size();
  checkEntries(static_cast<int64_t>(total));
  out.cols.resize(total);
  int64_t *start = out.start.data();
  int32_t *cols = out.cols.data();
  int64_t e = 0, k = 0;
  for (const Band &band : b.bands) {
    for (; e < band.lo; ++e)
      start[e + 1] = k;
    for (; e < band.hi; ++e) {
      for (int64_t c : band.offsets)
        cols[k++] = static_cast<int32_t>(e + c);
      start[e + 1] = k;
    }
  }
  for (; e < b.size; ++e)
    start[e + 1] = k;
  return finish(std::move(out));
}

Banded scaly::expr::finishBands(BandedSets b) {
  if (b.bands.empty())
    return nullptr;
  return std::make_shared<const BandedSets>(std::move(b));
}

BandedSets scaly::expr::windowOf(const BandedSets &from, int64_t first, int64_t count) {
  BandedSets out;
  out.size = count;
  for (const Band &band : from.bands) {
    // Element e of the window is element first + e of `from`: it depends on
    // first + e + c, at distance c + first from its own position.
    int64_t lo = std::max<int64_t>(band.lo - first, 0);
    int64_t hi = std::min<int64_t>(band.hi - first, count);
    if (lo >= hi)
      continue;
    Band moved{lo, hi, band.offsets};
    for (int64_t &c : moved.offsets)
      c += first;
    out.bands.push_back(std::move(moved));
  }
  return out;
}

std::optional<BandedSets> scaly::expr::unionOf(ArrayRef<const BandedSets *> parts) {
  BandedSets out;
  out.size = parts.empty() ? 0 : parts.front()->size;
  // Between two consecutive band ends of any part, the same bands cover
  // every element: one union of offsets per such run.
  std::vector<int64_t> cuts;
  for (const BandedSets *p : parts)
    for (const Band &band : p->bands) {
      cuts.push_back(band.lo);
      cuts.push_back(band.hi);
    }
  llvm::sort(cuts);
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<size_t> at(parts.size(), 0);
  SmallVector<int64_t, 8> offsets;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    int64_t lo = cuts[i], hi = cuts[i + 1];
    offsets.clear();
    for (auto [k, p] : llvm::enumerate(parts)) {
      while (at[k] < p->bands.size() && p->bands[at[k]].hi <= lo)
        ++at[k];
      if (at[k] < p->bands.size() && p->bands[at[k]].lo <= lo)
        offsets.append(p->bands[at[k]].offsets.begin(), p->bands[at[k]].offsets.end());
    }
    if (offsets.empty())
      continue;
    llvm::sort(offsets);
    offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());
    if (!out.bands.empty() && out.bands.back().hi == lo &&
        ArrayRef<int64_t>(out.bands.back().offsets) == ArrayRef<int64_t>(offsets)) {
      out.bands.back().hi = hi; // the same distances go on
      continue;
    }
    if (out.bands.size() == kMaxBands)
      return std::nullopt;
    out.bands.push_back(Band{lo, hi, SmallVector<int64_t, 4>(offsets.begin(), offsets.end())});
  }
  return out;
}

namespace {
/// Whether a rearrangement of `shape` reading base + sum idx[i] * strides[i]
/// reads consecutive elements (a window: banded sets stay banded).
bool readsWindow(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides) {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] != 1 && strides[i] != expected)
      return false;
    expected *= shape[i];
  }
  return true;
}

/// Calls fn(rowSource, firstElement) for each row (last axis) of `shape`
/// in row-major order, rowSource = base + sum over the leading axes of
/// idx[i] * strides[i] (an odometer: no division per row either).
template <typename Fn>
void forEachRow(ArrayRef<int64_t> shape, int64_t base, ArrayRef<int64_t> strides, Fn fn) {
  size_t lead = shape.empty() ? 0 : shape.size() - 1;
  int64_t inner = shape.empty() ? 1 : shape.back();
  for (int64_t d : shape)
    if (d == 0)
      return;
  SmallVector<int64_t> idx(lead, 0);
  int64_t src = base;
  for (int64_t e = 0;; e += inner) {
    fn(src, e);
    size_t i = lead;
    while (i > 0) {
      --i;
      src += strides[i];
      if (++idx[i] < shape[i])
        break;
      src -= strides[i] * shape[i];
      idx[i] = 0;
      if (i == 0)
        return;
    }
    if (lead == 0)
      return;
  }
}
} // namespace

/// Result elements e .. e + count - 1 read `from`'s elements first ..
/// first + count - 1, contiguous there: their offsets (start[e] is set),
/// and then their sets, as one block copy. A null `from`: empty sets.
static void blockStarts(const DepSets *from, int64_t first, int64_t count, int64_t *start,
                        int64_t e) {
  if (!from) {
    std::fill(start + e + 1, start + e + count + 1, start[e]);
    return;
  }
  int64_t shift = start[e] - from->start[first];
  for (int64_t j = 1; j <= count; ++j)
    start[e + j] = from->start[first + j] + shift;
}
static void blockCols(const DepSets *from, int64_t first, int64_t count, int32_t *to) {
  if (from)
    std::copy(from->cols.data() + from->start[first],
              from->cols.data() + from->start[first + count], to);
}

Deps scaly::expr::moveAffine(const Deps &from, ArrayRef<int64_t> shape, int64_t base,
                             ArrayRef<int64_t> strides) {
  if (!from)
    return nullptr;
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  int64_t inner = shape.empty() ? 1 : shape.back();
  int64_t step = strides.empty() ? 0 : strides.back();
  const int64_t *in = from->start.data();
  const int32_t *cols = from->cols.data();
  DepSets out = freshSets();
  out.start.resize(count + 1);
  int64_t *start = out.start.data();
  forEachRow(shape, base, strides, [&](int64_t src, int64_t e) {
    if (step == 1) // the row's sets are contiguous in `from`
      return blockStarts(from.get(), src, inner, start, e);
    for (int64_t j = 0; j < inner; ++j, src += step)
      start[e + j + 1] = start[e + j] + in[src + 1] - in[src];
  });
  checkEntries(start[count]);
  out.cols.resize(start[count]);
  int32_t *to = out.cols.data();
  forEachRow(shape, base, strides, [&](int64_t src, int64_t e) {
    if (step == 1)
      return blockCols(from.get(), src, inner, to + start[e]);
    for (int64_t j = 0; j < inner; ++j, src += step)
      std::copy(cols + in[src], cols + in[src + 1], to + start[e + j]);
  });
  return finish(std::move(out));
}

// -- rearrangements: each result element reads one operand element ----------

/// Result 0 of a rearrangement of operand 0 (see moveAffine): banded when
/// the operand is and the result is a window of it.
static void setMoved(DependencyContext &ctx, ArrayRef<int64_t> shape, int64_t base,
                     ArrayRef<int64_t> strides) {
  if (Banded b = ctx.bandedOperand(0); b && readsWindow(shape, strides)) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    // The whole operand in order (x[:], a trivial transpose): the same bands.
    ctx.setResult(0, base == 0 && count == b->size ? b : finishBands(windowOf(*b, base, count)));
    return;
  }
  ctx.setResult(0, moveAffine(ctx.operand(0), shape, base, strides));
}

LogicalResult ReshapeOp::propagateDependencies(DependencyContext &ctx) {
  // Row-major order is unchanged.
  if (Banded b = ctx.bandedOperand(0))
    ctx.setResult(0, b);
  else
    ctx.setResult(0, ctx.operand(0));
  return success();
}

LogicalResult BroadcastOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> from = shapeOf(getOperand()), to = shapeOf(getResult());
  auto fromStrides = computeStrides(from);
  size_t lead = to.size() - from.size();
  SmallVector<int64_t> strides(to.size(), 0); // new and size-1 axes repeat
  for (size_t i = 0; i < from.size(); ++i)
    strides[lead + i] = from[i] == 1 ? 0 : fromStrides[i];
  setMoved(ctx, to, 0, strides);
  return success();
}

LogicalResult TransposeOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> to = shapeOf(getResult());
  auto fromStrides = computeStrides(shapeOf(getOperand()));
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> strides;
  for (size_t i = 0; i < to.size(); ++i)
    strides.push_back(fromStrides[perm[i]]);
  setMoved(ctx, to, 0, strides);
  return success();
}

LogicalResult SliceOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> to = shapeOf(getResult());
  auto fromStrides = computeStrides(shapeOf(getOperand()));
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  int64_t base = 0;
  SmallVector<int64_t> strides;
  for (size_t i = 0; i < to.size(); ++i) {
    base += starts[i] * fromStrides[i];
    strides.push_back(steps[i] * fromStrides[i]);
  }
  setMoved(ctx, to, base, strides);
  return success();
}

LogicalResult GatherOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> idx = getIndices();
  ctx.setResult(0, moveElements(ctx.operand(0), idx.size(), [&](int64_t e) { return idx[e]; }));
  return success();
}

/// Element positions[k] of the result reads value k; every other element is
/// a zero, depending on nothing. The values are visited in position order
/// (a sorted permutation of them, O(entries)), so the walk over the result
/// only writes the start of each element's set.
LogicalResult ScatterOp::propagateDependencies(DependencyContext &ctx) {
  Deps from = ctx.operand(0);
  if (!from) {
    ctx.setResult(0, Deps());
    return success();
  }
  ArrayRef<int64_t> at = getPositions();
  SmallVector<int64_t> order(at.size());
  for (size_t k = 0; k < at.size(); ++k)
    order[k] = static_cast<int64_t>(k);
  llvm::sort(order, [&](int64_t a, int64_t b) { return at[a] < at[b]; });
  const int64_t *in = from->start.data();
  int64_t total = 0;
  for (int64_t k : order)
    total += in[k + 1] - in[k];
  checkEntries(total);
  int64_t n = numElements(getResult().getType());
  DepSets out = freshSets();
  out.start.assign(n + 1, 0);
  out.cols.resize(total);
  int64_t filled = 0, e = 0;
  for (int64_t k : order) {
    std::fill(out.start.begin() + e + 1, out.start.begin() + at[k] + 1, filled);
    std::copy(from->cols.data() + in[k], from->cols.data() + in[k + 1],
              out.cols.data() + filled);
    filled += in[k + 1] - in[k];
    e = at[k];
    out.start[e + 1] = filled;
    ++e;
  }
  std::fill(out.start.begin() + e + 1, out.start.end(), filled);
  ctx.setResult(0, finish(std::move(out)));
  return success();
}

/// A concatenation of whole parts (nothing before the axis) of banded or
/// independent parts: each part's bands moved to where it lands. False when
/// a part has explicit sets or the union needs too many bands.
static bool keepBands(DependencyContext &ctx, ConcatOp op, int64_t n) {
  std::vector<BandedSets> placed;
  int64_t at = 0;
  for (unsigned p = 0; p < op->getNumOperands(); ++p) {
    int64_t size = numElements(op->getOperand(p).getType());
    if (Banded b = ctx.bandedOperand(p))
      placed.push_back(windowOf(*b, -at, n));
    else if (ctx.operand(p))
      return false;
    at += size;
  }
  SmallVector<const BandedSets *> parts;
  for (const BandedSets &b : placed)
    parts.push_back(&b);
  auto all = unionOf(parts);
  if (!all)
    return false;
  all->size = n;
  ctx.setResult(0, finishBands(std::move(*all)));
  return true;
}

LogicalResult ConcatOp::propagateDependencies(DependencyContext &ctx) {
  // The result is made of blocks, each a contiguous run of one part's
  // elements: per position before the axis, each part's slab in turn (the
  // whole parts one after the other when flattened). A part that depends on
  // nothing gives empty sets.
  int64_t outer = 1;
  SmallVector<int64_t> slab; // elements of part p per position before the axis
  for (unsigned p = 0; p < getNumOperands(); ++p) {
    ArrayRef<int64_t> shape = shapeOf(getOperand(p));
    int64_t size = numElements(getOperand(p).getType());
    if (!getAxis()) {
      slab.push_back(size);
      continue;
    }
    int64_t before = 1;
    for (int64_t i = 0; i < *getAxis(); ++i)
      before *= shape[i];
    outer = before;
    slab.push_back(before ? size / before : 0);
  }
  int64_t n = numElements(getType());
  if (outer == 1 && keepBands(ctx, *this, n))
    return success();
  SmallVector<Deps> parts;
  for (unsigned p = 0; p < getNumOperands(); ++p)
    parts.push_back(ctx.operand(p));
  if (llvm::none_of(parts, [](const Deps &d) { return bool(d); })) {
    ctx.setResult(0, Deps()); // depends on nothing
    return success();
  }
  DepSets out = freshSets();
  out.start.resize(n + 1);
  int64_t *start = out.start.data();
  auto forEachBlock = [&](auto fn) {
    int64_t e = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (unsigned p = 0; p < parts.size(); ++p) {
        fn(parts[p].get(), o * slab[p], slab[p], e);
        e += slab[p];
      }
  };
  forEachBlock([&](const DepSets *part, int64_t first, int64_t count, int64_t e) {
    blockStarts(part, first, count, start, e);
  });
  checkEntries(start[n]);
  out.cols.resize(start[n]);
  forEachBlock([&](const DepSets *part, int64_t first, int64_t count, int64_t e) {
    blockCols(part, first, count, out.cols.data() + start[e]);
  });
  ctx.setResult(0, finish(std::move(out)));
  return success();
}

// -- values zero whatever the inputs -----------------------------------------

bool scaly::expr::isKnownZero(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto c = dyn_cast<ConstantOp>(def)) {
    auto attr = dyn_cast<DenseElementsAttr>(c.getValue());
    return attr && isa<FloatType>(attr.getElementType()) &&
           (attr.isSplat() ? attr.getSplatValue<APFloat>().isZero()
                           : llvm::all_of(attr.getValues<APFloat>(),
                                          [](const APFloat &f) { return f.isZero(); }));
  }
  if (isa<MulOp>(def))
    return isKnownZero(def->getOperand(0)) || isKnownZero(def->getOperand(1));
  if (isa<DivOp, NegOp, BroadcastOp, ReshapeOp, TransposeOp, SliceOp, ScatterOp>(def))
    return isKnownZero(def->getOperand(0));
  return false;
}

std::vector<bool> scaly::expr::knownZeroElements(Value v) {
  int64_t n = numElements(v.getType());
  if (isKnownZero(v))
    return std::vector<bool>(n, true);
  auto c = v.getDefiningOp<ConstantOp>();
  auto attr = c ? dyn_cast<DenseElementsAttr>(c.getValue()) : DenseElementsAttr();
  if (!attr || !isa<FloatType>(attr.getElementType()) || attr.isSplat())
    return {}; // a nonzero splat: no zero
  std::vector<bool> zero(n, false);
  auto values = attr.getValues<APFloat>();
  for (int64_t e = 0; e < n; ++e)
    zero[e] = values[e].isZero();
  return zero;
}

// -- reductions and products: a union per result element --------------------

/// A reduction over `axes` of `x`: each kept position unites its slice.
static Deps reduceDeps(Value x, ArrayRef<int64_t> axes, int64_t resultSize, const Deps &in) {
  ArrayRef<int64_t> from = shapeOf(x);
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
    if (!llvm::is_contained(axes, i))
      kept.push_back(from[i]);
  auto fromStrides = computeStrides(from), keptStrides = computeStrides(kept);
  std::vector<SmallVector<int32_t, 4>> lists(resultSize);
  for (int64_t e = 0; e < numElements(x.getType()); ++e) {
    int64_t dst = 0, k = 0;
    for (int64_t i = 0; i < static_cast<int64_t>(from.size()); ++i)
      if (!llvm::is_contained(axes, i))
        dst += ((e / fromStrides[i]) % from[i]) * keptStrides[k++];
    lists[dst].append((*in)[e].begin(), (*in)[e].end());
  }
  return fromLists(lists);
}

LogicalResult ReduceOp::propagateDependencies(DependencyContext &ctx) {
  Deps in = ctx.operand(0);
  ctx.setResult(0, in ? reduceDeps(getOperand(), getAxes(), numElements(getType()), in) : nullptr);
  return success();
}

LogicalResult SumOp::propagateDependencies(DependencyContext &ctx) {
  Deps in = ctx.operand(0);
  auto all = llvm::to_vector(llvm::seq<int64_t>(0, shapeOf(getOperand()).size()));
  ctx.setResult(0, in ? reduceDeps(getOperand(), all, numElements(getType()), in) : nullptr);
  return success();
}

/// The entries of the sets R_i | C_j over every (i, j), counted by merges
/// without making them (|R| + |C| - |R & C|); the sets sorted and distinct.
static int64_t unionEntries(ArrayRef<SmallVector<int32_t, 4>> rowSets,
                            ArrayRef<SmallVector<int32_t, 4>> colSets) {
  int64_t entries = 0;
  for (auto &r : rowSets)
    for (auto &c : colSets) {
      int64_t common = 0;
      for (auto x = r.begin(), y = c.begin(); x != r.end() && y != c.end();) {
        if (*x < *y)
          ++x;
        else if (*y < *x)
          ++y;
        else
          ++common, ++x, ++y;
      }
      entries += static_cast<int64_t>(r.size() + c.size()) - common;
    }
  return entries;
}

/// A matrix product where A or B has elements zero whatever the inputs
/// (`zeroA`, `zeroB`: per element, or empty): A[i,k] does not reach C[i,j]
/// where B[k,j] is such a zero, nor B[k,j] where A[i,k] is, so the product
/// with a constant matrix has the constant's structure (issue 33).
static LogicalResult matmulWithZeros(MatmulOp op, DependencyContext &ctx, const Deps &a,
                                     const Deps &b, const std::vector<bool> &zeroA,
                                     const std::vector<bool> &zeroB) {
  ArrayRef<int64_t> c = shapeOf(op.getResult());
  int64_t rows = c[c.size() - 2], cols = c.back(), inner = shapeOf(op.getLhs()).back();
  int64_t batch = numElements(op.getType()) / std::max<int64_t>(rows * cols, 1);
  std::vector<SmallVector<int32_t, 4>> lists(numElements(op.getType()));
  for (int64_t bi = 0; bi < batch; ++bi) {
    // Per row i of A: its sets united over k (when B has no known zeros),
    // else the k where B[k,j] is not zero, per column j; likewise for B.
    std::vector<SmallVector<int32_t, 4>> rowSets(rows), colSets(cols);
    std::vector<SmallVector<int64_t, 4>> rowTerms(rows), colTerms(cols);
    auto elemA = [&](int64_t i, int64_t k) { return (bi * rows + i) * inner + k; };
    auto elemB = [&](int64_t k, int64_t j) { return (bi * inner + k) * cols + j; };
    if (a && zeroB.empty())
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t k = 0; k < inner; ++k) {
          ArrayRef<int32_t> s = (*a)[elemA(i, k)];
          rowSets[i].append(s.begin(), s.end());
        }
    if (a && !zeroB.empty())
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t k = 0; k < inner; ++k)
          if (!zeroB[elemB(k, j)])
            colTerms[j].push_back(k);
    if (b && zeroA.empty())
      for (int64_t j = 0; j < cols; ++j)
        for (int64_t k = 0; k < inner; ++k) {
          ArrayRef<int32_t> s = (*b)[elemB(k, j)];
          colSets[j].append(s.begin(), s.end());
        }
    if (b && !zeroA.empty())
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t k = 0; k < inner; ++k)
          if (!zeroA[elemA(i, k)])
            rowTerms[i].push_back(k);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        auto &s = lists[(bi * rows + i) * cols + j];
        if (a && zeroB.empty())
          s = rowSets[i];
        else if (a)
          for (int64_t k : colTerms[j]) {
            ArrayRef<int32_t> t = (*a)[elemA(i, k)];
            s.append(t.begin(), t.end());
          }
        if (b && zeroA.empty())
          s.append(colSets[j].begin(), colSets[j].end());
        else if (b)
          for (int64_t k : rowTerms[i]) {
            ArrayRef<int32_t> t = (*b)[elemB(k, j)];
            s.append(t.begin(), t.end());
          }
      }
  }
  ctx.setResult(0, fromLists(lists));
  return success();
}

LogicalResult MatmulOp::propagateDependencies(DependencyContext &ctx) {
  // C[b,i,j] depends on row i of A and column j of B (all k), except through
  // the terms whose other factor is zero whatever the inputs (an element of
  // a constant matrix, matmulWithZeros).
  ArrayRef<int64_t> c = shapeOf(getResult());
  int64_t rows = c[c.size() - 2], cols = c.back(), inner = shapeOf(getLhs()).back();
  int64_t batch = numElements(getType()) / std::max<int64_t>(rows * cols, 1);
  Deps a = ctx.operand(0), b = ctx.operand(1);
  std::vector<bool> zeroA = b ? knownZeroElements(getLhs()) : std::vector<bool>();
  std::vector<bool> zeroB = a ? knownZeroElements(getRhs()) : std::vector<bool>();
  if (!zeroA.empty() || !zeroB.empty())
    return matmulWithZeros(*this, ctx, a, b, zeroA, zeroB);
  std::vector<SmallVector<int32_t, 4>> rowSets(rows), colSets(cols);
  auto setsOf = [&](int64_t bi) { // of the rows of A and columns of B, sorted and distinct
    for (auto &l : rowSets)
      l.clear();
    for (auto &l : colSets)
      l.clear();
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < inner && a; ++k) {
        ArrayRef<int32_t> s = (*a)[(bi * rows + i) * inner + k];
        rowSets[i].append(s.begin(), s.end());
      }
    for (int64_t j = 0; j < cols; ++j)
      for (int64_t k = 0; k < inner && b; ++k) {
        ArrayRef<int32_t> s = (*b)[(bi * inner + k) * cols + j];
        colSets[j].append(s.begin(), s.end());
      }
    int64_t total = 0;
    for (auto *sets : {&rowSets, &colSets})
      for (auto &l : *sets) {
        llvm::sort(l);
        l.erase(std::unique(l.begin(), l.end()), l.end());
        total += static_cast<int64_t>(l.size()) * (sets == &rowSets ? cols : rows);
      }
    return total; // the entries of the batch's sets with repeats: a bound
  };
  // The result's entries, refused past kMaxEntries before its sets are made
  // (a dense product of n x n by a vector of n depends on n^2): bounded
  // first, counted exactly only when the bound passes the limit.
  int64_t bound = 0;
  for (int64_t bi = 0; bi < batch; ++bi)
    bound += setsOf(bi);
  if (bound > kMaxEntries) {
    int64_t entries = 0;
    for (int64_t bi = 0; bi < batch; ++bi) {
      setsOf(bi);
      entries += unionEntries(rowSets, colSets);
    }
    checkEntries(entries);
  }
  std::vector<SmallVector<int32_t, 4>> lists(numElements(getType()));
  for (int64_t bi = 0; bi < batch; ++bi) {
    if (batch > 1 || bound > kMaxEntries)
      setsOf(bi);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        auto &s = lists[(bi * rows + i) * cols + j];
        s = rowSets[i];
        s.append(colSets[j].begin(), colSets[j].end());
      }
  }
  ctx.setResult(0, fromLists(lists));
  return success();
}

// -- applications: the callee's analysis, composed by the analysis ---------

LogicalResult CallOp::propagateDependencies(DependencyContext &ctx) {
  return ctx.applyCallee(*this);
}

LogicalResult MapOp::propagateDependencies(DependencyContext &ctx) {
  return ctx.applyCallee(*this);
}

LogicalResult ScanOp::propagateDependencies(DependencyContext &ctx) {
  return ctx.applyCallee(*this);
}
