//===- Polish.cpp - the returned point's residuals, and polishing ---------===//
//
// The Ipm's checks of the point the user gets (userResiduals: its residuals
// as the user's doubles give them, summed in extended precision), and
// polishing (the active set's KKT system solved without regularization),
// which converged() and run() (Ipm.cpp) call on a point near convergence.
//
//===----------------------------------------------------------------------===//

#include "Ipm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace scaly::qp {
namespace {

/// out += P x for P given by its upper triangle, each product formed in T
/// (the residual checks' extended-precision twin of symmetricMultiply).
template <typename T> void addSymmetricTimes(const Csc &upper, const Vec &x, std::vector<T> &out) {
  for (int j = 0; j < upper.cols; ++j)
    for (int k = upper.colptr[j]; k < upper.colptr[j + 1]; ++k) {
      int i = upper.rowind[k];
      out[i] += (T)upper.values[k] * x[j];
      if (i != j)
        out[j] += (T)upper.values[k] * x[i];
    }
}

/// out += M x, each product formed in T.
template <typename T> void addTimes(const Csc &M, const Vec &x, std::vector<T> &out) {
  for (int j = 0; j < M.cols; ++j)
    for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k)
      out[M.rowind[k]] += (T)M.values[k] * x[j];
}

/// out += M' v, each product formed in T.
template <typename T> void addTransposeTimes(const Csc &M, const Vec &v, std::vector<T> &out) {
  for (int j = 0; j < M.cols; ++j)
    for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k)
      out[j] += (T)M.values[k] * v[M.rowind[k]];
}

} // namespace

template <typename T>
void Ipm::userResidualsIn(const Vec &xs, const Vec &ys, const Pairs &qs, double &primal,
                          double &dual, double &gap, double &sidesGap,
                          std::vector<T> &r, std::vector<T> &ax) const {
  const Problem &pb = pb_;
  Vec &w = extW_;
  r.assign(n_, T(0));
  addSymmetricTimes(pb.P, xs, r);
  T xPx = T(0), cx = T(0), by = T(0), support = T(0);
  for (int j = 0; j < n_; ++j) {
    xPx += r[j] * xs[j];
    cx += (T)pb.c[j] * xs[j];
    r[j] += pb.c[j];
  }
  addTransposeTimes(pb.A, ys, r);
  for (int i = 0; i < p_; ++i)
    by += (T)pb.b[i] * ys[i];
  // A row's merged multiplier, carried by its upper internal row (or by its
  // lower one, negated, when it has no upper side).
  w.setZero(m_);
  for (size_t j = 0; j < pb.upRow.size(); ++j) {
    int up = pb.upRow[j], lo = pb.loRow[j];
    if (up < 0 && lo < 0)
      continue;
    double v = (up >= 0 ? qs.z[up] : 0.0) - (lo >= 0 ? qs.z[lo] : 0.0);
    if (up >= 0)
      w[up] = v;
    else
      w[lo] = -v;
    if (v > 0)
      support += (T)pb.h[up] * v;
    else if (v < 0)
      support -= (T)pb.h[lo] * v;
  }
  addTransposeTimes(pb.G, w, r);
  for (int i = 0; i < n_; ++i) {
    int lo = pb.boundLo[i], up = pb.boundUp[i];
    double v = (up >= 0 ? qs.zu[up] : 0.0) - (lo >= 0 ? qs.zl[lo] : 0.0);
    r[i] += v;
    if (v > 0)
      support += (T)pb.xu[up] * v;
    else if (v < 0)
      support += (T)pb.xl[lo] * v;
  }
  dual = 0.0;
  for (int j = 0; j < n_; ++j)
    dual = std::max(dual, (double)std::fabs(r[j]) * dualUnscale_[j]);
  gap = (double)std::fabs(xPx + cx + by + support) / pb.costScale;
  // The gap with each side's multiplier apart (as residuals() has it): it
  // also bounds the complementarity of a pair's inactive side.
  T sides = T(0);
  for (int r2 = 0; r2 < m_; ++r2)
    sides += (T)pb.h[r2] * qs.z[r2];
  for (int k = 0; k < nl_; ++k)
    sides -= (T)pb.xl[k] * qs.zl[k];
  for (int k = 0; k < nu_; ++k)
    sides += (T)pb.xu[k] * qs.zu[k];
  sidesGap = (double)std::fabs(xPx + cx + by + sides) / pb.costScale;

  // Primal: the equalities, and each inequality and bound where broken.
  ax.assign(std::max(p_, m_), T(0));
  primal = 0.0;
  addTimes(pb.A, xs, ax);
  for (int i = 0; i < p_; ++i)
    primal = std::max(primal, (double)std::fabs(ax[i] - pb.b[i]) * eqInv_[i]);
  std::fill(ax.begin(), ax.end(), T(0));
  addTimes(pb.G, xs, ax);
  for (int i = 0; i < m_; ++i)
    primal = std::max(primal, (double)std::max(ax[i] - pb.h[i], T(0)) * inInv_[i]);
  for (int k = 0; k < nl_; ++k)
    primal = std::max(primal, std::max(pb.xl[k] - xs[pb.il[k]], 0.0) * Dl_[k]);
  for (int k = 0; k < nu_; ++k)
    primal = std::max(primal, std::max(xs[pb.iu[k]] - pb.xu[k], 0.0) * Du_[k]);
}

