//===- Convergence.cpp - residuals, convergence and infeasibility ---------===//
//
// What the interior-point iteration (Ipm.cpp) judges each iterate by: its
// residuals and duality gap in the equilibrated variables and mapped back
// to the user's, the merit of the best iterate, convergence, and the
// certificates of primal and dual infeasibility read off proximal centres
// that stop moving while the iterate runs away from them.
//
//===----------------------------------------------------------------------===//

#include "IpmVectors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scaly::qp {
using namespace ipm;

void Ipm::residuals() {
  const Problem &pb = pb_;
  Vec &Px = Px_, &Aty = Aty_, &Gtz = Gtz_, &box = box_, &Ax = Ax_, &Gx = Gx_, &xl = xl_,
      &xu = xu_;
  Px.resize(n_);
  Aty.setZero(n_);
  Gtz.setZero(n_);
  symmetricMultiply(pb.P, x.data(), Px.data());
  pb.A.multiplyTransposeAdd(y.data(), Aty.data());
  pb.G.multiplyTransposeAdd(q.z.data(), Gtz.data());
  box.setZero(n_);
  scatterAdd(pb.il, q.zl, box, -1.0);
  scatterAdd(pb.iu, q.zu, box, 1.0);
  rx_ = Px + pb.c + Aty + Gtz + box;
  Ax.setZero(p_);
  Gx.setZero(m_);
  pb.A.multiplyAdd(x.data(), Ax.data());
  pb.G.multiplyAdd(x.data(), Gx.data());
  ry_ = Ax - pb.b;
  rz_ = Gx + q.s - pb.h;
  gatherInto(pb.il, x, xl);
  gatherInto(pb.iu, x, xu);
  rl_ = pb.xl - xl + q.sl;
  ru_ = xu - pb.xu + q.su;

  // The same in the user's units: x = D x~, rows divided by their scales,
  // the dual residual by costScale * D (scales fixed for the solve: see
  // unitScales).
  const Vec &dualUnscale = dualUnscale_, &eqInv = eqInv_, &inInv = inInv_, &Dl = Dl_, &Du = Du_;
  dualInf_ = infNorm(rx_.cwiseProduct(dualUnscale));
  dualRel_ = std::max({infNorm(Px.cwiseProduct(dualUnscale)),
                       infNorm(Aty.cwiseProduct(dualUnscale)),
                       infNorm((Gtz + box).cwiseProduct(dualUnscale)),
                       infNorm(pb.c.cwiseProduct(dualUnscale))});
  primalInf_ = std::max({infNorm(ry_.cwiseProduct(eqInv)), infNorm(rz_.cwiseProduct(inInv)),
                         infNorm(rl_.cwiseProduct(Dl)), infNorm(ru_.cwiseProduct(Du))});
  // What the user's x violates: the equalities, and each inequality and
  // bound only where broken. It never exceeds the slack residual above; a
  // slack that lags behind a feasible x (degenerate rows, QPILOTNO) keeps
  // the latter up without x being any less feasible.
  violation_ = std::max({infNorm(ry_.cwiseProduct(eqInv)),
                         infNorm((Gx - pb.h).cwiseMax(0.0).cwiseProduct(inInv)),
                         infNorm((pb.xl - xl).cwiseMax(0.0).cwiseProduct(Dl)),
                         infNorm((xu - pb.xu).cwiseMax(0.0).cwiseProduct(Du))});
  primalRel_ = std::max({infNorm(Ax.cwiseProduct(eqInv)), infNorm(pb.b.cwiseProduct(eqInv)),
                         infNorm(Gx.cwiseProduct(inInv)), infNorm(pb.h.cwiseProduct(inInv)),
                         infNorm(xl.cwiseProduct(Dl)), infNorm(pb.xl.cwiseProduct(Dl)),
                         infNorm(xu.cwiseProduct(Du)), infNorm(pb.xu.cwiseProduct(Du))});
  // The gap of the multipliers the user gets: a row's two sides (and a
  // variable's two bounds) merged into one signed multiplier, whose support
  // term uses the bound it rests on; it differs from the internal gap by
  // (u - l) * min(z_u, z_l) per two-sided row.
  // The gap adds terms of the objective's size: summed in double its value
  // is the objective's rounding (1e-8 near 1e8), noise both ways at 1e-9.
  // So its terms are summed in extended precision (long double), unless
  // duality_gap_extended is 0 (for tolerances far above that rounding: the
  // sums in double take a fifth of the time).
  if (st_.duality_gap_extended)
    gap<long double>();
  else
    gap<double>();
}

