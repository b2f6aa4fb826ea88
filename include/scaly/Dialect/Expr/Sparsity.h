//===- Sparsity.h - structural patterns of derivatives and colourings -*- C++ -*-===//
//
// The exact structural pattern of a Jacobian, computed symbolically on the
// expression dialect: every value carries, per element, the sorted set of
// input elements it depends on differentiably. Maps, scans and calls of small
// callees are analysed once per callee (a local pattern) and composed per
// iteration, so nothing is unrolled in the IR; a large callee is analysed
// with each call's own sets. Colourings compress the derivative sweeps.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_DIALECT_EXPR_SPARSITY_H
#define SCALY_DIALECT_EXPR_SPARSITY_H

#include "scaly/Dialect/Expr/ExprDialect.h"

#include <cstdint>
#include <string>
#include <vector>

namespace scaly::expr {

/// A sparsity pattern in compressed-column form (CasADi's encoding), in
/// 32-bit indices as SciPy keeps them: an analysis refuses a pattern of more
/// than INT32_MAX stored entries (a Jacobian of 16 GB of values). At n =
/// 10^5 these tables are megabytes of first-touched memory, and each page
/// touched for the first time is a measurable share of the build.
struct SparsityPattern {
  int64_t nrow = 0, ncol = 0;
  std::vector<int32_t> colind; ///< ncol + 1 column starts
  std::vector<int32_t> row;    ///< the row of each stored value, by column
  int64_t nnz() const { return static_cast<int64_t>(row.size()); }
};

/// A compressed-column pattern read in place (a SparsityPattern's arrays, or
/// NumPy's): the colourings take this, so that a pattern coming from Python
/// is not copied.
struct PatternView {
  int64_t nrow = 0, ncol = 0;
  llvm::ArrayRef<int32_t> colind, row;
  PatternView() = default;
  PatternView(int64_t nrow, int64_t ncol, llvm::ArrayRef<int32_t> colind,
              llvm::ArrayRef<int32_t> row)
      : nrow(nrow), ncol(ncol), colind(colind), row(row) {}
  PatternView(const SparsityPattern &p) : PatternView(p.nrow, p.ncol, p.colind, p.row) {}
};

/// A colour per column or row: at most one per vertex, so 32 bits.
using Colouring = std::vector<int32_t>;

/// Pattern of d(result `of`) / d(input `wrt`) of `f` (outputs and inputs
/// flattened row-major). Derivative ops in the module are eliminated first
/// (the module changes). Fails with a diagnostic on an op without a rule.
/// `symmetric` (a square pattern: the Jacobian of a gradient) gives its
/// union with its transpose, the pattern a Hessian stores (symmetricUnion).
mlir::FailureOr<SparsityPattern> jacobianPattern(mlir::ModuleOp module, FuncOp f, unsigned wrt,
                                                 unsigned of, bool symmetric = false);

/// The union of a square pattern and its transpose (a Hessian's pattern is
/// symmetric: the analysis may find (i, j) and not (j, i)); rows ascending
/// within each column, as in `p`, which must have them so (else throws
/// std::invalid_argument, as for a pattern that is not square).
SparsityPattern symmetricUnion(const PatternView &p);

/// Colour of each column such that columns sharing a row differ (forward
/// sweeps: one per colour). Greedy in natural order.
Colouring colourColumns(const PatternView &p);
/// Colour of each row such that rows sharing a column differ (reverse sweeps).
Colouring colourRows(const PatternView &p);
/// A Jacobian's compressed sweeps: the colouring of its columns (forward
/// sweeps) or of its rows (reverse), whichever needs fewer.
struct CompressedJacobian {
  Colouring colour; ///< per column (forward) or per row (reverse)
  bool forward = true;
};
/// colourColumns, and colourRows only when it may need fewer colours.
CompressedJacobian compressJacobian(const PatternView &p);
/// Where stored entries start .. start + out.size() (compressed-column
/// order) are read in the compressed product, into `out`: for entry (i, j),
/// colour[j] * nrow + i under a colouring of the columns (forward),
/// colour[i] * ncol + j under one of the rows, and under a star colouring
/// (`fromRow`, one flag per stored entry, non-empty) colour[j] * n + i when
/// it is read from row i, else colour[i] * n + j. A range at a time: at n =
/// 10^5 a table of every entry is megabytes of first-touched memory, and
/// the gather built from it needs only its periodic stretches.
/// `colour` must have a colour in [0, count) per column or row.
void entryPositions(const PatternView &p, llvm::ArrayRef<int32_t> colour, bool forward,
                    llvm::ArrayRef<uint8_t> fromRow, int64_t start,
                    llvm::MutableArrayRef<int64_t> out);
/// A star colouring of a square, structurally symmetric pattern (a Hessian):
/// adjacent columns differ and every path on four vertices uses at least
/// three colours, so each entry can be read back from one compressed
/// product. With `fromRow`, also where, per stored entry (i, j): true when
/// H[i][j] is read from row i of the product at colour[j] (j is the only
/// column of that colour in row i); false when it is read from row j at
/// colour[i] (std::logic_error when neither works).
Colouring starColouring(const PatternView &p, std::vector<uint8_t> *fromRow = nullptr);

} // namespace scaly::expr

#endif
