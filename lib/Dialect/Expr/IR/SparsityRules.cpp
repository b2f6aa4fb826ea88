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
  DepSets out = freshSets();
  out.reserve(static_cast<int64_t>(lists.size()));
  for (auto &l : lists)
    out.appendUnsorted(l);
  return finish(std::move(out));
}

namespace {
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

LogicalResult ReshapeOp::propagateDependencies(DependencyContext &ctx) {
  ctx.setResult(0, ctx.operand(0)); // row-major order is unchanged
  return success();
}

LogicalResult BroadcastOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> from = shapeOf(getOperand()), to = shapeOf(getResult());
  auto fromStrides = computeStrides(from);
  size_t lead = to.size() - from.size();
  SmallVector<int64_t> strides(to.size(), 0); // new and size-1 axes repeat
  for (size_t i = 0; i < from.size(); ++i)
    strides[lead + i] = from[i] == 1 ? 0 : fromStrides[i];
  ctx.setResult(0, moveAffine(ctx.operand(0), to, 0, strides));
  return success();
}

LogicalResult TransposeOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> to = shapeOf(getResult());
  auto fromStrides = computeStrides(shapeOf(getOperand()));
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> strides;
  for (size_t i = 0; i < to.size(); ++i)
    strides.push_back(fromStrides[perm[i]]);
  ctx.setResult(0, moveAffine(ctx.operand(0), to, 0, strides));
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
  ctx.setResult(0, moveAffine(ctx.operand(0), to, base, strides));
  return success();
}

LogicalResult GatherOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> idx = getIndices();
  ctx.setResult(0, moveElements(ctx.operand(0), idx.size(), [&](int64_t e) { return idx[e]; }));
  return success();
}

LogicalResult ConcatOp::propagateDependencies(DependencyContext &ctx) {
  // The result is made of blocks, each a contiguous run of one part's
  // elements: per position before the axis, each part's slab in turn (the
  // whole parts one after the other when flattened). A part that depends on
  // nothing gives empty sets.
  SmallVector<Deps> parts;
  for (unsigned p = 0; p < getNumOperands(); ++p)
    parts.push_back(ctx.operand(p));
  if (llvm::none_of(parts, [](const Deps &d) { return bool(d); })) {
    ctx.setResult(0, nullptr); // depends on nothing
    return success();
  }
  int64_t outer = 1;
  SmallVector<int64_t> slab; // elements of part p per position before the axis
  for (unsigned p = 0; p < parts.size(); ++p) {
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
  out.cols.resize(start[n]);
  forEachBlock([&](const DepSets *part, int64_t first, int64_t count, int64_t e) {
    blockCols(part, first, count, out.cols.data() + start[e]);
  });
  ctx.setResult(0, finish(std::move(out)));
  return success();
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

LogicalResult MatmulOp::propagateDependencies(DependencyContext &ctx) {
  // C[b,i,j] depends on row i of A and column j of B (all k).
  ArrayRef<int64_t> c = shapeOf(getResult());
  int64_t rows = c[c.size() - 2], cols = c.back(), inner = shapeOf(getLhs()).back();
  int64_t batch = numElements(getType()) / std::max<int64_t>(rows * cols, 1);
  Deps a = ctx.operand(0), b = ctx.operand(1);
  std::vector<SmallVector<int32_t, 4>> lists(numElements(getType()));
  for (int64_t bi = 0; bi < batch; ++bi) {
    std::vector<SmallVector<int32_t, 4>> rowSets(rows), colSets(cols);
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
