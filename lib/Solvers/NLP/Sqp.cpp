//===- Sqp.cpp - Scaly SQP: a line-search SQP on the QP library -----------===//
//
// Each iteration solves the QP model
//
//   minimize 1/2 d'(H + delta I)d + grad f'd
//   s.t.     lbg - g <= J d <= ubg - g,  lbx - x <= d <= ubx - x
//
// with scaly_qp (set up once, then updated in place), takes the QP's
// multipliers as the new estimates and steps along d with a backtracking
// line search on the l1 merit function f + nu * ||constraint violation||_1.
// H is the exact Hessian of the Lagrangian with delta the smallest tried
// multiple of the identity that makes it positive definite (a Cholesky
// test), or a damped BFGS matrix. When the linearized constraints are
// inconsistent the step comes from the elastic QP (slacks on every row,
// penalized in l1), which also detects points of locally least
// infeasibility. A full step the merit refuses gets one second-order
// correction (the constraints relinearized at the trial point) before
// backtracking.
//
//===----------------------------------------------------------------------===//

#include "CachedLLT.h"
#include "ModelPattern.h"
#include "NLPInternal.h"

#include "scaly/Solvers/scaly_qp.h"

#include <Eigen/Dense>
#include <Eigen/SparseCholesky>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace scaly::nlp {
namespace {

using Vec = Eigen::VectorXd;
using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// The largest of 1 and the values' magnitudes (NaNs passed over, as
/// std::max passes them): in four interleaved maxima, which overlap (a
/// maximum is exact in any order).
double sizeOf(const std::vector<double> &values) {
  double m0 = 1.0, m1 = 1.0, m2 = 1.0, m3 = 1.0;
  const size_t size = values.size(), body = size & ~size_t(3);
  size_t i = 0;
  for (; i < body; i += 4) {
    m0 = std::max(m0, std::fabs(values[i]));
    m1 = std::max(m1, std::fabs(values[i + 1]));
    m2 = std::max(m2, std::fabs(values[i + 2]));
    m3 = std::max(m3, std::fabs(values[i + 3]));
  }
  for (; i < size; ++i)
    m0 = std::max(m0, std::fabs(values[i]));
  return std::max(std::max(m0, m1), std::max(m2, m3));
}

/// Whether every value is finite: exponent bits, in a pass without branches.
bool allFinite(const std::vector<double> &values) {
  const std::uint64_t exponent = 0x7ff0000000000000ULL;
  std::uint64_t bad = 0;
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bad |= (bits & exponent) == exponent;
  }
  return !bad;
}

/// The settings of the SQP's QPs (the model's and the elastic one): the
/// defaults with the options' tolerance and iteration limit.
void qpSettings(const Options &opt, scaly_qp_settings &settings) {
  scaly_qp_default_settings(&settings);
  settings.eps_abs = opt["qp_eps_abs"];
  if (opt["rti"] != 1) {
    // The SQP stops on its KKT residual (1e-8 by default), complementarity
    // included, read off the QP's multipliers: the QP's own residuals and
    // gap must be below it in absolute terms. A relative tolerance (1e-9 of
    // a gradient of 30) or a gap of 1e-8 left the SQP stalled at 2e-8 to
    // 3e-8 (hs112; the cart-pole swing-up). One real-time step tests nothing.
    settings.eps_rel = 0.0;
    settings.eps_duality_gap_abs = opt["qp_eps_abs"];
  }
  settings.max_iter = (int32_t)opt["qp_max_iter"];
}

/// Violation of lo <= v <= hi, l1 or max.
double violation(const double *v, const std::vector<double> &lo, const std::vector<double> &hi,
                 bool maxNorm) {
  double s = 0;
  for (size_t i = 0; i < lo.size(); ++i) {
    double e = std::max({0.0, lo[i] - v[i], v[i] - hi[i]});
    s = maxNorm ? std::max(s, e) : s + e;
  }
  return s;
}

/// Complementarity of multiplier `lam` with lo <= v <= hi: lam > 0 rests on
/// hi, lam < 0 on lo (a multiplier of an absent side is all error).
double complementarity(double lam, double v, double lo, double hi) {
  if (lam > 0)
    return std::isinf(hi) ? lam : lam * std::fabs(hi - v);
  if (lam < 0)
    return std::isinf(lo) ? -lam : -lam * std::fabs(v - lo);
  return 0;
}

/// The point the iteration is at: values, derivatives and multipliers.
struct Iterate {
  Vec x, g, grad, jac, lamG, lamX;
  double f = 0;
};

class SqpBackend : public Backend {
public:
  explicit SqpBackend(int qpBackend) : qpBackend_(qpBackend) {}
  ~SqpBackend() override { freeQps(); }

