//===- CachedLLT.h - Eigen's sparse Cholesky test, pattern work once -*- C++ -*-===//
//
// The SQP tests H + delta I for positive definiteness several times per
// iteration (convexify, regularize), always on the same pattern. Eigen's
// SimplicialLLT redoes the permutation and the elimination-tree reach of
// every row on each factorize; CachedLLT does that once per pattern and then
// only Eigen's arithmetic, in Eigen's order, so that it decides exactly as
// SimplicialLLT<Upper, AMDOrdering<int>>::compute would.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_NLP_CACHEDLLT_H
#define SCALY_SOLVERS_NLP_CACHEDLLT_H

#include "../EliminationTree.h"

#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace scaly::nlp {

/// Eigen's SimplicialLLT (AMD ordering, up-looking) with the pattern's work
/// done once: the ordering, the permuted matrix's entries (where each comes
/// from, in the order Eigen's permutation lists them), each row's reach in
/// the elimination tree and where each entry of L goes. factor() then does
/// only the arithmetic of Eigen's factorize_preordered, in its order, so it
/// succeeds exactly when Eigen's factorize would (the SQP asks no more).
class CachedLLT {
  using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

public:
  /// The pattern's work, once (see above). `known` (optional, per entry of
  /// the pattern) marks the entries whose values may be nonzero; factor()
  /// then takes the others as zero and decides as for the whole pattern at
  /// a fraction of the work: with the whole pattern's ordering, every entry
  /// of L outside the factor of the known entries comes out as an exact zero
  /// (each of its terms has a zero factor), which changes no other entry's
  /// sums; the others take their terms in the same order. (For finite
  /// values: the caller checks.)
  void analyze(int n, const std::vector<int32_t> &colptr, const std::vector<int32_t> &rowind,
               const std::vector<char> *known = nullptr) {
    n_ = n;
    const int nnz = (int)rowind.size();
    // Eigen's ordering and permutation, on values that name their entries.
    std::vector<double> tags(nnz);
    for (int k = 0; k < nnz; ++k)
      tags[k] = (double)k;
    Eigen::Map<const SpMat> upper(n, n, nnz, colptr.data(), rowind.data(), tags.data());
    Eigen::SimplicialLLT<SpMat, Eigen::Upper, Eigen::AMDOrdering<int>> llt;
    llt.analyzePattern(upper);
    SpMat ap(n, n);
    if (llt.permutationP().size() == 0)
      ap = upper;
    else
      ap.selfadjointView<Eigen::Upper>() =
          upper.selfadjointView<Eigen::Upper>().twistedBy(llt.permutationP());
    // The symbolic pass of factorize_preordered. With `known` (per entry of
    // the pattern, whether its value may be nonzero), the entries of L that
    // are zero whatever the values are left out: those of the factor of the
    // known entries alone, in the same order (see analyze's comment).
    auto isKnown = [&](double tag) { return !known || (*known)[(int)tag]; };
    std::vector<int> parent = eliminationTree(ap, n, nullptr), parentKnown;
    if (known)
      parentKnown = eliminationTree(ap, n, known);
    std::vector<int> mark(n, -1), markKnown(n, -1), pattern(n), patternKnown(n), count(n, 0);
    entryStart_.assign(1, 0);
    entryRow_.clear();
    entrySource_.clear();
    reachStart_.assign(1, 0);
    reach_.clear();
    std::vector<int> local; // per reach entry: its place in its column of L
    for (int k = 0; k < n; ++k) {
      int top = n, topKnown = n;
      mark[k] = markKnown[k] = k;
      for (SpMat::InnerIterator it(ap, k); it; ++it) {
        int i = (int)it.index();
        if (i > k)
          continue;
        if (isKnown(it.value())) {
          entryRow_.push_back(i);
          entrySource_.push_back((int)it.value());
          if (known)
            topKnown = solvers::reachFrom(i, k, parentKnown.data(), markKnown.data(),
                                          patternKnown.data(), topKnown);
        }
        top = solvers::reachFrom(i, k, parent.data(), mark.data(), pattern.data(), top);
      }
      entryStart_.push_back((int)entryRow_.size());
      count[k] = 1; // the diagonal, first in its column
      for (; top < n; ++top) {
        int i = pattern[top];
        if (known && markKnown[i] != k)
          continue; // L_ki is zero whatever the values
        reach_.push_back(i);
        local.push_back(count[i]++);
      }
      reachStart_.push_back((int)reach_.size());
    }
    Lp_.assign(n + 1, 0);
    for (int k = 0; k < n; ++k)
      Lp_[k + 1] = Lp_[k] + count[k];
    Li_.assign(Lp_[n], 0);
    Lx_.assign(Lp_[n], 0.0);
    reachPos_.resize(reach_.size());
    for (int k = 0; k < n; ++k) {
      Li_[Lp_[k]] = k;
      for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t) {
        int pos = Lp_[reach_[t]] + local[t];
        reachPos_[t] = pos;
        Li_[pos] = k;
      }
    }
    y_.assign(n, 0.0);
  }

  /// Whether the matrix with these values (the analysed pattern) has a
  /// Cholesky factorization: Eigen's arithmetic, stopping where it stops.
  bool factor(const double *values) {
    const int n = n_;
    bool ok = true;
    for (int k = 0; k < n && ok; ++k) {
      for (int e = entryStart_[k]; e < entryStart_[k + 1]; ++e)
        y_[entryRow_[e]] += values[entrySource_[e]];
      double d = y_[k] * 1.0 + 0.0; // Eigen's shift (scale 1, offset 0)
      y_[k] = 0.0;
      for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t) {
        int i = reach_[t], pos = reachPos_[t];
        double yi = y_[i];
        y_[i] = 0.0;
        double lki = yi / Lx_[Lp_[i]];
        yi = lki;
        for (int p = Lp_[i] + 1; p < pos; ++p)
          y_[Li_[p]] -= Lx_[p] * yi;
        d -= lki * yi;
        Lx_[pos] = lki;
      }
      if (d <= 0.0)
        ok = false;
      else
        Lx_[Lp_[k]] = std::sqrt(d);
    }
    if (!ok)
      std::fill(y_.begin(), y_.end(), 0.0); // a row left unfinished
    return ok;
  }

private:
  /// The elimination tree of ap (Eigen's analyzePattern_preordered), of its
  /// `known` entries (by their tags; all without it).
  static std::vector<int> eliminationTree(const SpMat &ap, int n, const std::vector<char> *known) {
    std::vector<int> parent(n, -1), mark(n);
    for (int k = 0; k < n; ++k) {
      mark[k] = k;
      for (SpMat::InnerIterator it(ap, k); it; ++it) {
        int i = (int)it.index();
        if (i < k && (!known || (*known)[(int)it.value()]))
          for (; mark[i] != k; i = parent[i]) {
            if (parent[i] == -1)
              parent[i] = k;
            mark[i] = k;
          }
      }
    }
    return parent;
  }

  int n_ = 0;
  std::vector<int> entryStart_, entryRow_, entrySource_, reachStart_, reach_, reachPos_, Lp_, Li_;
  std::vector<double> Lx_, y_;
};

} // namespace scaly::nlp

#endif // SCALY_SOLVERS_NLP_CACHEDLLT_H
