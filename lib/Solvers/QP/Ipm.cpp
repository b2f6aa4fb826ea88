//===- Ipm.cpp - PIQP's proximal interior-point iteration -----------------===//
//
// Each iteration is one Newton step of an interior-point method on the
// proximal-method-of-multipliers subproblem centred at (xi, lambda, nu):
//
//   P x + c + rho (x - xi) + A'y + G'z - E_l'z_l + E_u'z_u = 0
//   A x - b - delta (y - lambda) = 0
//   G x + s - h - delta (z - nu) = 0        (the bounds alike)
//   s o z = sigma mu,  s, z >= 0
//
// with Mehrotra's predictor-corrector. The proximal terms make the Newton
// matrix quasi-definite for any rho, delta > 0. A centre moves to the
// iterate whenever its residual fell enough, and rho and delta shrink with
// the complementarity. Infeasibility shows as centres that stop moving while
// the iterate runs away from them.
//
// Everything here is in the equilibrated variables; convergence is judged on
// residuals mapped back to the user's (Convergence.cpp, which also reads the
// infeasibility certificates; the polish is Polish.cpp).
//
//===----------------------------------------------------------------------===//

#include "IpmVectors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace scaly::qp {
using namespace ipm;

Vec gather(const std::vector<int> &index, const Vec &x) {
  Vec out(index.size());
  for (size_t k = 0; k < index.size(); ++k)
    out[k] = x[index[k]];
  return out;
}

double Pairs::slackStep(const Pairs &d) const {
  return maxStep(su, d.su, maxStep(sl, d.sl, maxStep(s, d.s, 1.0)));
}

double Pairs::multiplierStep(const Pairs &d) const {
  return maxStep(zu, d.zu, maxStep(zl, d.zl, maxStep(z, d.z, 1.0)));
}

void Ipm::setDiagonals() {
  wz_ = (q.s.array() / q.z.array() + delta_).matrix();
  wl_ = (q.sl.array() / q.zl.array() + delta_).matrix();
  wu_ = (q.su.array() / q.zu.array() + delta_).matrix();
  hx_.setConstant(n_, rho_);
  scatterAdd(pb_.il, wl_.cwiseInverse(), hx_, 1.0);
  scatterAdd(pb_.iu, wu_.cwiseInverse(), hx_, 1.0);
}

/// What residuals() maps to the user's units with, fixed for the solve.
void Ipm::unitScales() {
  dualUnscale_ = (pb_.costScale * pb_.D.array()).inverse().matrix();
  eqInv_ = pb_.eqScale.cwiseInverse();
  inInv_ = pb_.ineqScale.cwiseInverse();
  gatherInto(pb_.il, pb_.D, Dl_);
  gatherInto(pb_.iu, pb_.D, Du_);
}

void Ipm::reset() {
  n_ = pb_.n;
  p_ = pb_.p();
  m_ = pb_.m();
  nl_ = (int)pb_.il.size();
  nu_ = (int)pb_.iu.size();
  rho_ = delta_ = mu_ = regLimit_ = 0;
  lastPrimalStep_ = lastDualStep_ = 0;
  directionRetries_ = 0;
  best_.primal = best_.dual = best_.gap = 0;
  bestMerit_ = INFINITY;
  noPrimalUpdate_ = noDualUpdate_ = 0;
  primalInf_ = dualInf_ = gap_ = violation_ = 0;
  primalRel_ = dualRel_ = gapRel_ = 0;
  // The state of the returned point's checks, polishing and stall tracking.
  bestPrimal_ = bestDual_ = INFINITY;
  exactPrimal_ = exactDual_ = exactGap_ = exactSidesGap_ = INFINITY;
  polishes_ = 0;
  lastPolish_ = -100;
  solveErr_ = 0.0;
  stallMerit_ = INFINITY;
  stallIter_ = 0;
  candidate_ = false;
}

bool Ipm::factorWithRetries() {
  for (int attempt = 0;; ++attempt) {
    setDiagonals();
    ++info_.factorizations;
    if (kkt_.factor(hx_, delta_, wz_))
      return true;
    if (attempt >= st_.max_factor_retries)
      return false;
    raiseRegularization();
  }
}