  int solve(Oracles &o, const Options &opt, const SolveData &data, Solution &out,
            scaly_solver_stats &stats) override;

private:
  // Set up on the first solve, for the Hessian mode it used.
  void buildPattern(const Oracles &o, bool bfgs);
  bool positiveDefinite(const std::vector<double> &p, double delta, bool hessianOnly = false);
  double regularize(const std::vector<double> &p, double initial);
  void convexify(const Oracles &o, const Iterate &it, const SolveData &data, double initial);
  int solveQp(const Oracles &o, const Options &opt, const Iterate &it, const SolveData &data,
              const std::vector<double> &lo, const std::vector<double> &hi, Vec &d, Vec &lamG,
              Vec &lamX, scaly_solver_stats &stats);
  int solveElastic(const Oracles &o, const Options &opt, const Iterate &it, const SolveData &data,
                   double penalty, Vec &d, Vec &lamG, Vec &lamX, scaly_solver_stats &stats);

  /// A QP solver of the model and the settings it has.
  struct QpInstance {
    scaly_qp_solver *solver = nullptr;
    scaly_qp_settings settings{};
  };
  void freeQps();

  int qpBackend_;
  // The model's QP on P's whole pattern, and on the Hessian's own (see
  // solveQp); the elastic QP.
  QpInstance fullQp_, hessianQp_;
  scaly_qp_solver *elastic_ = nullptr;
  bool haveLast_ = false, analyzed_ = false;
  ModelPattern pattern_;
  std::vector<double> pValues_; // H (+ delta I) in the QP's pattern
  std::vector<double> shifted_; // positiveDefinite's matrix
  std::vector<double> qpXl_, qpXu_; // solveQp's bounds on the step
  std::vector<int32_t> qpZeros_;    // and its empty A's column pointers
  double deltaLast_ = 0, rhoLast_ = 0;
  Eigen::MatrixXd bfgs_;
  Vec lastLamG_, lastLamX_;
  CachedLLT llt_;
  // The same test for values on the Hessian's entries and the diagonal only
  // (the others zero: J'J's, before convexify adds it), which leaves out
  // the factor's entries that are then zero (see CachedLLT::analyze).
  CachedLLT hessianLlt_;
  std::vector<double> hValues_; // P on those entries alone (solveQp)
  std::vector<int32_t> eColptr_, eRowind_, epColptr_, epRowind_; // elastic patterns
  Vec qpGrad_; // the QP's linear term: grad f, plus the convexification's shift
  // Storage a solve reuses from the previous one (sized once: a real-time
  // iteration allocates nothing here).
  Iterate it_;
  std::vector<double> hess_, lo_, hi_, residual_, boundResidual_, hScratch_, pScratch_;
  Vec d_, lamG_, lamX_, stationarity_, lin_;
  double rho_ = 0, delta_ = 0; // the latest convexification, for the iteration log
};

void SqpBackend::freeQps() {
  for (QpInstance *qp : {&fullQp_, &hessianQp_}) {
    scaly_qp_free(qp->solver);
    *qp = QpInstance{};
  }
  scaly_qp_free(elastic_);
  elastic_ = nullptr;
}

void SqpBackend::buildPattern(const Oracles &o, bool bfgs) {
  pattern_.build(o, bfgs);
  analyzed_ = false;
  freeQps();
  pValues_.assign(pattern_.rowind.size(), 0.0);
  hValues_.assign(pattern_.hRowind.size(), 0.0);
}

/// Whether P + delta I (P's values `p`) is positive definite. `hessianOnly`:
/// p is zero outside the Hessian's entries and the diagonal, and then the
/// test takes the short factorization that decides the same (a non-finite
/// value, which would spread where that factorization does not look, takes
/// the whole one).
bool SqpBackend::positiveDefinite(const std::vector<double> &p, double delta, bool hessianOnly) {
  int n = (int)pattern_.diagP.size();
  shifted_ = p;
  for (int j = 0; j < n; ++j)
    shifted_[pattern_.diagP[j]] += delta;
  if (!analyzed_) {
    llt_.analyze(n, pattern_.colptr, pattern_.rowind);
    hessianLlt_.analyze(n, pattern_.colptr, pattern_.rowind, &pattern_.hessianEntry);
    analyzed_ = true;
  }
  return (hessianOnly && allFinite(shifted_) ? hessianLlt_ : llt_).factor(shifted_.data());
}

/// The delta to add to H's diagonal: 0 when H is positive definite (to a
/// tolerance relative to its size), else the first of a rising sequence
/// that starts from a third of the last one used (IPOPT's rule).
double SqpBackend::regularize(const std::vector<double> &p, double initial) {
  double scale = sizeOf(p);
  if (positiveDefinite(p, 1e-12 * scale))
    return 0.0;
  double delta = deltaLast_ > 0 ? std::max(1e-20, deltaLast_ / 3) : initial;
  while (!positiveDefinite(p, delta) && delta < 1e40)
    delta *= deltaLast_ > 0 ? 8 : 100;
  deltaLast_ = delta;
  return delta;
}

