//===- Dependencies.h - what sparsity rules work on -------------*- C++ -*-===//
//
// The structural analysis behind jacobianPattern (Sparsity.h) gives every
// value, per element, the sorted set of input elements it depends on
// differentiably. Elementwise ops share one rule (the Elementwise trait);
// every other op that can depend on an input declares its own rule in ODS
// (SparsityRuleOpInterface), written against the types below.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_DIALECT_EXPR_DEPENDENCIES_H
#define SCALY_DIALECT_EXPR_DEPENDENCIES_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace scaly::expr {

/// A value's sets hold at most this many entries in all: they are the
/// pattern of that value's Jacobian by the analysed input, and a pattern's
/// tables are 32-bit (SparsityPattern). Checked before the arrays are sized
/// (checkEntries), so a value past it is refused before it is allocated: the
/// sets of `x * x.sum()` at n = 50,000 are 2.5e9 entries, 10 GB.
constexpr int64_t kMaxEntries = INT32_MAX;

/// Thrown by the builders of sets for a value of more than kMaxEntries
/// entries, before its arrays are sized; the analysis reports it as an error
/// on the op whose result it is.
class TooManyEntries : public std::length_error {
public:
  /// `entries`: the count, or (not `exact`) a count already past the limit.
  TooManyEntries(int64_t entries, bool exact)
      : std::length_error("a dependency pattern has more than 2^31 - 1 entries"),
        entries(entries), exact(exact) {}
  int64_t entries;
  bool exact;
};

/// Throws TooManyEntries when a value of `entries` entries would pass
/// kMaxEntries.
inline void checkEntries(int64_t entries, bool exact = true) {
  if (entries > kMaxEntries)
    throw TooManyEntries(entries, exact);
}

/// The dependency sets of every element of one value, stored compressed:
/// element e depends on cols[start[e] .. start[e + 1]), sorted and distinct.
/// One pair of arrays per value, not one allocation per element: at
/// n = 10^5 the per-element form spent most of its time in malloc and page
/// faults.
struct DepSets {
  std::vector<int64_t> start{0};
  std::vector<int32_t> cols;

  int64_t size() const { return static_cast<int64_t>(start.size()) - 1; }
  llvm::ArrayRef<int32_t> operator[](int64_t e) const {
    return llvm::ArrayRef<int32_t>(cols.data() + start[e], cols.data() + start[e + 1]);
  }
  /// Append the set of the next element (sorted and distinct). Past
  /// kMaxEntries in all, throws TooManyEntries first; the array grows by
  /// doubling up to that limit, not beyond.
  void append(llvm::ArrayRef<int32_t> set) {
    size_t need = cols.size() + set.size();
    if (need > cols.capacity()) {
      checkEntries(static_cast<int64_t>(need), /*exact=*/false);
      cols.reserve(std::min<size_t>(std::max(need, 2 * cols.capacity()), kMaxEntries));
    }
    cols.insert(cols.end(), set.begin(), set.end());
    start.push_back(static_cast<int64_t>(cols.size()));
  }
  /// Append the next element's set given as a list with repeats, in any order.
  void appendUnsorted(llvm::SmallVectorImpl<int32_t> &list) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
    append(list);
  }
  void reserve(int64_t n) { start.reserve(start.size() + n); }
};

/// Per-element dependency sets of one value; null: depends on nothing.
using Deps = std::shared_ptr<const DepSets>;

/// Elements lo .. hi - 1 of a value (row-major), each depending on the
/// input elements at fixed distances from its own position: element e
/// depends on e + c for every c in `offsets` (sorted, distinct, not empty).
struct Band {
  int64_t lo = 0, hi = 0;
  llvm::SmallVector<int64_t, 4> offsets;
};

/// The sets of a value built from shifted copies of the analysed input
/// (slices, concatenations, elementwise ops and maps of scalar functions of
/// it: the banded Jacobians of chains and stencils), kept as a few bands
/// instead of one set per element: at n = 10^5 the explicit sets of every
/// intermediate value were most of a Hessian's build time, first-touched
/// memory. Elements outside every band depend on nothing. Bands are sorted,
/// disjoint and within [0, size).
struct BandedSets {
  int64_t size = 0;
  std::vector<Band> bands;
};
using Banded = std::shared_ptr<const BandedSets>;