/// PIQP's answer to a failed factorization or direction: rho and delta x100,
/// and a floor that stays higher for the rest of the solve.
void Ipm::raiseRegularization() {
  rho_ *= 100;
  delta_ *= 100;
  regLimit_ = std::min(10 * regLimit_, st_.eps_abs);
}

void Ipm::kktMultiply(const Vec &dx, const Vec &dy, const Vec &dz, Vec &ox, Vec &oy,
                      Vec &oz) {
  ox.resize(n_);
  symmetricMultiply(pb_.P, dx.data(), ox.data());
  ox += hx_.cwiseProduct(dx);
  pb_.A.multiplyTransposeAdd(dy.data(), ox.data());
  pb_.G.multiplyTransposeAdd(dz.data(), ox.data());
  oy = -delta_ * dy;
  pb_.A.multiplyAdd(dx.data(), oy.data());
  oz = -wz_.cwiseProduct(dz);
  pb_.G.multiplyAdd(dx.data(), oz.data());
}

/// Solves the factored system, refining iteratively against the exact
/// (regularized) matrix: the factorization's rounding would otherwise limit
/// the accuracy reachable at high tolerance.
void Ipm::kktSolve(const Vec &bx, const Vec &by, const Vec &bz, Vec &dx, Vec &dy, Vec &dz) {
  kkt_.solve(bx, by, bz, dx, dy, dz);
  solveErr_ = 0.0;
  // Each block's residual is measured against its own right-hand side: the
  // x rows carry the dual residual, often far smaller than the other
  // blocks' right-hand sides (BOYD2: 1e-3 next to 26), and a solve accurate
  // only relative to the largest block leaves a step that cannot reduce it.
  const double sx = 1.0 + infNorm(bx), sy = 1.0 + infNorm(by), sz = 1.0 + infNorm(bz);
  Vec &ox = ox_, &oy = oy_, &oz = oz_, &ex = ex_, &ey = ey_, &ez = ez_;
  double previous = INFINITY;
  for (int it = 0; it < st_.iterative_refinement_max_iter; ++it) {
    kktMultiply(dx, dy, dz, ox, oy, oz);
    ox = bx - ox;
    oy = by - oy;
    oz = bz - oz;
    double err = std::max({infNorm(ox) / sx, infNorm(oy) / sy, infNorm(oz) / sz});
    solveErr_ = err;
    if (!(err > st_.iterative_refinement_eps))
      break;
    // A correction that did not shrink the residual (a spoilt pivot the
    // refinement cannot repair) is taken back, and refinement stops.
    if (!(err < 0.9 * previous)) {
      if (it > 0) {
        dx -= ex;
        dy -= ey;
        dz -= ez;
        solveErr_ = previous;
      }
      break;
    }
    previous = err;
    kkt_.solve(ox, oy, oz, ex, ey, ez);
    dx += ex;
    dy += ey;
    dz += ez;
  }
}

/// One Newton step for complementarity targets rs* (sigma mu - s o z - ...),
/// with the proximal residuals of the current centres.
void Ipm::newton(const Vec &rsz, const Vec &rsl, const Vec &rsu, Vec &dx, Vec &dy, Pairs &d) {
  Vec &rx = nrx_, &ry = nry_, &rz = nrz_, &rl = nrl_, &ru = nru_, &tz = tz_, &tl = tl_,
      &tu = tu_, &bx = bx_, &by = by_;
  rx = rx_ + rho_ * (x - xi_);
  ry = ry_ - delta_ * (y - lambda_);
  rz = rz_ - delta_ * (q.z - nuz_);
  rl = rl_ - delta_ * (q.zl - nul_);
  ru = ru_ - delta_ * (q.zu - nuu_);
  tz = -rz - rsz.cwiseQuotient(q.z);
  tl = -rl - rsl.cwiseQuotient(q.zl);
  tu = -ru - rsu.cwiseQuotient(q.zu);
  bx = -rx;
  scatterAdd(pb_.il, tl.cwiseQuotient(wl_), bx, -1.0);
  scatterAdd(pb_.iu, tu.cwiseQuotient(wu_), bx, 1.0);
  by = -ry;
  kktSolve(bx, by, tz, dx, dy, d.z);
  d.zl.resize(nl_);
  for (int k = 0; k < nl_; ++k)
    d.zl[k] = (-dx[pb_.il[k]] - tl[k]) / wl_[k];
  d.zu.resize(nu_);
  for (int k = 0; k < nu_; ++k)
    d.zu[k] = (dx[pb_.iu[k]] - tu[k]) / wu_[k];
  d.s = (rsz - q.s.cwiseProduct(d.z)).cwiseQuotient(q.z);
  d.sl = (rsl - q.sl.cwiseProduct(d.zl)).cwiseQuotient(q.zl);
  d.su = (rsu - q.su.cwiseProduct(d.zu)).cwiseQuotient(q.zu);
}