/// Makes the model convex where it need not be: H (in pValues_) plus
/// rho J_A'J_A over the rows and bounds predicted active (equalities, and
/// those with a nonzero multiplier), with qpGrad_ shifted by rho J_A' r_A
/// (r_A: their residuals). The term rho/2 ||J_A d + r_A||^2 it adds to the
/// model vanishes, with its gradient, at every step that keeps those rows
/// active, so near a solution the QP's step is the exact-Hessian one while
/// H itself may be indefinite (positive definiteness on the null space of
/// J_A suffices: Finsler's lemma). Only what that cannot fix gets delta I.
void SqpBackend::convexify(const Oracles &o, const Iterate &it, const SolveData &data,
                           double initial) {
  int n = o.n, m = o.m;
  qpGrad_ = it.grad;
  rho_ = delta_ = 0;
  double scale = sizeOf(pValues_);
  if (positiveDefinite(pValues_, 1e-12 * scale, true))
    return;
  // Residual of each predicted-active row (NaN: not active).
  std::vector<double> &residual = residual_, &boundResidual = boundResidual_;
  residual.assign(m, NAN);
  boundResidual.assign(n, NAN);
  double jmax = 0;
  // A multiplier counts as nonzero above the QP's accuracy, relative to the largest.
  double lamMax = std::max({1.0, it.lamG.lpNorm<Eigen::Infinity>(),
                            it.lamX.lpNorm<Eigen::Infinity>()});
  double tiny = 1e-7 * lamMax;
  // Active: an equality, or a side the multiplier rests on that the iterate
  // is at (or beyond) to a small tolerance; a multiplier on a side far away
  // predicts nothing, and its residual would pull the step there.
  auto near = [](double residual, double bound) {
    return std::fabs(residual) <= 1e-3 * (1 + std::fabs(bound));
  };
  for (int i = 0; i < m; ++i) {
    double up = it.g[i] - data.ubg[i], down = it.g[i] - data.lbg[i];
    if (data.lbg[i] == data.ubg[i])
      residual[i] = up;
    else if (it.lamG[i] > tiny && std::isfinite(data.ubg[i]) && (up > 0 || near(up, data.ubg[i])))
      residual[i] = up;
    else if (it.lamG[i] < -tiny && std::isfinite(data.lbg[i]) &&
             (down < 0 || near(down, data.lbg[i])))
      residual[i] = down;
  }
  for (int j = 0; j < n; ++j) {
    double up = it.x[j] - data.ubx[j], down = it.x[j] - data.lbx[j];
    if (it.lamX[j] > tiny && std::isfinite(data.ubx[j]) && near(up, data.ubx[j]))
      boundResidual[j] = up;
    else if (it.lamX[j] < -tiny && std::isfinite(data.lbx[j]) && near(down, data.lbx[j]))
      boundResidual[j] = down;
    if (!std::isnan(boundResidual[j]))
      jmax = std::max(jmax, 1.0);
  }
  for (int j = 0; j < n; ++j)
    for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
      if (!std::isnan(residual[o.jacRowind[k]]))
        jmax = std::max(jmax, std::fabs(it.jac[k]));
  std::vector<double> &h = hScratch_, &p = pScratch_;
  h = pValues_;
  if (jmax > 0) {
    auto withRho = [&](double rho) {
      p = h;
      for (int i = 0; i < m; ++i)
        if (!std::isnan(residual[i]))
          for (int q = pattern_.rowStart[i]; q < pattern_.rowStart[i + 1]; ++q) {
            const ModelPattern::Product &pr = pattern_.products[q];
            p[pr.pos] += rho * it.jac[pr.a] * it.jac[pr.b];
          }
      for (int j = 0; j < n; ++j)
        if (!std::isnan(boundResidual[j]))
          p[pattern_.diagP[j]] += rho;
    };
    auto take = [&](double rho) {
      pValues_ = p;
      rho_ = rho;
      for (int j = 0; j < n; ++j) {
        for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
          if (!std::isnan(residual[o.jacRowind[k]]))
            qpGrad_[j] += rho * it.jac[k] * residual[o.jacRowind[k]];
        if (!std::isnan(boundResidual[j]))
          qpGrad_[j] += rho * boundResidual[j];
      }
    };
    // From a tenth of the last rho that worked (the active set and the
    // curvature change little between iterations: one or two Cholesky
    // tests), else from 1e-2 of H's size over J's squared.
    double base = scale / (jmax * jmax);
    double rho = rhoLast_ > 0 ? std::clamp(rhoLast_ / 10, 1e-2 * base, 1e4 * base) : 1e-2 * base;
    for (; rho <= 1e4 * base; rho *= 10) {
      withRho(rho);
      if (positiveDefinite(p, 1e-12 * scale)) {
        take(rho);
        rhoLast_ = rho;
        return;
      }
    }
    // The reduced Hessian itself is indefinite (far from a solution, or a
    // wrong guess of the active set): the identity goes on top of the
    // largest rho, where it needs to be smallest.
    withRho(rho / 10);
    take(rho / 10);
  }
  double delta = regularize(pValues_, initial);
  delta_ = delta;
  for (int j = 0; j < n; ++j)
    pValues_[pattern_.diagP[j]] += delta;
}

