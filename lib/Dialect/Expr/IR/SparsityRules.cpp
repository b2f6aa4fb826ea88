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

// -- rearrangements: each result element reads one operand element ----------

LogicalResult ReshapeOp::propagateDependencies(DependencyContext &ctx) {
  ctx.setResult(0, ctx.operand(0)); // row-major order is unchanged
  return success();
}

LogicalResult BroadcastOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> from = shapeOf(getOperand()), to = shapeOf(getResult());
  auto fromStrides = computeStrides(from), toStrides = computeStrides(to);
  size_t lead = to.size() - from.size();
  ctx.setResult(0, moveElements(ctx.operand(0), numElements(getType()), [&](int64_t e) {
    int64_t src = 0;
    for (size_t i = 0; i < from.size(); ++i) {
      int64_t idx = (e / toStrides[lead + i]) % to[lead + i];
      src += (from[i] == 1 ? 0 : idx) * fromStrides[i];
    }
    return src;
  }));
  return success();
}

LogicalResult TransposeOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> to = shapeOf(getResult());
  auto fromStrides = computeStrides(shapeOf(getOperand())), toStrides = computeStrides(to);
  ArrayRef<int64_t> perm = getPermutation();
  ctx.setResult(0, moveElements(ctx.operand(0), numElements(getType()), [&](int64_t e) {
    int64_t src = 0;
    for (size_t i = 0; i < to.size(); ++i)
      src += ((e / toStrides[i]) % to[i]) * fromStrides[perm[i]];
    return src;
  }));
  return success();
}

LogicalResult SliceOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> to = shapeOf(getResult());
  auto fromStrides = computeStrides(shapeOf(getOperand())), toStrides = computeStrides(to);
  ArrayRef<int64_t> starts = getStarts(), steps = getSteps();
  ctx.setResult(0, moveElements(ctx.operand(0), numElements(getType()), [&](int64_t e) {
    int64_t src = 0;
    for (size_t i = 0; i < to.size(); ++i)
      src += (starts[i] + ((e / toStrides[i]) % to[i]) * steps[i]) * fromStrides[i];
    return src;
  }));
  return success();
}

LogicalResult GatherOp::propagateDependencies(DependencyContext &ctx) {
  ArrayRef<int64_t> idx = getIndices();
  ctx.setResult(0, moveElements(ctx.operand(0), idx.size(), [&](int64_t e) { return idx[e]; }));
  return success();
}

LogicalResult ConcatOp::propagateDependencies(DependencyContext &ctx) {
  // Each result element reads one element of one part (or nothing, when
  // that part depends on nothing).
  ArrayRef<int64_t> to = shapeOf(getResult());
  int64_t n = numElements(getType());
  SmallVector<Deps> parts;
  for (unsigned p = 0; p < getNumOperands(); ++p)
    parts.push_back(ctx.operand(p));
  DepSets out = freshSets();
  out.reserve(n);
  if (!getAxis()) { // flattened: the parts one after the other
    for (unsigned p = 0; p < parts.size(); ++p)
      for (int64_t j = 0; j < numElements(getOperand(p).getType()); ++j)
        out.append(parts[p] ? (*parts[p])[j] : ArrayRef<int32_t>());
    ctx.setResult(0, finish(std::move(out)));
    return success();
  }
  int64_t axis = *getAxis();
  SmallVector<int64_t> offsets{0};
  SmallVector<SmallVector<int64_t>> partStrides;
  for (unsigned p = 0; p < parts.size(); ++p) {
    offsets.push_back(offsets.back() + shapeOf(getOperand(p))[axis]);
    partStrides.push_back(computeStrides(shapeOf(getOperand(p))));
  }
  auto toStrides = computeStrides(to);
  for (int64_t e = 0; e < n; ++e) {
    int64_t idx = (e / toStrides[axis]) % to[axis];
    size_t p = std::upper_bound(offsets.begin(), offsets.end(), idx) - offsets.begin() - 1;
    if (!parts[p]) {
      out.append({});
      continue;
    }
    int64_t j = 0;
    for (size_t i = 0; i < to.size(); ++i) {
      int64_t x = (e / toStrides[i]) % to[i];
      j += (static_cast<int64_t>(i) == axis ? x - offsets[p] : x) * partStrides[p][i];
    }
    out.append((*parts[p])[j]);
  }
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