/// Mehrotra's shift of slacks and multipliers into the interior.
void Ipm::shiftInterior(double floorValue) {
  int mt = q.size();
  if (mt == 0)
    return;
  auto minOf = [](const Vec &a, const Vec &b, const Vec &c) {
    double v = INFINITY;
    for (const Vec *w : {&a, &b, &c})
      if (w->size())
        v = std::min(v, w->minCoeff());
    return v;
  };
  double maxSlack = std::max({infNorm(q.s), infNorm(q.sl), infNorm(q.su)});
  if (maxSlack <= floorValue) {
    for (Vec *w : {&q.s, &q.sl, &q.su, &q.z, &q.zl, &q.zu})
      w->setConstant(0.1);
  }
  double ds = std::max(-1.5 * minOf(q.s, q.sl, q.su), 0.0);
  double dz = std::max(-1.5 * minOf(q.z, q.zl, q.zu), 0.0);
  double prod = (q.s.array() + ds).matrix().dot((q.z.array() + dz).matrix()) +
                (q.sl.array() + ds).matrix().dot((q.zl.array() + dz).matrix()) +
                (q.su.array() + ds).matrix().dot((q.zu.array() + dz).matrix());
  double zSum = q.z.sum() + q.zl.sum() + q.zu.sum() + mt * dz;
  double sSum = q.s.sum() + q.sl.sum() + q.su.sum() + mt * ds;
  double dsBar = ds + 0.5 * prod / std::max(zSum, 1e-300);
  double dzBar = dz + 0.5 * prod / std::max(sSum, 1e-300);
  for (Vec *w : {&q.s, &q.sl, &q.su})
    w->array() += dsBar;
  for (Vec *w : {&q.z, &q.zl, &q.zu})
    w->array() += dzBar;
}

/// PIQP's starting point: the regularized least-squares solution of the
/// KKT conditions with unit slacks and multipliers, shifted inside.
bool Ipm::coldStart() {
  q.s = Vec::Ones(m_);
  q.z = Vec::Ones(m_);
  q.sl = Vec::Ones(nl_);
  q.zl = Vec::Ones(nl_);
  q.su = Vec::Ones(nu_);
  q.zu = Vec::Ones(nu_);
  if (!factorWithRetries())
    return false;
  // Solve [H A' G'; A -delta 0; G 0 -W] (x, y, z) = (-c + bounds, b, h)
  // with unit slacks, then read slacks off the constraints.
  Vec bx = -pb_.c;
  scatterAdd(pb_.il, pb_.xl.cwiseQuotient(wl_), bx, 1.0);
  scatterAdd(pb_.iu, pb_.xu.cwiseQuotient(wu_), bx, 1.0);
  kktSolve(bx, pb_.b, pb_.h, x, y, q.z);
  Vec &Gx = Gx_;
  Gx.setZero(m_);
  pb_.G.multiplyAdd(x.data(), Gx.data());
  q.s = pb_.h - Gx;
  q.sl = gather(pb_.il, x) - pb_.xl;
  q.su = pb_.xu - gather(pb_.iu, x);
  q.zl = -q.sl.cwiseQuotient(wl_);
  q.zu = -q.su.cwiseQuotient(wu_);
  shiftInterior(1e-4);
  return true;
}

void Ipm::warmStart() {
  // Slacks from the given x; multipliers as given (already mapped), both
  // kept off the boundary so the iteration can move.
  Vec &Gx = Gx_;
  Gx.setZero(m_);
  pb_.G.multiplyAdd(x.data(), Gx.data());
  q.s = pb_.h - Gx;
  q.sl = gather(pb_.il, x) - pb_.xl;
  q.su = pb_.xu - gather(pb_.iu, x);
  const double floorValue = 1e-3;
  for (Vec *w : {&q.s, &q.sl, &q.su, &q.z, &q.zl, &q.zu})
    *w = w->cwiseMax(floorValue);
}