/// The QP library's form of the bounds: infinite sides as they are.
int SqpBackend::solveQp(const Oracles &o, const Options &opt, const Iterate &it,
                        const SolveData &data, const std::vector<double> &lo,
                        const std::vector<double> &hi, Vec &d, Vec &lamG, Vec &lamX,
                        scaly_solver_stats &stats) {
  int n = o.n, m = o.m;
  std::vector<double> &xl = qpXl_, &xu = qpXu_;
  xl.resize(n);
  xu.resize(n);
  for (int i = 0; i < n; ++i) {
    xl[i] = data.lbx[i] - it.x[i];
    xu[i] = data.ubx[i] - it.x[i];
  }
  // P without J'J's entries when convexify added none (rho 0, the usual
  // case: they are all zero then), on a QP solver of its own, analysed
  // once like the other: their explicit zeros gave the cart-pole's KKT
  // factor a third more entries, and cost its RTI QP 18 % of its time.
  const bool hessianOnly = !pattern_.bfgs && rho_ == 0.0;
  QpInstance &qp = hessianOnly ? hessianQp_ : fullQp_;
  if (hessianOnly)
    for (size_t q = 0; q < pattern_.hFromP.size(); ++q)
      hValues_[q] = pValues_[pattern_.hFromP[q]];
  const std::vector<int32_t> &colptr = hessianOnly ? pattern_.hColptr : pattern_.colptr,
                             &rowind = hessianOnly ? pattern_.hRowind : pattern_.rowind;
  scaly_qp_data qd{n, 0, m,
                   {n, n, colptr.data(), rowind.data(),
                    hessianOnly ? hValues_.data() : pValues_.data()},
                   qpGrad_.data(),
                   {0, n, nullptr, nullptr, nullptr}, nullptr,
                   {m, n, o.jacColptr.data(), o.jacRowind.data(), it.jac.data()}, lo.data(),
                   hi.data(), xl.data(), xu.data()};
  qpZeros_.assign(n + 1, 0);
  qd.A.colptr = qpZeros_.data();
  scaly_qp_settings settings{}; // padding zeroed too: compared whole below
  qpSettings(opt, settings);
  if (opt["rti"] == 1) {
    // A real-time iteration's model differs little from the previous call's:
    // the QP keeps its equilibration while that stays within 10 % of
    // balancing the new matrices (the 10 Ruiz sweeps were an eighth of a
    // step). And its Newton directions are not refined: a refinement step
    // costs a product with the KKT matrix to measure the solve's error,
    // which was below 1e-12 for 9 solves in 10 (the iteration judges
    // convergence on residuals computed afresh, whatever the directions'
    // accuracy; the cart-pole's RTI loop takes the same QP iterations).
    // The duality gap's terms are summed in double (the QP's gap tolerance,
    // 1e-8, lies far above a double sum's rounding at a model's scale).
    // Its steps go 0.9999 of the way to the boundary (LIPSOL's and HOPDM's
    // range), not 0.99: warm started, the iteration is in Newton's region at
    // once, and each step cut residuals and complementarity only by the
    // factor 1 - tau that kept the inactive bounds' multipliers off zero:
    // 100 per step, 4 steps to the tolerances; 1e4 per step takes 2 (the
    // cart-pole's QPs: 4 -> 2 iterations; the QPs where its linearized
    // constraints are inconsistent end as before, or found infeasible
    // sooner).
    settings.preconditioner_reuse = 1.1;
    settings.iterative_refinement_max_iter = 0;
    settings.duality_gap_extended = 0;
    settings.tau = 0.9999;
  }
  double t0 = now();
  // The settings go to the QP when they changed (their check makes strings);
  // P was just found positive definite (convexify): the QP need not check it again.
  scaly_qp_solver *&solver = qp.solver;
  bool sameSettings = solver && std::memcmp(&settings, &qp.settings, sizeof settings) == 0;
  bool ready =
      solver ? (sameSettings || scaly_qp_update_settings(solver, &settings, nullptr, 0) == 0) &&
                   scaly_qp_update_convex(solver, &qd, 1, nullptr, 0) == 0
             : (solver = scaly_qp_setup(&qd, qpBackend_, &settings, nullptr, 0)) != nullptr;
  if (ready)
    qp.settings = settings;
  int status = SCALY_SOLVE_ERROR;
  if (ready) {
    bool warm = opt["qp_warm_start"] != 0;
    status = scaly_qp_solve(solver, nullptr, nullptr, warm ? it.lamG.data() : nullptr,
                            warm ? it.lamX.data() : nullptr);
    d.resize(n);
    lamG.resize(m);
    lamX.resize(n);
    scaly_qp_solution(solver, d.data(), nullptr, lamG.data(), lamX.data());
    scaly_qp_info info;
    scaly_qp_get_info(solver, &info);
    stats.qp_iter += info.iter;
  }
  stats.t_qp += now() - t0;
  return status;
}

