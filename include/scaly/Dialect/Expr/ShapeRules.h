//===- ShapeRules.h - shape rules of the structured expression ops -*- C++ -*-===//
//
// The one place that says what shape a structured op gives: NumPy
// broadcasting, transposition, strided slices, reductions over axes, batched
// matrix products and concatenation along an axis. The expression dialect's
// type inference (ExprOps.cpp) and the tracer's graph (Trace/Graph.cpp) both
// call these, so the two can never disagree. Plain C++ (no MLIR types): the
// tracer builds no MLIR while tracing.
//
// Each rule returns the result shape, or an error message in `error` (empty
// on success) that names what was wrong and what was expected.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_DIALECT_EXPR_SHAPERULES_H
#define SCALY_DIALECT_EXPR_SHAPERULES_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace scaly::expr::shape {

using Shape = std::vector<int64_t>;

std::string str(const Shape &shape);
int64_t count(const Shape &shape);

/// NumPy's broadcast of two shapes (right-aligned; a size-1 axis stretches).
Shape broadcast(const Shape &a, const Shape &b, std::string &error);
/// Whether `from` broadcasts to exactly `to`.
bool broadcastsTo(const Shape &from, const Shape &to);

/// `perm` must be a permutation of 0..rank-1; result axis i is operand axis
/// perm[i].
Shape transpose(const Shape &in, const std::vector<int64_t> &perm, std::string &error);

/// Strided slice: per axis a start in [0, n) (or 0 for an empty result), a
/// nonzero step (negative steps walk backwards) and a result size such that
/// every picked index start + k*step lies in [0, n).
Shape slice(const Shape &in, const std::vector<int64_t> &starts,
            const std::vector<int64_t> &steps, const std::vector<int64_t> &sizes,
            std::string &error);
/// When the slice of `in` with `starts` and `steps` giving `out` picks one
/// contiguous run of the operand's row-major elements, the offset of its
/// first element (a view: a pointer into the operand); otherwise nothing.
std::optional<int64_t> contiguousStart(const Shape &in, const Shape &out,
                                       const std::vector<int64_t> &starts,
                                       const std::vector<int64_t> &steps);

/// Reduction over `axes` (sorted, distinct, in range): the result drops them.
Shape reduce(const Shape &in, const std::vector<int64_t> &axes, std::string &error);

/// Batched matrix product: (..., m, k) x (..., k, n) -> (..., m, n) with equal
/// leading (batch) axes.
Shape matmul(const Shape &a, const Shape &b, std::string &error);

/// Concatenation along `axis` of parts of equal rank that agree on every
/// other axis.
Shape concat(const std::vector<Shape> &parts, int64_t axis, std::string &error);

/// Scatter of `values` into a zero array of shape `out`: one position per
/// value (row-major, within `out`), no position twice. Returns `out`.
/// Distinctness is checked on a sorted copy when the positions are not
/// ascending: O(count log count), never a mark per element of `out` (a dense
/// n x n matrix of n entries).
Shape scatter(const Shape &values, const int64_t *positions, size_t count, const Shape &out,
              std::string &error);

} // namespace scaly::expr::shape

#endif