/// The duality gap (gap_, gapRel_) at the current point, its terms summed in
/// T (see residuals()).
template <typename T> void Ipm::gap() {
  const Problem &pb = pb_;
  const double cs = pb.costScale;
  T xPx = quadraticForm<T>(pb.P, x), cx = dotIn<T>(pb.c, x), by = dotIn<T>(pb.b, y);
  T rows = 0;
  double rowsRel = 0.0;
  for (size_t j = 0; j < pb.upRow.size(); ++j) {
    int up = pb.upRow[j], lo = pb.loRow[j];
    double v = (up >= 0 ? q.z[up] : 0.0) - (lo >= 0 ? q.z[lo] : 0.0);
    double term = v > 0 ? pb.h[up] * v : v < 0 ? -pb.h[lo] * v : 0.0;
    rows += term;
    rowsRel = std::max(rowsRel, std::fabs(term));
  }
  T bounds = 0;
  double boundsRel = 0.0;
  for (int i = 0; i < n_; ++i) {
    int lo = pb.boundLo[i], up = pb.boundUp[i];
    double v = (up >= 0 ? q.zu[up] : 0.0) - (lo >= 0 ? q.zl[lo] : 0.0);
    double term = v > 0 ? pb.xu[up] * v : v < 0 ? pb.xl[lo] * v : 0.0;
    bounds += term;
    boundsRel = std::max(boundsRel, std::fabs(term));
  }
  // Both gaps must be small: the merged one is what the user's multipliers
  // show, the unmerged one also bounds each inactive side's complementarity.
  T hz = dotIn<T>(pb.h, q.z), bl = -dotIn<T>(pb.xl, q.zl), bu = dotIn<T>(pb.xu, q.zu);
  T base = xPx + cx + by;
  double unmerged = (double)std::fabs(base + hz + bl + bu);
  gap_ = std::max((double)std::fabs(base + rows + bounds), unmerged) / cs;
  gapRel_ = std::max({rowsRel, boundsRel}) / cs;
  for (T term : {xPx, cx, by, hz, bl, bu})
    gapRel_ = std::max(gapRel_, (double)std::fabs(term) / cs);
}

/// How far residuals are from the tolerances: 1 is just converged.
double Ipm::meritOf(double primal, double dual, double gap) const {
  double m = std::max(primal / (st_.eps_abs + st_.eps_rel * primalRel_),
                      dual / (st_.eps_abs + st_.eps_rel * dualRel_));
  if (st_.check_duality_gap)
    m = std::max(m, gap / (st_.eps_duality_gap_abs + st_.eps_duality_gap_rel * gapRel_));
  return std::isfinite(m) ? m : INFINITY;
}

/// meritOf the returned point's residuals as userResiduals last gave them
/// (the gap: the larger of the merged and the unmerged one).
double Ipm::exactMerit() const {
  return meritOf(exactPrimal_, exactDual_, std::max(exactGap_, exactSidesGap_));
}

/// Converged: x feasible to tolerance, the multipliers dual feasible (they
/// are nonnegative by construction) and the gap small: an approximate
/// optimality certificate, whatever the slacks say. The iteration's own
/// residuals (double precision, each side's multiplier apart) decide first;
/// when they pass, the point as the user gets it is checked in extended
/// precision (userResiduals), and that decides.
bool Ipm::converged() {
  bool ok = violation_ < st_.eps_abs + st_.eps_rel * primalRel_ &&
            dualInf_ < st_.eps_abs + st_.eps_rel * dualRel_;
  if (ok && st_.check_duality_gap)
    ok = gap_ < st_.eps_duality_gap_abs + st_.eps_duality_gap_rel * gapRel_;
  // Both must pass: the iteration's test also bounds each side's
  // complementarity (the unmerged gap) and the slacks' residual, which an
  // SQP reads its complementarity off; stopping on the returned point's
  // residuals alone left the cart-pole swing-up's SQP stalled at 2e-8.
  candidate_ = ok;
  if (!ok)
    return false;
  userResiduals(x, y, q, exactPrimal_, exactDual_, exactGap_, exactSidesGap_);
  return exactMerit() < 1.0;
}