/// The elastic QP: d and slacks s, t >= 0 per row, lbg - g <= J d + s - t <=
/// ubg - g, with penalty * sum(s + t) added to the model.
int SqpBackend::solveElastic(const Oracles &o, const Options &opt, const Iterate &it,
                             const SolveData &data, double penalty, Vec &d, Vec &lamG, Vec &lamX,
                             scaly_solver_stats &stats) {
  int n = o.n, m = o.m, ne = n + 2 * m;
  if (eColptr_.empty()) {
    eColptr_.assign(o.jacColptr.begin(), o.jacColptr.end());
    eRowind_.assign(o.jacRowind.begin(), o.jacRowind.end());
    for (int k = 0; k < 2 * m; ++k) {
      eRowind_.push_back(k % m);
      eColptr_.push_back((int32_t)eRowind_.size());
    }
    epColptr_.assign(pattern_.colptr.begin(), pattern_.colptr.end());
    epRowind_.assign(pattern_.rowind.begin(), pattern_.rowind.end());
    for (int k = 0; k < 2 * m; ++k) {
      epRowind_.push_back(n + k);
      epColptr_.push_back((int32_t)epRowind_.size());
    }
  }
  std::vector<double> jac(it.jac.data(), it.jac.data() + o.jacNnz()), p(pValues_);
  for (int k = 0; k < 2 * m; ++k) {
    jac.push_back(k < m ? 1.0 : -1.0);
    p.push_back(1e-8); // a little curvature keeps the slacks' steps bounded
  }
  std::vector<double> c(qpGrad_.data(), qpGrad_.data() + n), lo(m), hi(m), xl(ne), xu(ne);
  c.resize(ne, penalty);
  for (int i = 0; i < m; ++i) {
    lo[i] = data.lbg[i] - it.g[i];
    hi[i] = data.ubg[i] - it.g[i];
  }
  for (int i = 0; i < ne; ++i) {
    xl[i] = i < n ? data.lbx[i] - it.x[i] : 0.0;
    xu[i] = i < n ? data.ubx[i] - it.x[i] : inf;
  }
  std::vector<int32_t> zeros(ne + 1, 0);
  scaly_qp_data qd{ne, 0, m,
                   {ne, ne, epColptr_.data(), epRowind_.data(), p.data()}, c.data(),
                   {0, ne, zeros.data(), nullptr, nullptr}, nullptr,
                   {m, ne, eColptr_.data(), eRowind_.data(), jac.data()}, lo.data(), hi.data(),
                   xl.data(), xu.data()};
  scaly_qp_settings settings{};
  qpSettings(opt, settings);
  double t0 = now();
  bool ready = elastic_ ? scaly_qp_update_convex(elastic_, &qd, 1, nullptr, 0) == 0
                        : (elastic_ = scaly_qp_setup(&qd, qpBackend_, &settings, nullptr, 0)) !=
                              nullptr;
  int status = SCALY_SOLVE_ERROR;
  if (ready) {
    status = scaly_qp_solve(elastic_, nullptr, nullptr, nullptr, nullptr);
    Vec de(ne), ze(ne);
    lamG.resize(m);
    scaly_qp_solution(elastic_, de.data(), nullptr, lamG.data(), ze.data());
    d = de.head(n);
    lamX = ze.head(n);
    scaly_qp_info info;
    scaly_qp_get_info(elastic_, &info);
    stats.qp_iter += info.iter;
  }
  stats.t_qp += now() - t0;
  return status;
}