/// The iteration, then what it ends with: a solve that did not converge
/// returns the best iterate it met, and calls it acceptable when that one is
/// within acceptableFactor of every tolerance (a false infeasibility claim
/// after the iterate had nearly converged is dropped the same way).
int Ipm::run(bool warm) {
  int status = iterate(warm);
  if (status != SCALY_QP_SOLVED && std::isfinite(bestMerit_)) {
    // An infeasibility claim that an earlier iterate contradicts: a point
    // that met the primal tolerance (a primal claim), or one within
    // acceptableFactor of the dual tolerance (an unboundedness claim: dual
    // feasible multipliers bound the objective from below). Numerical
    // trouble, then (STADAT1 at high accuracy: the iteration blew up after
    // it had stalled at tiny regularization, and its runaway iterate looked
    // like a direction of unboundedness).
    if ((status == SCALY_QP_PRIMAL_INFEASIBLE && bestPrimal_ <= 1.0) ||
        (status == SCALY_QP_DUAL_INFEASIBLE && bestDual_ <= acceptableFactor))
      status = SCALY_QP_NUMERICS;
    bool lastIsWorse = !(merit() <= bestMerit_);
    if (bestMerit_ <= acceptableFactor || lastIsWorse) {
      x = best_.x;
      y = best_.y;
      q = best_.q;
    }
    if (bestMerit_ <= acceptableFactor)
      status = SCALY_QP_ACCEPTABLE;
    // An unconverged end (not an infeasibility claim): the point returned
    // may meet the tolerances as the user gets it (the iteration's own
    // residuals are rounded), or polishing may make it.
    if (status == SCALY_QP_ACCEPTABLE || status == SCALY_QP_MAX_ITER_REACHED ||
        status == SCALY_QP_NUMERICS) {
      userResiduals(x, y, q, exactPrimal_, exactDual_, exactGap_, exactSidesGap_);
      if (exactMerit() < 1.0 || (polish(false) && exactMerit() < 1.0))
        status = SCALY_QP_SOLVED;
    }
  }
  // What is reported: the residuals of the point returned, as the user gets it.
  if (status != SCALY_QP_SOLVED || !std::isfinite(exactPrimal_))
    if (x.allFinite() && y.allFinite())
      userResiduals(x, y, q, exactPrimal_, exactDual_, exactGap_, exactSidesGap_);
  info_.primal_res = exactPrimal_;
  info_.dual_res = exactDual_;
  info_.duality_gap = exactGap_;
  return status;
}

/// How far the current point is from the tolerances: 1 is just converged.
double Ipm::merit() const { return meritOf(violation_, dualInf_, gap_); }