/// The residuals of (x, y, q) as the user gets them: a row's two sides (a
/// variable's two bounds) merged into one multiplier, rounded as Solver::solve
/// rounds it, and everything summed in extended precision (long double;
/// double when duality_gap_extended is 0, as for an SQP's real-time
/// iterations, whose tolerances are far above that rounding), in the user's
/// units. The equilibration scales by powers of two, so the user's
/// x and multipliers are the internal ones scaled exactly, and these are the
/// residuals of the returned doubles up to the extended rounding.
void Ipm::userResiduals(const Vec &xs, const Vec &ys, const Pairs &qs, double &primal,
                        double &dual, double &gap, double &sidesGap) const {
  if (st_.duality_gap_extended)
    userResidualsIn(xs, ys, qs, primal, dual, gap, sidesGap, extR_, extAx_);
  else
    userResidualsIn(xs, ys, qs, primal, dual, gap, sidesGap, dblR_, dblAx_);
}

/// Polishing (OSQP's idea, on this solver's KKT backend). The iterate tells
/// which sides are active (a side whose multiplier exceeds its slack; of a
/// two-sided pair, the one with the larger multiplier). With the active sides
/// as equalities and the others dropped, the optimality conditions are a
/// linear system without regularization:
///
///   P x + c + A'y + G_a'z_a = 0   on the variables not at an active bound,
///   x_i = its bound               on those that are,
///   A x = b,  G_a x = h_a,  z (inactive rows) = 0,
///
/// solved by iterative refinement: residuals of those equations in extended
/// precision, corrections from one factorization of the KKT matrix with a
/// tiny regularization (an active bound a large diagonal, an inactive row a
/// large w), down to the rounding floor of the doubles. The multiplier of an
/// active bound is then what stationarity leaves at its variable. A
/// multiplier of the wrong sign (a wrong guess) is set to zero and shows in
/// the residuals. The polished point replaces the
/// iterate when its residuals, as the user gets them (userResiduals), are
/// better; returns whether it did.
bool Ipm::polish(bool onlyIfConverged) {
  if (!st_.polish)
    return false;
  using LD = long double;
  const Problem &pb = pb_;
  const double reg = 1e-7, big = 1.0 / reg;
  // Active sides.
  std::vector<signed char> rowActive(m_, 0), loActive(nl_, 0), upActive(nu_, 0);
  for (int r = 0; r < m_; ++r)
    rowActive[r] = q.z[r] > q.s[r];
  for (size_t j = 0; j < pb.upRow.size(); ++j) {
    int up = pb.upRow[j], lo = pb.loRow[j];
    if (up >= 0 && lo >= 0 && rowActive[up] && rowActive[lo])
      (q.z[up] >= q.z[lo] ? rowActive[lo] : rowActive[up]) = 0;
  }
  for (int k = 0; k < nl_; ++k)
    loActive[k] = q.zl[k] > q.sl[k];
  for (int k = 0; k < nu_; ++k)
    upActive[k] = q.zu[k] > q.su[k];
  // Per variable: 0 free, or the bound it is held at.
  std::vector<signed char> held(n_, 0);
  Vec heldAt = Vec::Zero(n_);
  for (int i = 0; i < n_; ++i) {
    int lo = pb.boundLo[i], up = pb.boundUp[i];
    bool l = lo >= 0 && loActive[lo], u = up >= 0 && upActive[up];
    if (l && u)
      (q.zl[lo] >= q.zu[up] ? u : l) = false;
    if (l) {
      held[i] = -1;
      heldAt[i] = pb.xl[lo];
    } else if (u) {
      held[i] = 1;
      heldAt[i] = pb.xu[up];
    }
  }
  Vec hx = Vec::Constant(n_, reg), wz(m_);
  for (int i = 0; i < n_; ++i)
    if (held[i])
      hx[i] += big;
  for (int r = 0; r < m_; ++r)
    wz[r] = rowActive[r] ? reg : big;
  ++info_.factorizations;
  if (!kkt_.factor(hx, reg, wz))
    return false;

  Vec &px = polX_, &py = polY_, &pz = polZ_;
  px = x;
  py = y;
  pz = q.z;
  for (int i = 0; i < n_; ++i)
    if (held[i])
      px[i] = heldAt[i];
  for (int r = 0; r < m_; ++r)
    if (!rowActive[r])
      pz[r] = 0.0;
  // Stationarity without the bounds' multipliers, in extended precision.
  std::vector<LD> st(n_), ax(std::max(p_, m_));
  auto stationarity = [&](const Vec &xs, const Vec &zs) {
    for (int j = 0; j < n_; ++j)
      st[j] = pb.c[j];
    addSymmetricTimes(pb.P, xs, st);
    addTransposeTimes(pb.A, py, st); // each st[j]: its A terms, then its G terms
    addTransposeTimes(pb.G, zs, st);
  };
  // The point a refinement iterate stands for: held variables exactly at
  // their bounds, inactive rows' multipliers zero, negative ones (a wrong
  // guess) zero; bound multipliers from stationarity; slacks from x. Returns
  // the meritOf its residuals as the user gets it (userResiduals).
  Vec cx, Gx;
  Pairs cand;
  double res[4];
  auto judge = [&]() {
    cx = px;
    for (int i = 0; i < n_; ++i)
      if (held[i])
        cx[i] = heldAt[i];
    cand.z = pz;
    for (int r = 0; r < m_; ++r)
      if (!rowActive[r] || !(pz[r] > 0.0))
        cand.z[r] = 0.0;
    stationarity(cx, cand.z);
    cand.zl = Vec::Zero(nl_);
    cand.zu = Vec::Zero(nu_);
    for (int i = 0; i < n_; ++i) {
      if (held[i] < 0)
        cand.zl[pb.boundLo[i]] = std::max(0.0, (double)st[i]);
      else if (held[i] > 0)
        cand.zu[pb.boundUp[i]] = std::max(0.0, (double)-st[i]);
    }
    Gx = Vec::Zero(m_);
    pb.G.multiplyAdd(cx.data(), Gx.data());
    cand.s = (pb.h - Gx).cwiseMax(0.0);
    cand.sl = (gather(pb.il, cx) - pb.xl).cwiseMax(0.0);
    cand.su = (pb.xu - gather(pb.iu, cx)).cwiseMax(0.0);
    if (!cx.allFinite() || !py.allFinite())
      return (double)INFINITY;
    userResiduals(cx, py, cand, res[0], res[1], res[2], res[3]);
    return meritOf(res[0], res[1], std::max(res[2], res[3]));
  };
  Vec &rx = polRx_, &ry = polRy_, &rz = polRz_, &dx = polDx_, &dy = polDy_, &dz = polDz_;
  rx.resize(n_);
  ry.resize(p_);
  rz.resize(m_);
  // Refinement while the largest residual of the equations halves, then on
  // to the rounding floor: up to 10 steps that do not halve it, while a
  // correction still changes some double of the point (30 steps in all).
  // Of the points met, the one whose residuals as the user gets it are the
  // best is kept: within rounding of the exact solution of the active set's
  // equations, and that solution itself when the doubles can hold it
  // (POWELL20: x in quarters, residuals exactly 0).
  Vec bestX, bestY;
  Pairs best;
  double bestMerit = INFINITY, bestRes[4] = {0, 0, 0, 0};
  double previous = INFINITY;
  int slowSteps = 0;
  for (int it = 0; it < 30; ++it) {
    if (double m = judge(); m < bestMerit) {
      bestMerit = m;
      bestX = cx;
      bestY = py;
      best = cand;
      std::copy(res, res + 4, bestRes);
    }
    stationarity(px, pz);
    double err = 0.0;
    for (int i = 0; i < n_; ++i) {
      rx[i] = held[i] ? (double)(((LD)heldAt[i] - px[i]) * (LD)big) : (double)-st[i];
      err = std::max(err, std::fabs(held[i] ? heldAt[i] - px[i] : rx[i]));
    }
    std::fill(ax.begin(), ax.end(), 0.0L);
    addTimes(pb.A, px, ax);
    for (int i = 0; i < p_; ++i) {
      ry[i] = (double)(pb.b[i] - ax[i]);
      err = std::max(err, std::fabs(ry[i]));
    }
    std::fill(ax.begin(), ax.end(), 0.0L);
    addTimes(pb.G, px, ax);
    for (int r = 0; r < m_; ++r) {
      rz[r] = rowActive[r] ? (double)(pb.h[r] - ax[r]) : big * pz[r];
      err = std::max(err, std::fabs(rowActive[r] ? rz[r] : pz[r]));
    }
    if (err == 0.0 || bestMerit == 0.0 || (!(err < 0.5 * previous) && ++slowSteps > 10))
      break;
    previous = err;
    kkt_.solve(rx, ry, rz, dx, dy, dz);
    if (!dx.allFinite() || !dy.allFinite() || !dz.allFinite())
      break;
    bool moved = false;
    for (int i = 0; i < n_ && !moved; ++i)
      moved = px[i] + dx[i] != px[i];
    for (int i = 0; i < p_ && !moved; ++i)
      moved = py[i] + dy[i] != py[i];
    for (int r = 0; r < m_ && !moved; ++r)
      moved = pz[r] + dz[r] != pz[r];
    if (!moved)
      break;
    px += dx;
    py += dy;
    pz += dz;
  }
  if (!(bestMerit < INFINITY))
    return false;
  double p0, d0, g0, s0;
  userResiduals(x, y, q, p0, d0, g0, s0);
  if (st_.verbose)
    std::printf("polish: residuals %.3e %.3e %.3e -> %.3e %.3e %.3e\n", p0, d0, g0, bestRes[0],
                bestRes[1], bestRes[2]);
  if (!(bestMerit < meritOf(p0, d0, std::max(g0, s0))) || (onlyIfConverged && !(bestMerit < 1.0)))
    return false;
  x = std::move(bestX);
  y = std::move(bestY);
  q = std::move(best);
  exactPrimal_ = bestRes[0];
  exactDual_ = bestRes[1];
  exactGap_ = bestRes[2];
  exactSidesGap_ = bestRes[3];
  return true;
}

} // namespace scaly::qp