/// Infeasibility, two ways. PIQP's: the centres have not moved for a while,
/// the iterate ran far from them and the regularized residual is small.
/// And certificates read off how far the iterate ran: a dual direction
/// v = (y - lambda, z - nu, ...) with A'v_y + G'v_z - E_l'v_l + E_u'v_u = 0 and
/// b'v_y + h'v_z - x_l'v_l + x_u'v_u < 0 proves the constraints inconsistent;
/// a primal direction d = x - xi with P d = 0, c'd < 0, A d = 0 and d
/// feasible for every finite side proves the cost unbounded below. Returns a
/// native status or 0.
int Ipm::infeasibility() {
  const double certEps = 1e-6;
  Vec &vy = vy_, &vz = vz_, &vl = vl_, &vu = vu_;
  vy = y - lambda_;
  vz = q.z - nuz_;
  vl = q.zl - nul_;
  vu = q.zu - nuu_;
  double dualAway = std::max({infNorm(vy), infNorm(vz), infNorm(vl), infNorm(vu)});
  if (noDualUpdate_ > 5 && dualAway > 1e8) {
    double primalRegularized =
        std::max({infNorm(ry_ - delta_ * vy), infNorm(rz_ - delta_ * vz),
                  infNorm(rl_ - delta_ * vl), infNorm(ru_ - delta_ * vu)});
    if (primalRegularized < st_.eps_abs)
      return SCALY_QP_PRIMAL_INFEASIBLE;
  }
  if (noDualUpdate_ > 5 && dualAway > 1e3) {
    double scale = 1.0 / dualAway;
    Vec r = Vec::Zero(n_);
    pb_.A.multiplyTransposeAdd(vy.data(), r.data(), scale);
    pb_.G.multiplyTransposeAdd(vz.data(), r.data(), scale);
    scatterAdd(pb_.il, vl * scale, r, -1.0);
    scatterAdd(pb_.iu, vu * scale, r, 1.0);
    // A two-sided row (or a variable with both bounds) enters with one
    // multiplier w = v_up - v_lo of either sign, whose support term takes
    // the side its sign says: only the difference enters A'v, and the sides
    // apart need not be nonnegative (the lower side's v may have fallen while
    // the upper one's rose). A one-sided one must be nonnegative.
    double support = pb_.b.dot(vy), negative = 0.0;
    for (size_t j = 0; j < pb_.upRow.size(); ++j) {
      int up = pb_.upRow[j], lo = pb_.loRow[j];
      if (up >= 0 && lo >= 0) {
        double w = vz[up] - vz[lo];
        support += w > 0 ? pb_.h[up] * w : -pb_.h[lo] * w;
      } else if (up >= 0 || lo >= 0) {
        int r = up >= 0 ? up : lo;
        support += pb_.h[r] * vz[r];
        negative = std::min(negative, vz[r]);
      }
    }
    for (int i = 0; i < n_; ++i) {
      int lo = pb_.boundLo[i], up = pb_.boundUp[i];
      if (lo >= 0 && up >= 0) {
        double w = vu[up] - vl[lo];
        support += w > 0 ? pb_.xu[up] * w : pb_.xl[lo] * w;
      } else if (lo >= 0) {
        support -= pb_.xl[lo] * vl[lo];
        negative = std::min(negative, vl[lo]);
      } else if (up >= 0) {
        support += pb_.xu[up] * vu[up];
        negative = std::min(negative, vu[up]);
      }
    }
    support *= scale;
    negative *= scale;
    if (infNorm(r) < certEps && support < -certEps && negative > -certEps)
      return SCALY_QP_PRIMAL_INFEASIBLE;
  }
  Vec &d = awayX_;
  d = x - xi_;
  double primalAway = infNorm(d);
  if (noPrimalUpdate_ > 5 && primalAway > 1e8 &&
      infNorm(rx_ + rho_ * d) < st_.eps_abs)
    return SCALY_QP_DUAL_INFEASIBLE;
  if (noPrimalUpdate_ > 5 && primalAway > 1e3) {
    d /= primalAway;
    Vec Pd(n_), Ad = Vec::Zero(p_), Gd = Vec::Zero(m_);
    symmetricMultiply(pb_.P, d.data(), Pd.data());
    pb_.A.multiplyAdd(d.data(), Ad.data());
    pb_.G.multiplyAdd(d.data(), Gd.data());
    double worst = std::max({infNorm(Pd), infNorm(Ad), Gd.size() ? Gd.maxCoeff() : 0.0});
    for (int i : pb_.il)
      worst = std::max(worst, -d[i]);
    for (int i : pb_.iu)
      worst = std::max(worst, d[i]);
    if (worst < certEps && pb_.c.dot(d) < -certEps)
      return SCALY_QP_DUAL_INFEASIBLE;
  }
  return 0;
}