int Ipm::iterate(bool warm) {
  unitScales();
  rho_ = st_.rho_init;
  delta_ = st_.delta_init;
  regLimit_ = st_.reg_lower_limit;
  info_.iter = 0;
  info_.factorizations = 0;
  const int mt = m_ + nl_ + nu_;

  if (!warm) {
    if (!coldStart())
      return SCALY_QP_NUMERICS;
  } else {
    warmStart();
  }
  mu_ = q.size() ? q.dot() / q.size() : 0.0;
  if (st_.verbose) {
    auto range = [](const Vec &v) {
      return v.size() ? std::make_pair(v.minCoeff(), v.maxCoeff()) : std::make_pair(1.0, 1.0);
    };
    auto [d0, d1] = range(pb_.D);
    auto [e0, e1] = range(pb_.eqScale);
    auto [f0, f1] = range(pb_.ineqScale);
    std::printf("scaling: columns %.1e..%.1e, equality rows %.1e..%.1e, inequality rows "
                "%.1e..%.1e, cost %.1e\n",
                d0, d1, e0, e1, f0, f1, pb_.costScale);
    std::fflush(stdout);
  }
  xi_ = x;
  lambda_ = y;
  nuz_ = q.z;
  nul_ = q.zl;
  nuu_ = q.zu;
  residuals();

  while (true) {
    if (!x.allFinite() || !y.allFinite() || !std::isfinite(mu_))
      return SCALY_QP_NUMERICS;
    info_.primal_res = violation_;
    info_.dual_res = dualInf_;
    info_.duality_gap = gap_;
    info_.rho = rho_;
    info_.delta = delta_;
    info_.mu = mu_;
    bestPrimal_ = std::min(bestPrimal_, violation_ / (st_.eps_abs + st_.eps_rel * primalRel_));
    bestDual_ = std::min(bestDual_, dualInf_ / (st_.eps_abs + st_.eps_rel * dualRel_));
    if (double m = merit(); m < bestMerit_) {
      bestMerit_ = m;
      best_.x = x;
      best_.y = y;
      best_.q = q;
      best_.primal = violation_;
      best_.dual = dualInf_;
      best_.gap = gap_;
    }
    if (st_.verbose) {
      std::printf("%4d  pinf %.3e  dinf %.3e  gap %.3e  rho %.2e  delta %.2e  mu %.3e  "
                  "steps %.2e %.2e\n",
                  info_.iter, primalInf_, dualInf_, gap_, rho_, delta_, mu_, lastPrimalStep_,
                  lastDualStep_);
      std::fflush(stdout); // a library in its own namespace has its own stdout buffer
    }
    if (converged())
      return SCALY_QP_SOLVED;
    // Converged by the iteration's own residuals but not as the user gets
    // the point, or stalled near convergence (within acceptableFactor of the
    // tolerances, no halving of the best merit in 5 iterations): polish the
    // point (at most 3 times, 5 iterations apart), which may converge it.
    if (bestMerit_ < 0.5 * stallMerit_) {
      stallMerit_ = bestMerit_;
      stallIter_ = info_.iter;
    }
    bool stalled = bestMerit_ <= acceptableFactor && info_.iter - stallIter_ >= 5;
    if ((candidate_ || stalled) && info_.iter - lastPolish_ >= 5 && polishes_ < 3) {
      ++polishes_;
      lastPolish_ = info_.iter;
      if (polish(true))
        return SCALY_QP_SOLVED;
    }
    if (int status = infeasibility())
      return status;
    if (info_.iter >= st_.max_iter)
      return SCALY_QP_MAX_ITER_REACHED;
    ++info_.iter;

    // Stalled at the floor of the regularization: lower the floor once.
    if ((noPrimalUpdate_ > 5 && rho_ == regLimit_) ||
        (noDualUpdate_ > 5 && delta_ == regLimit_)) {
      if (regLimit_ != st_.reg_finetune_lower_limit) {
        regLimit_ = st_.reg_finetune_lower_limit;
        noPrimalUpdate_ = noDualUpdate_ = 0;
      }
    }
    if (mt > 0 && repairCollapsedPairs()) {
      mu_ = q.dot() / mt;
      residuals();
    }
    // Multipliers at exactly zero would divide by zero in s/z.
    const double eps = std::numeric_limits<double>::epsilon();
    bool shifted = false;
    for (Vec *w : {&q.z, &q.zl, &q.zu})
      for (int i = 0; i < w->size(); ++i)
        if ((*w)[i] < eps) {
          (*w)[i] += eps;
          shifted = true;
        }
    if (shifted && mt > 0)
      mu_ = q.dot() / mt;
    if (!factorWithRetries())
      return SCALY_QP_NUMERICS;

    Vec &dx = dx_, &dy = dy_;
    Pairs &d = d_;
    double primalStep = 1.0, dualStep = 1.0, muRate = 0.0, solveWorst = 0.0;
    if (mt > 0) {
      // Predictor: the affine direction towards s o z = 0.
      Vec &rsz = rsz_, &rsl = rsl_, &rsu = rsu_;
      rsz = -q.s.cwiseProduct(q.z);
      rsl = -q.sl.cwiseProduct(q.zl);
      rsu = -q.su.cwiseProduct(q.zu);
      newton(rsz, rsl, rsu, dx, dy, d);
      solveWorst = solveErr_;
      double aS = st_.tau * q.slackStep(d), aZ = st_.tau * q.multiplierStep(d);
      double muAff = ((q.s + aS * d.s).dot(q.z + aZ * d.z) +
                      (q.sl + aS * d.sl).dot(q.zl + aZ * d.zl) +
                      (q.su + aS * d.su).dot(q.zu + aZ * d.zu)) /
                     mt;
      double sigma = std::pow(std::max(muAff, 0.0) / mu_, 3);
      sigma = std::min(sigma, 1.0);
      // Corrector: second-order term and centring.
      rsz += (sigma * mu_ - d.s.cwiseProduct(d.z).array()).matrix();
      rsl += (sigma * mu_ - d.sl.cwiseProduct(d.zl).array()).matrix();
      rsu += (sigma * mu_ - d.su.cwiseProduct(d.zu).array()).matrix();
      newton(rsz, rsl, rsu, dx, dy, d);
      solveWorst = std::max(solveWorst, solveErr_);
      primalStep = st_.tau * q.slackStep(d);
      dualStep = st_.tau * q.multiplierStep(d);
    } else {
      Vec none;
      newton(none, none, none, dx, dy, d);
      solveWorst = solveErr_;
    }
    lastPrimalStep_ = primalStep;
    lastDualStep_ = dualStep;
    if (!dx.allFinite() || !dy.allFinite() || !d.z.allFinite() || !d.s.allFinite() ||
        !d.zl.allFinite() || !d.zu.allFinite() || !std::isfinite(primalStep) ||
        !std::isfinite(dualStep) || !(solveWorst <= 1.0)) {
      // The factorization was too poor to give a direction (none, or one
      // whose system residual, refined, still exceeds its right-hand side:
      // QSHELL at the finest regularization, 1e69, which a dual step of 0.99
      // took): more regularization, and the same iteration again.
      if (++directionRetries_ > st_.max_factor_retries)
        return SCALY_QP_NUMERICS;
      raiseRegularization();
      --info_.iter;
      continue;
    }
    directionRetries_ = 0;
    x += primalStep * dx;
    q.s += primalStep * d.s;
    q.sl += primalStep * d.sl;
    q.su += primalStep * d.su;
    y += dualStep * dy;
    q.z += dualStep * d.z;
    q.zl += dualStep * d.zl;
    q.zu += dualStep * d.zu;
    if (mt > 0) {
      double muPrev = mu_;
      mu_ = q.dot() / mt;
      muRate = std::max(0.0, (muPrev - mu_) / muPrev);
    }

    double prevPrimal = primalInf_, prevDual = dualInf_;
    residuals();
    // Move a centre when its residual fell enough (or is already within
    // tolerance), and shrink its penalty with the complementarity. A centre
    // that stays keeps its penalty once the iterate has run far from it
    // (the proximal term then carries the infeasibility evidence).
    double fast = mt > 0 ? 1.0 - muRate : 0.1, slow = mt > 0 ? 1.0 - 0.666 * muRate : 0.5;
    bool dualDone = dualInf_ < st_.eps_abs + st_.eps_rel * dualRel_;
    bool primalDone = primalInf_ < st_.eps_abs + st_.eps_rel * primalRel_;
    // PIQP's fine-tuning: at the lowest floor a centre also moves while the
    // iterate stays near it (1e2 in the user's units), so that a residual
    // the proximal term has absorbed (x - xi = -r / rho) shows again.
    const bool fineTuning = regLimit_ == st_.reg_finetune_lower_limit;
    if (dualInf_ < 0.95 * prevDual || dualDone ||
        (fineTuning && rho_ == regLimit_ && dualProxDistance() < 1e2)) {
      xi_ = x;
      rho_ = std::max(regLimit_, fast * rho_);
    } else {
      ++noPrimalUpdate_;
      if (info_.iter < 5 || rho_ * infNorm(x - xi_) < infeasibilityThreshold)
        rho_ = std::max(regLimit_, slow * rho_);
    }
    if (primalInf_ < 0.95 * prevPrimal || primalDone ||
        (fineTuning && delta_ == regLimit_ && primalProxDistance() < 1e2)) {
      lambda_ = y;
      nuz_ = q.z;
      nul_ = q.zl;
      nuu_ = q.zu;
      delta_ = std::max(regLimit_, fast * delta_);
    } else {
      ++noDualUpdate_;
      double away = std::max({infNorm(y - lambda_), infNorm(q.z - nuz_), infNorm(q.zl - nul_),
                              infNorm(q.zu - nuu_)});
      if (info_.iter < 5 || delta_ * away < infeasibilityThreshold)
        delta_ = std::max(regLimit_, slow * delta_);
    }
  }
}


} // namespace scaly::qp
