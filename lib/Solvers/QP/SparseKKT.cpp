//===- SparseKKT.cpp - the KKT system by sparse LDL^T ---------------------===//
//
// The whole quasi-definite matrix [H A' G'; A -delta 0; G 0 -W] is stored
// once, both triangles (the ordering and the symbolic analysis read every
// entry), ordered once by AMD and analysed once; each
// iteration only rewrites the diagonal and refactors numerically. A
// quasi-definite matrix has an LDL^T factorization for every symmetric
// ordering, with D > 0 on the rows of x and D < 0 on the others. Rounding
// can still spoil a pivot when delta is tiny next to s/z: such a pivot is
// replaced (see numericFactor) and refinement corrects the solve; only a
// non-finite one makes the caller raise the regularization.
//
//===----------------------------------------------------------------------===//

#include "QPInternal.h"
#include "../EliminationTree.h"

extern "C" {
#include <amd.h>
#include <ldl.h>
}

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace scaly::qp {
namespace {

class SparseKKT final : public KKT {
public:
  explicit SparseKKT(const Problem &pb) : pb_(pb) {
    n_ = pb.n;
    p_ = pb.p();
    m_ = pb.m();
    N_ = n_ + p_ + m_;
    assemblePattern();
    analyse();
  }

  /// The values of the entries numericFactor reads (those in and left of the
  /// diagonal of each permuted row), in its order; an iteration's diagonal
  /// goes on top of them as numericFactor reads them.
  void refresh() override {
    const double *P = pb_.P.values.data(), *A = pb_.A.values.data(), *G = pb_.G.values.data();
    for (auto [e, k] : fromP_)
      base_[e] = P[k];
    for (auto [e, k] : fromA_)
      base_[e] = A[k];
    for (auto [e, k] : fromG_)
      base_[e] = G[k];
    if (!gather_)
      return;
    // Row k's entries summed where numericFactor starts from them: an
    // entry left of the diagonal at its reach position, the diagonal's
    // apart (numericFactor's Y scatter, done once per update instead of
    // once per factorization; the same sums in the same order).
    std::fill(start_.begin(), start_.end(), 0.0);
    std::fill(diagonalStart_.begin(), diagonalStart_.end(), 0.0);
    for (size_t e = 0; e < entryTarget_.size(); ++e) {
      int t = entryTarget_[e];
      (t >= 0 ? start_[t] : diagonalStart_[-1 - t]) += base_[e];
    }
  }

  bool factor(const Vec &hx, double delta, const Vec &w) override {
    // A diagonal of P gets hx on top; the other rows' diagonals (no entry
    // of P, A or G: a base of 0) are -delta and -w.
    for (int j = 0; j < n_; ++j)
      diagonal_[j] = hx[j];
    for (int r = 0; r < p_; ++r)
      diagonal_[n_ + r] = -delta;
    for (int r = 0; r < m_; ++r)
      diagonal_[n_ + p_ + r] = -w[r];
    numericFactor();
    for (int k = 0; k < N_; ++k)
      if (!std::isfinite(D_[k])) {
        std::fill(Y_.begin(), Y_.end(), 0.0); // whatever a NaN may have left there
        return false;
      }
    return true;
  }

  /// L D L' x = P' r P: SuiteSparse's ldl_perm, ldl_lsolve, ldl_dsolve,
  /// ldl_ltsolve and ldl_permt in one (their arithmetic, in their order).
  void solve(const Vec &rx, const Vec &ry, const Vec &rz, Vec &dx, Vec &dy,
             Vec &dz) override {
    double *X = X_.data();
    const int *perm = perm_.data(), *Lp = Lp_.data(), *Li = Li_.data();
    const double *Lx = Lx_.data(), *D = D_.data();
    double *r = rhs_.data();
    std::copy(rx.data(), rx.data() + n_, r);
    std::copy(ry.data(), ry.data() + p_, r + n_);
    std::copy(rz.data(), rz.data() + m_, r + n_ + p_);
    double *Z = Z_.data();
    if (small_) {
      // L by rows (each row's entries by ascending column): every X[k]
      // takes the same subtractions in the same order as ldl_lsolve's
      // column sweep gives it, summed in a register, and its quotient by
      // the pivot (ldl_dsolve) goes to Z, off the sweep's chain.
      // (LxRow_: L's values in that order, written by numericFactor.)
      const int *rowStart = rowStart_.data(), *rowColumn = rowColumn_.data();
      const double *LxRow = LxRow_.data();
      for (int k = 0; k < N_; ++k) {
        double xk = r[perm[k]];
        for (int q = rowStart[k]; q < rowStart[k + 1]; ++q)
          xk -= LxRow[q] * X[rowColumn[q]];
        X[k] = xk;
        Z[k] = xk / D[k];
      }
    } else {
      // A factor too large for the cache: the column sweep streams L.
      for (int k = 0; k < N_; ++k)
        X[k] = r[perm[k]];
      for (int j = 0; j < N_; ++j) {
        const double xj = X[j];
        for (int p = Lp[j]; p < Lp[j + 1]; ++p)
          X[Li[p]] -= Lx[p] * xj;
        Z[j] = xj / D[j];
      }
    }
    // The backward sweep runs in Z and writes each entry to its place in r
    // as it is final.
    for (int j = N_ - 1; j >= 0; --j) {
      double zj = Z[j];
      for (int p = Lp[j]; p < Lp[j + 1]; ++p)
        zj -= Lx[p] * Z[Li[p]];
      Z[j] = zj;
      r[perm[j]] = zj;
    }
    dx = Eigen::Map<const Vec>(r, n_);
    dy = Eigen::Map<const Vec>(r + n_, p_);
    dz = Eigen::Map<const Vec>(r + n_ + p_, m_);
  }

private:
  /// Up-looking LDL^T of the permuted matrix (the order and the column
  /// counts come from SuiteSparse's ldl_symbolic). Unlike ldl_numeric it does
  /// not stop at a pivot that rounding drove to zero or to the wrong sign: the
  /// pivot takes the sign the quasi-definite structure gives it and a small
  /// magnitude (dynamic regularization), and the caller's iterative
  /// refinement against the exact matrix corrects the solve. Everything that
  /// depends on the pattern alone (each row's entries, the reach of each row
  /// of L in the elimination tree, where each entry of L goes, L's row
  /// indices) was worked out once by analyse(); this is the arithmetic of
  /// ldl_numeric, in its order.
  void numericFactor() {
    const double tiny = 1e-13, replacement = 2e-7;
    for (int k = 0; k < N_; ++k) {
      double d = gather_ ? rowGathered(k) : rowScattered(k);
      double sign = perm_[k] < n_ ? 1.0 : -1.0;
      if (!(sign * d > tiny))
        d = sign * replacement;
      D_[k] = d;
    }
  }

  /// Row k of L and its pivot before the sign check, by gathers: ldl_numeric's
  /// column sweep subtracts L_ij y_j from Y[i] for each earlier j of the
  /// reach, in the reach's order; here the same subtractions (the lists from
  /// symbolicFactor) are summed in a register, starting from the row's
  /// entries as refresh() summed them. The row's y are all formed first (they
  /// need no L_ki of this row), then its quotients by the pivots, each also
  /// written where the solve's forward sweep reads L by rows (LxRow_).
  double rowGathered(int k) {
    const int *gatherEntry = gatherEntry_.data(), *gatherColumn = gatherColumn_.data();
    const double *Lx = Lx_.data();
    double *W = W_.data();
    const int begin = reachStart_[k], end = reachStart_[k + 1];
    for (int t = begin; t < end; ++t) {
      double yi = start_[t];
      for (int q = gatherStart_[t]; q < gatherStart_[t + 1]; ++q)
        yi -= Lx[gatherEntry[q]] * W[gatherColumn[q]];
      W[reach_[t]] = yi;
    }
    double d = diagonalStart_[k] + diagonal_[perm_[k]];
    for (int t = begin; t < end; ++t) {
      int i = reach_[t];
      double yi = W[i], lki = yi / D_[i];
      d -= lki * yi;
      Lx_[reachEnd_[t]] = lki;
      LxRow_[rowPosition_[t]] = lki;
    }
    return d;
  }

  /// The same by ldl_numeric's scatter into Y (a factor too large for the
  /// gather lists).
  double rowScattered(int k) {
    for (int e = entryStart_[k]; e < entryStart_[k + 1]; ++e)
      Y_[entryRow_[e]] += base_[e];
    double d = Y_[k] + diagonal_[perm_[k]];
    Y_[k] = 0.0;
    for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t) {
      int i = reach_[t], end = reachEnd_[t];
      double yi = Y_[i];
      Y_[i] = 0.0;
      for (int p = Lp_[i]; p < end; ++p)
        Y_[Li_[p]] -= Lx_[p] * yi;
      double lki = yi / D_[i];
      d -= lki * yi;
      Lx_[end] = lki;
      if (small_)
        LxRow_[rowPosition_[t]] = lki;
    }
    return d;
  }

  /// The pattern-only part of numericFactor, once: per row k of the permuted
  /// matrix, its entries in and left of the diagonal (their rows and their
  /// positions in the stored matrix), and the rows of L it reaches, in topological
  /// order, with the position each one's new entry takes in L.
  void symbolicFactor() {
    entryStart_.assign(1, 0);
    entryRow_.clear();
    entrySource_.clear();
    reachStart_.assign(1, 0);
    reach_.clear();
    reachEnd_.clear();
    std::fill(flag_.begin(), flag_.end(), -1);
    std::fill(lnz_.begin(), lnz_.end(), 0);
    for (int k = 0; k < N_; ++k) {
      int top = N_;
      flag_[k] = k;
      int column = perm_[k];
      for (int p = Ap_[column]; p < Ap_[column + 1]; ++p) {
        int i = permInv_[Ai_[p]];
        if (i > k)
          continue;
        entryRow_.push_back(i);
        entrySource_.push_back(p);
        top = solvers::reachFrom(i, k, parent_.data(), flag_.data(), pattern_.data(), top);
      }
      entryStart_.push_back((int)entryRow_.size());
      for (; top < N_; ++top) {
        int i = pattern_[top];
        int end = Lp_[i] + lnz_[i];
        Li_[end] = k;
        reach_.push_back(i);
        reachEnd_.push_back(end);
        ++lnz_[i];
      }
      reachStart_.push_back((int)reach_.size());
    }
    // The sweeps below gather through index lists, which pays while L
    // stays in the cache (a small factor, such as a real-time iteration's:
    // the cart-pole's has 2205 entries): a larger one streams its columns
    // (SuiteSparse's order; the same arithmetic either way).
    small_ = Lp_[N_] <= smallFactor;
    // Per reach entry t of row k (column i), the subtractions the column
    // sweep makes from Y[i]: (j, position of L_ij) for each earlier entry j
    // of the reach whose column has row i, in the reach's order. One per
    // multiply-add of the factorization: listed only while that is a few
    // times L's size (a banded factor such as an optimal control problem's).
    long long work = 0;
    for (size_t t = 0; t < reach_.size(); ++t)
      work += reachEnd_[t] - Lp_[reach_[t]];
    gather_ = small_ && work <= 4LL * std::max(1, Lp_[N_]);
    gatherStart_.assign(1, 0);
    gatherColumn_.clear();
    gatherEntry_.clear();
    if (gather_) {
      // Counted, then filled in the reach's order (a column j's entries
      // above row k go to the entries of the reach they hold).
      std::vector<int> place(N_, -1), count(reach_.size() + 1, 0);
      for (int k = 0; k < N_; ++k) {
        for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t)
          place[reach_[t]] = t;
        for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t)
          for (int p = Lp_[reach_[t]]; p < reachEnd_[t]; ++p)
            ++count[place[Li_[p]] + 1];
      }
      for (size_t t = 0; t < reach_.size(); ++t)
        count[t + 1] += count[t];
      gatherStart_ = count;
      gatherColumn_.resize(work);
      gatherEntry_.resize(work);
      for (int k = 0; k < N_; ++k) {
        for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t)
          place[reach_[t]] = t;
        for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t) {
          int j = reach_[t];
          for (int p = Lp_[j]; p < reachEnd_[t]; ++p) {
            int q = count[place[Li_[p]]]++;
            gatherColumn_[q] = j;
            gatherEntry_[q] = p;
          }
        }
      }
    }
    // Row k of L is the reach of row k: its columns sorted, with their
    // entries' positions in Lx_ (for the solve's forward sweep).
    rowStart_.clear();
    rowColumn_.clear();
    rowPosition_.clear();
    if (!small_)
      return;
    rowStart_ = reachStart_;
    rowColumn_.resize(reach_.size());
    rowPosition_.resize(reach_.size());
    std::vector<std::pair<int, int>> row;
    for (int k = 0; k < N_; ++k) {
      row.clear();
      for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t)
        row.push_back({reach_[t], t});
      std::sort(row.begin(), row.end());
      for (size_t q = 0; q < row.size(); ++q) {
        rowColumn_[reachStart_[k] + q] = row[q].first;
        rowPosition_[row[q].second] = reachStart_[k] + (int)q;
      }
    }
  }

  /// Where each entry of a row goes in refresh()'s sums: its reach position
  /// t, or -1 - k for row k's diagonal.
  void entryTargets() {
    entryTarget_.assign(entryRow_.size(), 0);
    std::vector<int> place(N_, -1);
    for (int k = 0; k < N_; ++k) {
      for (int t = reachStart_[k]; t < reachStart_[k + 1]; ++t)
        place[reach_[t]] = t;
      for (int e = entryStart_[k]; e < entryStart_[k + 1]; ++e)
        entryTarget_[e] = entryRow_[e] == k ? -1 - k : place[entryRow_[e]];
    }
    start_.assign(gather_ ? reach_.size() : 0, 0.0);
    diagonalStart_.assign(gather_ ? N_ : 0, 0.0);
  }

  // Where a stored entry's value comes from: an entry of P, A or G, or a
  // diagonal the iteration sets.
  enum Kind { FromP, FromA, FromG, Diagonal };
  struct Source {
    Kind kind;
    int index;
  };

  void assemblePattern() {
    // Column lists of (row, source), then CSC with sorted rows.
    std::vector<std::vector<std::pair<int, Source>>> cols(N_);
    std::vector<bool> hasDiag(n_, false);
    const Csc &P = pb_.P, &A = pb_.A, &G = pb_.G;
    for (int j = 0; j < n_; ++j)
      for (int k = P.colptr[j]; k < P.colptr[j + 1]; ++k) {
        int i = P.rowind[k];
        cols[j].push_back({i, {FromP, k}});
        if (i != j)
          cols[i].push_back({j, {FromP, k}});
        else
          hasDiag[j] = true;
      }
    for (int j = 0; j < n_; ++j)
      if (!hasDiag[j])
        cols[j].push_back({j, {Diagonal, j}});
    for (int j = 0; j < n_; ++j) {
      for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k) {
        int r = n_ + A.rowind[k];
        cols[j].push_back({r, {FromA, k}});
        cols[r].push_back({j, {FromA, k}});
      }
      for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k) {
        int r = n_ + p_ + G.rowind[k];
        cols[j].push_back({r, {FromG, k}});
        cols[r].push_back({j, {FromG, k}});
      }
    }
    for (int r = n_; r < N_; ++r)
      cols[r].push_back({r, {Diagonal, r}});

    Ap_.assign(N_ + 1, 0);
    for (int j = 0; j < N_; ++j) {
      auto &col = cols[j];
      std::sort(col.begin(), col.end(), [](auto &a, auto &b) { return a.first < b.first; });
      for (auto &[i, src] : col) {
        Ai_.push_back(i);
        source_.push_back(src);
      }
      Ap_[j + 1] = (int)Ai_.size();
    }
  }

  void analyse() {
    perm_.resize(N_);
    permInv_.resize(N_);
    if (N_ > 0) {
      double control[AMD_CONTROL];
      amd_defaults(control);
      int status = amd_order(N_, Ap_.data(), Ai_.data(), perm_.data(), control, nullptr);
      if (status != AMD_OK && status != AMD_OK_BUT_JUMBLED)
        for (int k = 0; k < N_; ++k)
          perm_[k] = k; // natural order: slower, still correct
    }
    Lp_.resize(N_ + 1);
    parent_.resize(N_);
    lnz_.resize(N_);
    flag_.resize(N_);
    pattern_.resize(N_);
    ldl_symbolic(N_, Ap_.data(), Ai_.data(), Lp_.data(), parent_.data(), lnz_.data(),
                 flag_.data(), perm_.data(), permInv_.data());
    Li_.resize(std::max(1, Lp_[N_]));
    Lx_.resize(std::max(1, Lp_[N_]));
    D_.resize(N_);
    Y_.assign(N_, 0.0); // numericFactor leaves it zero
    X_.resize(N_);
    rhs_.resize(N_);
    Z_.resize(N_);
    W_.assign(N_, 0.0);
    symbolicFactor();
    LxRow_.resize(small_ ? std::max<size_t>(1, reach_.size()) : 0);
    if (gather_)
      entryTargets();
    base_.assign(entrySource_.size(), 0.0); // a Diagonal source stays 0
    fromP_.clear();
    fromA_.clear();
    fromG_.clear();
    for (size_t e = 0; e < entrySource_.size(); ++e) {
      Source src = source_[entrySource_[e]];
      if (src.kind != Diagonal)
        (src.kind == FromP ? fromP_ : src.kind == FromA ? fromA_ : fromG_)
            .push_back({(int)e, src.index});
    }
    diagonal_.resize(N_);
    refresh();
  }

  const Problem &pb_;
  int n_, p_, m_, N_;
  std::vector<int> Ap_, Ai_;
  std::vector<Source> source_;
  std::vector<double> base_, diagonal_; // numericFactor's entries, the iteration's diagonal
  std::vector<int> perm_, permInv_, Lp_, parent_, lnz_, flag_, pattern_, Li_;
  std::vector<double> Lx_, D_, Y_, X_, Z_, rhs_; // X_, Z_, rhs_: the solve's workspace
  // The symbolic factorization (symbolicFactor).
  std::vector<int> entryStart_, entryRow_, entrySource_, reachStart_, reach_, reachEnd_;
  // L by rows (symbolicFactor): per row its columns in ascending order, and
  // per reach entry its position there; numericFactor writes L's values
  // in that order too (LxRow_), for the solve's forward sweep.
  std::vector<int> rowStart_, rowColumn_, rowPosition_;
  std::vector<double> LxRow_;
  // With the gather lists: per entry of a row its place in refresh()'s sums
  // (entryTargets), and those sums: per reach entry, and per row's diagonal.
  std::vector<int> entryTarget_;
  std::vector<double> start_, diagonalStart_;
  // Entries of L up to which its sweeps gather (about 400 KB of L, its
  // indices and the lists: within a core's L2 cache).
  static constexpr int smallFactor = 1 << 15;
  bool small_ = false;  // whether the solve's forward sweep gathers (L by rows)
  bool gather_ = false; // whether numericFactor gathers (the lists below) or scatters
  std::vector<int> gatherStart_, gatherColumn_, gatherEntry_; // numericFactor's subtractions
  std::vector<double> W_; // numericFactor's y of the current row, by column
  // refresh()'s copies: (entry of base_, entry of P, A or G), per matrix.
  std::vector<std::pair<int, int>> fromP_, fromA_, fromG_;
};

} // namespace

std::unique_ptr<KKT> makeSparseKKT(const Problem &problem) {
  return std::make_unique<SparseKKT>(problem);
}

} // namespace scaly::qp