/// Two-sided constraints (a row with both sides, a variable with both
/// bounds) whose slacks collapsed together. The two slacks of a pair always
/// sum to its width up to the pair's residual (r_lo + r_up = s_lo + s_up -
/// width, whatever x), and the Newton step keeps that sum unless the
/// proximal term delta (z - nu) absorbs it: when delta is large next to s/z
/// (a narrow pair with large multipliers on both sides, QPILOTNO's boxes of
/// width 1e-5), both slacks can shrink to nothing while x stays inside, and
/// only the common part of the two multipliers, drained by r / delta per
/// iteration, holds the residual up: hundreds of iterations, with a gap of
/// width * min(z_lo, z_up) meanwhile. Such a pair (slacks summing to less
/// than half its width) is put back in step: its slacks are the distances of
/// x to its sides, and the common part of its multipliers (which cancels in
/// the stationarity, as only z_up - z_lo enters it) is dropped, down to the
/// complementarity mu the iteration is at; its centres move alike. A pair x
/// lies outside of is left to the iteration. Returns whether any pair was
/// repaired.
bool Ipm::repairCollapsedPairs() {
  bool any = false;
  auto repair = [&](double distLo, double distUp, double width, double &sLo, double &sUp,
                    double &zLo, double &zUp, double &nuLo, double &nuUp) {
    // x outside the pair is a violation the iteration is still removing.
    if (!(width > 0.0) || !(sLo + sUp < 0.5 * width) || !(distLo >= 0.0 && distUp >= 0.0))
      return;
    const double floorValue = 1e-8 * width;
    double newSLo = std::max(distLo, floorValue), newSUp = std::max(distUp, floorValue);
    // Both multipliers lose the same amount (z_up - z_lo is kept exactly);
    // the smaller keeps mu over the smaller slack.
    double common = std::min(zLo, zUp);
    double drop = std::max(0.0, common - mu_ / std::min(newSLo, newSUp));
    double newZLo = zLo - drop, newZUp = zUp - drop;
    nuLo += newZLo - zLo;
    nuUp += newZUp - zUp;
    sLo = newSLo;
    sUp = newSUp;
    zLo = newZLo;
    zUp = newZUp;
    any = true;
  };
  for (int i = 0; i < n_; ++i) {
    int lo = pb_.boundLo[i], up = pb_.boundUp[i];
    if (lo < 0 || up < 0)
      continue;
    repair(x[i] - pb_.xl[lo], pb_.xu[up] - x[i], pb_.xu[up] - pb_.xl[lo], q.sl[lo], q.su[up],
           q.zl[lo], q.zu[up], nul_[lo], nuu_[up]);
  }
  if (pb_.upRow.empty())
    return any;
  Vec &Gx = Gx_;
  Gx.setZero(m_);
  pb_.G.multiplyAdd(x.data(), Gx.data());
  for (size_t j = 0; j < pb_.upRow.size(); ++j) {
    int up = pb_.upRow[j], lo = pb_.loRow[j];
    if (lo < 0 || up < 0)
      continue;
    // Row up: g'x <= h_up; row lo: -g'x <= h_lo (so -h_lo <= g'x).
    repair(Gx[up] + pb_.h[lo], pb_.h[up] - Gx[up], pb_.h[up] + pb_.h[lo], q.s[lo], q.s[up],
           q.z[lo], q.z[up], nuz_[lo], nuz_[up]);
  }
  return any;
}

/// How far the iterate is from its proximal centres, in the user's units:
/// x from xi, and the multipliers from lambda and nu.
double Ipm::dualProxDistance() const { return infNorm((x - xi_).cwiseProduct(pb_.D)); }

double Ipm::primalProxDistance() const {
  const double cs = pb_.costScale;
  double d = std::max(infNorm((y - lambda_).cwiseProduct(pb_.eqScale)),
                      infNorm((q.z - nuz_).cwiseProduct(pb_.ineqScale)));
  d = std::max({d, infNorm((q.zl - nul_).cwiseQuotient(Dl_)),
                infNorm((q.zu - nuu_).cwiseQuotient(Du_))});
  return d / cs;
}

} // namespace scaly::qp