/// More bands than this and a value's sets are kept explicitly.
constexpr size_t kMaxBands = 64;

/// The sets of `b`, one per element (null when it has no band).
Deps expandBands(const BandedSets &b);
/// `b` as a value's Banded (null when it has no band).
Banded finishBands(BandedSets b);
/// Elements first .. first + count - 1 of `from`, as elements 0 .. count - 1
/// of a new value of `count` elements: a unit-step slice, or with a negative
/// `first` a placement at -first (a concatenation); bands are clipped to
/// [0, count).
BandedSets windowOf(const BandedSets &from, int64_t first, int64_t count);
/// The element-wise union of values of one size (the result takes the first
/// part's; 0 without parts); null when it needs more than kMaxBands bands.
std::optional<BandedSets> unionOf(llvm::ArrayRef<const BandedSets *> parts);

/// Empty sets, on arrays a finished value gave back when there are some (at
/// n = 10^5 each is megabytes, and memory handed back to the system costs
/// page faults when taken again).
DepSets freshSets();
/// Give arrays back for the next freshSets().
void recycle(DepSets &&sets);
/// Free the arrays kept for reuse (when an analysis ends).
void releaseRecycledSets();
/// `sets` as a value's Deps (null when every set is empty); its arrays go
/// back to freshSets() when the last reference ends.
Deps finish(DepSets sets);
/// Per-element lists with repeats (reductions, products), made sorted and
/// distinct.
Deps fromLists(std::vector<llvm::SmallVector<int32_t, 4>> &lists);

/// Whether every element of `v` is zero whatever the inputs: a zero
/// constant, or a product, quotient or rearrangement of such a value.
bool isKnownZero(mlir::Value v);
/// Per element of `v` (row-major), whether it is zero whatever the inputs:
/// all of them for a known-zero value, a float constant's zero elements;
/// empty when nothing is known.
std::vector<bool> knownZeroElements(mlir::Value v);

/// Each of `count` result elements reads the one element `source(e)` of
/// `from` (gathers; `source` is called twice per element). The arrays are
/// sized exactly first, then filled: no growth, no copy of a grown array.
template <typename Fn>
Deps moveElements(const Deps &from, int64_t count, Fn source) {
  if (!from)
    return nullptr;
  DepSets out = freshSets();
  const int64_t *in = from->start.data();
  out.start.resize(count + 1);
  for (int64_t e = 0; e < count; ++e) {
    int64_t s = source(e);
    out.start[e + 1] = out.start[e] + in[s + 1] - in[s];
  }
  checkEntries(out.start[count]);
  out.cols.resize(out.start[count]);
  for (int64_t e = 0; e < count; ++e) {
    int64_t s = source(e);
    std::copy(from->cols.data() + in[s], from->cols.data() + in[s + 1],
              out.cols.data() + out.start[e]);
  }
  return finish(std::move(out));
}

/// Result element e, at row-major position idx over `shape`, reads element
/// base + sum_i idx[i] * strides[i] of `from`: slices, transposes and
/// broadcasts (stride 0). Walked row by row without a division per element,
/// and a row of stride 1 is one block copy.
Deps moveAffine(const Deps &from, llvm::ArrayRef<int64_t> shape, int64_t base,
                llvm::ArrayRef<int64_t> strides);

/// What an op's sparsity rule reads and writes.
class DependencyContext {
public:
  virtual ~DependencyContext() = default;
  /// The sets of operand `i` (null when it depends on nothing), one per
  /// element (expanded from bands when the operand has them).
  virtual Deps operand(unsigned i) = 0;
  /// Operand `i`'s bands when it is kept banded, else null (a rule that can
  /// keep bands asks for them first).
  virtual Banded bandedOperand(unsigned i) = 0;
  /// Record the sets of result `r`.
  virtual void setResult(unsigned r, Deps deps) = 0;
  virtual void setResult(unsigned r, Banded deps) = 0;
  /// A call, map or scan: the analysis of its callee, applied to the
  /// operands' sets (per call, or per iteration of a map or scan).
  virtual mlir::LogicalResult applyCallee(mlir::Operation *application) = 0;
};

} // namespace scaly::expr

#endif