int SqpBackend::solve(Oracles &o, const Options &opt, const SolveData &data, Solution &out,
                      scaly_solver_stats &stats) {
  const int n = o.n, m = o.m;
  const bool bfgs = opt["hessian_approximation"] == 1, rti = opt["rti"] == 1;
  const int maxIter = rti ? 1 : (int)opt["max_iter"];
  const double tol = opt["tol"], violTol = opt["constr_viol_tol"];
  const int verbose = (int)opt["print_level"];
  if (pattern_.colptr.empty() || bfgs != pattern_.bfgs)
    buildPattern(o, bfgs);
  if (!rti) {
    // A solve depends on its data only: nothing of the previous solve's
    // regularization, nor its QP solvers' state (a real-time iteration
    // keeps both: it continues the previous call).
    deltaLast_ = rhoLast_ = 0;
    freeQps();
  }
  if (bfgs && bfgs_.rows() != n)
    bfgs_ = Eigen::MatrixXd::Identity(n, n);

  Iterate &it = it_;
  it.f = 0;
  it.x = Eigen::Map<const Vec>(data.x0.data(), n);
  for (int i = 0; i < n; ++i) // start inside the bounds: every QP step keeps it there
    it.x[i] = std::min(std::max(it.x[i], data.lbx[i]), data.ubx[i]);
  // A real-time iteration continues from the previous call's multipliers,
  // unless the caller gives some (shifted ones, say).
  bool given = std::any_of(data.lamG0.begin(), data.lamG0.end(), [](double v) { return v != 0; }) ||
               std::any_of(data.lamX0.begin(), data.lamX0.end(), [](double v) { return v != 0; });
  bool fromLast = rti && !given && haveLast_ && lastLamG_.size() == m && lastLamX_.size() == n;
  if (fromLast) {
    it.lamG = lastLamG_;
    it.lamX = lastLamX_;
  } else {
    it.lamG = Eigen::Map<const Vec>(data.lamG0.data(), m);
    it.lamX = Eigen::Map<const Vec>(data.lamX0.data(), n);
  }
  it.g.resize(m);
  it.grad.resize(n);
  it.jac.resize(o.jacNnz());
  std::vector<double> &hess = hess_;
  hess.resize(o.hessNnz());
  auto finish = [&](int status, int native) {
    out.x.assign(it.x.data(), it.x.data() + n);
    out.lamG.assign(it.lamG.data(), it.lamG.data() + m);
    out.lamX.assign(it.lamX.data(), it.lamX.data() + n);
    lastLamG_ = it.lamG;
    lastLamX_ = it.lamX;
    haveLast_ = true;
    stats.native_status = native;
    stats.obj = it.f;
    stats.primal_viol = std::max(violation(it.g.data(), data.lbg, data.ubg, true),
                                 violation(it.x.data(), data.lbx, data.ubx, true));
    return status;
  };
  auto evaluate = [&](bool withDerivatives) {
    return o.f(it.x.data(), it.f) && o.g(it.x.data(), it.g.data()) &&
           (!withDerivatives || (o.gradF(it.x.data(), it.grad.data()) &&
                                 o.jacG(it.x.data(), it.jac.data())));
  };
  if (!evaluate(true))
    return finish(SCALY_SOLVE_ERROR, SCALY_SQP_EVAL_ERROR);

  double nu = opt["penalty_init"];
  int unboundedModels = 0;
  double globalization = 0; // line-search time, oracles included (removed below)
  double feAtGlobalization = 0;
  std::vector<double> &lo = lo_, &hi = hi_;
  lo.resize(m);
  hi.resize(m);
  Vec &d = d_, &lamG = lamG_, &lamX = lamX_;
  for (int iter = 0;; ++iter) {
    // Convergence: the KKT conditions at the iterate, scaled as IPOPT does
    // (a real-time iteration, which tests nothing, computes them to print).
    double viol = std::max(violation(it.g.data(), data.lbg, data.ubg, true),
                           violation(it.x.data(), data.lbx, data.ubx, true));
    double kkt = NAN;
    if (!rti || verbose) {
      Vec &stationarity = stationarity_;
      stationarity = it.grad + it.lamX;
      for (int j = 0; j < n; ++j)
        for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
          stationarity[j] += it.jac[k] * it.lamG[o.jacRowind[k]];
      double compl_ = 0;
      for (int i = 0; i < m; ++i)
        compl_ = std::max(compl_, complementarity(it.lamG[i], it.g[i], data.lbg[i], data.ubg[i]));
      for (int i = 0; i < n; ++i)
        compl_ = std::max(compl_, complementarity(it.lamX[i], it.x[i], data.lbx[i], data.ubx[i]));
      double sd = std::max(100.0, (it.lamG.lpNorm<1>() + it.lamX.lpNorm<1>()) /
                                      std::max(1, n + m)) / 100.0;
      kkt = std::max(stationarity.lpNorm<Eigen::Infinity>(), compl_) / sd;
    }
    if (verbose)
      std::printf("sqp %3d  f %+.10e  viol %.2e  kkt %.2e  nu %.2e\n", iter, it.f, viol, kkt, nu);
    stats.iter = iter;
    if (!rti && kkt <= tol && viol <= violTol)
      return finish(SCALY_SOLVE_OK, SCALY_SQP_SOLVED);
    if (iter >= maxIter) {
      if (rti)
        return finish(SCALY_SOLVE_ACCEPTABLE, SCALY_SQP_RTI_STEP);
      bool acceptable = kkt <= opt["acceptable_tol"] && viol <= std::sqrt(violTol);
      return finish(acceptable ? SCALY_SOLVE_ACCEPTABLE : SCALY_SOLVE_MAX_ITER,
                    acceptable ? SCALY_SQP_ACCEPTABLE : SCALY_SQP_MAX_ITER);
    }
    if (it.f < opt["obj_lower_limit"] || it.x.lpNorm<Eigen::Infinity>() >= 1e20)
      return finish(SCALY_SOLVE_DUAL_INFEASIBLE, SCALY_SQP_UNBOUNDED);

    // The model's Hessian.
    double t0 = now(), tFe0 = stats.t_fe;
    std::fill(pValues_.begin(), pValues_.end(), 0.0);
    if (bfgs) {
      for (int j = 0, k = 0; j < n; ++j)
        for (int i = 0; i <= j; ++i, ++k)
          pValues_[k] = bfgs_(i, j);
    } else {
      if (!o.hessL(it.x.data(), 1.0, it.lamG.data(), hess.data()))
        return finish(SCALY_SOLVE_NUMERICS, SCALY_SQP_EVAL_ERROR);
      for (int k = 0; k < o.hessNnz(); ++k)
        pValues_[pattern_.hessToP[k]] += hess[k];
    }
    double delta = 0;
    if (bfgs)
      qpGrad_ = it.grad;
    else
      convexify(o, it, data, opt["regularization_init"]);
    stats.t_solver += now() - t0 - (stats.t_fe - tFe0);

    // The step: the QP model, with more curvature when it is unbounded, or
    // the elastic model when its constraints are inconsistent.
    for (int i = 0; i < m; ++i) {
      lo[i] = data.lbg[i] - it.g[i];
      hi[i] = data.ubg[i] - it.g[i];
    }
    int qpStatus = solveQp(o, opt, it, data, lo, hi, d, lamG, lamX, stats);
    bool elastic = false;
    for (int retry = 0; qpStatus == SCALY_SOLVE_DUAL_INFEASIBLE && retry < 8; ++retry) {
      unboundedModels += retry == 0 && delta == 0;
      double more = std::max(delta * 8, deltaLast_ > 0 ? deltaLast_ : opt["regularization_init"]);
      for (int j = 0; j < n; ++j)
        pValues_[pattern_.diagP[j]] += more - delta;
      delta = deltaLast_ = more;
      qpStatus = solveQp(o, opt, it, data, lo, hi, d, lamG, lamX, stats);
    }
    if (qpStatus != SCALY_SOLVE_DUAL_INFEASIBLE && delta == 0)
      unboundedModels = 0;
    if (unboundedModels >= 5)
      return finish(SCALY_SOLVE_DUAL_INFEASIBLE, SCALY_SQP_UNBOUNDED);
    if (qpStatus == SCALY_SOLVE_PRIMAL_INFEASIBLE && m > 0) {
      elastic = true;
      nu = std::max({nu, 10 * it.lamG.lpNorm<Eigen::Infinity>(), 1.0});
      qpStatus = solveElastic(o, opt, it, data, nu, d, lamG, lamX, stats);
    }
    if (qpStatus != SCALY_SOLVE_OK && qpStatus != SCALY_SOLVE_ACCEPTABLE && !elastic && m > 0) {
      // An unsolved model (iteration limit, numerical trouble): its elastic
      // form has a strictly feasible interior and is solved instead.
      elastic = true;
      nu = std::max({nu, 10 * it.lamG.lpNorm<Eigen::Infinity>(), 1.0});
      qpStatus = solveElastic(o, opt, it, data, nu, d, lamG, lamX, stats);
    }
    if (qpStatus != SCALY_SOLVE_OK && qpStatus != SCALY_SOLVE_ACCEPTABLE &&
        qpStatus != SCALY_SOLVE_MAX_ITER)
      return finish(qpStatus == SCALY_SOLVE_PRIMAL_INFEASIBLE ? SCALY_SOLVE_PRIMAL_INFEASIBLE
                                                              : SCALY_SOLVE_NUMERICS,
                    qpStatus == SCALY_SOLVE_PRIMAL_INFEASIBLE ? SCALY_SQP_INFEASIBLE
                                                              : SCALY_SQP_QP_FAILED);
    double stepInf = d.lpNorm<Eigen::Infinity>();
    stats.step_inf = stepInf;

    // The linearized violation the step leaves, and the merit's slope.
    Vec &lin = lin_;
    lin = it.g;
    for (int j = 0; j < n; ++j)
      for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
        lin[o.jacRowind[k]] += it.jac[k] * d[j];
    double v1 = violation(it.g.data(), data.lbg, data.ubg, false);
    double linV1 = violation(lin.data(), data.lbg, data.ubg, false);
    if (elastic && stepInf <= opt["min_step"] * (1 + it.x.lpNorm<Eigen::Infinity>()) &&
        viol > violTol)
      return finish(SCALY_SOLVE_PRIMAL_INFEASIBLE, SCALY_SQP_INFEASIBLE);
    // nu above the multipliers: then the step is a descent direction of the
    // merit (Han; Powell). Powell's update lets it come down again halfway.
    double gd = it.grad.dot(d);
    if (!elastic) {
      double needed = 1.01 * lamG.lpNorm<Eigen::Infinity>() + 1e-8;
      nu = std::max(needed, 0.5 * (nu + needed));
    }
    stats.merit_penalty = nu;
    double slope = gd - nu * (v1 - linV1);

    // The line search (or, for a real-time iteration, the full step).
    double tLs = now(), feLs = stats.t_fe, qpLs = stats.t_qp;
    double merit0 = it.f + nu * v1, alpha = 1.0;
    Vec xTrial, gTrial;
    if (!rti) {
      xTrial.resize(n);
      gTrial.resize(m);
    }
    double fTrial = 0;
    bool accepted = rti;
    if (!rti) {
      const double eta = opt["armijo"];
      bool triedSoc = !(opt["second_order_correction"] == 1) || m == 0;
      for (int bt = 0; bt <= (int)opt["max_backtracks"]; ++bt) {
        xTrial = it.x + alpha * d;
        if (o.f(xTrial.data(), fTrial) && o.g(xTrial.data(), gTrial.data())) {
          double merit = fTrial + nu * violation(gTrial.data(), data.lbg, data.ubg, false);
          if (merit <= merit0 + eta * alpha * std::min(slope, 0.0) + 1e-14 * std::fabs(merit0)) {
            accepted = true;
            break;
          }
          // One second-order correction of a refused full step: the
          // constraints relinearized at the trial point.
          if (!triedSoc && alpha == 1.0 &&
              violation(gTrial.data(), data.lbg, data.ubg, false) > v1 * 0.0) {
            triedSoc = true;
            Vec jd = lin - it.g;
            std::vector<double> slo(m), shi(m);
            for (int i = 0; i < m; ++i) {
              slo[i] = data.lbg[i] - gTrial[i] + jd[i];
              shi[i] = data.ubg[i] - gTrial[i] + jd[i];
            }
            Vec dc, lc, lx;
            int s = solveQp(o, opt, it, data, slo, shi, dc, lc, lx, stats);
            if (s == SCALY_SOLVE_OK || s == SCALY_SOLVE_ACCEPTABLE) {
              Vec xc = it.x + dc;
              double fc;
              Vec gc(m);
              if (o.f(xc.data(), fc) && o.g(xc.data(), gc.data()) &&
                  fc + nu * violation(gc.data(), data.lbg, data.ubg, false) <=
                      merit0 + eta * std::min(slope, 0.0)) {
                xTrial = xc;
                fTrial = fc;
                gTrial = gc;
                d = dc;
                accepted = true;
                break;
              }
            }
          }
        }
        alpha *= 0.5;
        ++stats.backtracks;
      }
    }
    // The line search's own time: its oracle calls are t_fe, and the QP of a
    // second-order correction is t_qp.
    globalization += now() - tLs;
    feAtGlobalization += (stats.t_fe - feLs) + (stats.t_qp - qpLs);
    stats.t_globalization = std::max(0.0, globalization - feAtGlobalization);
    if (!accepted) {
      if (verbose)
        std::printf("    line search failed: step %.2e  slope %.2e  rho %.1e  delta %.1e\n", stepInf,
                    slope, rho_, delta_);
      // No decrease along d: the iterate is as good as the merit can tell.
      bool acceptable = kkt <= opt["acceptable_tol"] && viol <= std::sqrt(violTol);
      return finish(acceptable ? SCALY_SOLVE_ACCEPTABLE : SCALY_SOLVE_NUMERICS,
                    acceptable ? SCALY_SQP_ACCEPTABLE : SCALY_SQP_LINE_SEARCH);
    }
    stats.alpha = rti ? 1.0 : alpha;
    if (verbose)
      std::printf("    step %.2e  alpha %.2e  rho %.1e  delta %.1e  qp %d%s\n", stepInf, stats.alpha,
                  rho_, delta_, qpStatus, elastic ? "  elastic" : "");

    // Move, and take the QP's multipliers.
    Vec gradLagOld;
    if (bfgs) {
      gradLagOld = it.grad;
      for (int j = 0; j < n; ++j)
        for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
          gradLagOld[j] += it.jac[k] * lamG[o.jacRowind[k]];
    }
    Vec step;
    if (rti) {
      it.x += d;
    } else {
      step = xTrial - it.x;
      it.x += step;
    }
    it.lamG = lamG;
    it.lamX = lamX;
    bool ok = rti ? evaluate(!rti) : (it.f = fTrial, it.g = gTrial, o.gradF(it.x.data(), it.grad.data()) &&
                                                    o.jacG(it.x.data(), it.jac.data()));
    if (rti) {
      stats.iter = 1;
      if (!ok)
        return finish(SCALY_SOLVE_NUMERICS, SCALY_SQP_EVAL_ERROR);
      continue;
    }
    if (!ok)
      return finish(SCALY_SOLVE_NUMERICS, SCALY_SQP_EVAL_ERROR);
    if (bfgs) {
      // Powell's damped update keeps the matrix positive definite.
      Vec y = it.grad - gradLagOld;
      for (int j = 0; j < n; ++j)
        for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
          y[j] += it.jac[k] * lamG[o.jacRowind[k]];
      Vec bs = bfgs_ * step;
      double sbs = step.dot(bs), sy = step.dot(y);
      if (sbs > 1e-16) {
        double theta = sy >= 0.2 * sbs ? 1.0 : 0.8 * sbs / (sbs - sy);
        Vec r = theta * y + (1 - theta) * bs;
        double sr = step.dot(r);
        if (sr > 1e-16)
          bfgs_ += r * r.transpose() / sr - bs * bs.transpose() / sbs;
      }
    }
  }
}

} // namespace

std::unique_ptr<Backend> makeSqp(int qpBackend) {
  return std::make_unique<SqpBackend>(qpBackend);
}

} // namespace scaly::nlp
