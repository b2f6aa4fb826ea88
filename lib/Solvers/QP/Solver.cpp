//===- Solver.cpp - a QP set up, updated and solved ------------------------===//
//
// The Solver owns the equilibrated problem and its KKT backend: it builds
// them from the user's data, tells an update of values from a change of
// structure, maps a starting point into the equilibrated variables, runs the
// iteration (Ipm.cpp) and maps the solution and multipliers back.
//
//===----------------------------------------------------------------------===//

#include "Ipm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scaly::qp {

Solver::Solver(const scaly_qp_data &data, int backend, const scaly_qp_settings &settings)
    : backend_(backend), settings_(settings) {
  double t0 = monotonicSeconds();
  build(data);
  info_.t_setup = monotonicSeconds() - t0;
}

// Out of line: Ipm is complete here.
Solver::Solver(Solver &&) noexcept = default;
Solver::~Solver() = default;

namespace {

/// The index tables of a user matrix, to tell an update of values from a
/// change of structure.
std::vector<int> patternOf(const scaly_qp_csc &M) {
  std::vector<int> out;
  if (!M.colptr)
    return out;
  out.assign(M.colptr, M.colptr + M.ncol + 1);
  out.insert(out.end(), M.rowind, M.rowind + M.colptr[M.ncol]);
  return out;
}

std::vector<double> valuesOf(const scaly_qp_csc &M) {
  if (!M.colptr || !M.values)
    return {};
  return std::vector<double>(M.values, M.values + M.colptr[M.ncol]);
}

/// Whether M, unchecked, is rows x cols with the index tables `pattern` (as
/// patternOf gives them for a matrix of that size): it reads no more of M's
/// tables than that pattern has.
bool patternIs(const scaly_qp_csc &M, int rows, int cols, const std::vector<int> &pattern) {
  if (M.nrow != rows || M.ncol != cols)
    return false;
  if (!M.colptr)
    return pattern.empty();
  size_t pointers = (size_t)cols + 1;
  if (pattern.size() < pointers || !std::equal(M.colptr, M.colptr + pointers, pattern.begin()))
    return false;
  size_t nnz = (size_t)M.colptr[cols];
  return pattern.size() == pointers + nnz && (nnz == 0 || M.rowind) &&
         std::equal(M.rowind, M.rowind + nnz, pattern.begin() + pointers);
}

/// Whether M's values are `values` (as valuesOf gives them; same pattern).
bool valuesAre(const scaly_qp_csc &M, const std::vector<double> &values) {
  if (!M.colptr || !M.values)
    return values.empty();
  size_t nnz = (size_t)M.colptr[M.ncol];
  return values.size() == nnz && std::equal(M.values, M.values + nnz, values.begin());
}

void copyValues(const scaly_qp_csc &M, std::vector<double> &values) {
  if (!M.colptr || !M.values)
    values.clear();
  else
    values.assign(M.values, M.values + M.colptr[M.ncol]);
}

/// How far apart a bound pair that no x satisfies lies (l - u, or infinity for
/// a side at an infinite value); 0 when every pair can be met.
double impossibleBy(const double *lo, const double *hi, int size) {
  double worst = 0.0;
  for (int i = 0; i < size; ++i) {
    double l = lo ? lo[i] : -INFINITY, u = hi ? hi[i] : INFINITY;
    if (l >= absentBound || u <= -absentBound)
      worst = INFINITY;
    else if (l > u)
      worst = std::max(worst, l - u);
  }
  return worst;
}

bool impossible(const scaly_qp_data &data, double &by) {
  by = std::max(impossibleBy(data.h_l, data.h_u, data.m), impossibleBy(data.x_l, data.x_u, data.n));
  return by > 0.0;
}

} // namespace

void Solver::build(const scaly_qp_data &data) {
  Problem problem = buildProblem(data, settings_);
  std::string convexity = checkConvex(problem);
  if (!convexity.empty())
    throw std::invalid_argument(convexity);
  problem_ = std::move(problem);
  ipm_.reset();
  kkt_ = backend_ == SCALY_QP_DENSE ? makeDenseKKT(problem_) : makeSparseKKT(problem_);
  solution_.x = Vec::Zero(problem_.n);
  solution_.y = Vec::Zero(problem_.userP);
  solution_.z = Vec::Zero(problem_.userM);
  solution_.zBox = Vec::Zero(problem_.n);
  patterns_ = {patternOf(data.P), patternOf(data.A), patternOf(data.G)};
  values_ = {valuesOf(data.P), valuesOf(data.A), valuesOf(data.G)};
  impossible_ = impossible(data, impossibleBy_);
}

std::string Solver::update(const scaly_qp_data &data, bool checkConvexity) {
  // Matrices on the patterns this solver holds (checked when they came)
  // need only their values checked: an SQP's models, a real-time
  // iteration's every step. Anything else is checked whole.
  const scaly_qp_csc *mats[3] = {&data.P, &data.A, &data.G};
  const int rows[3] = {problem_.n, problem_.userP, problem_.userM};
  bool samePatterns = data.n == problem_.n && data.p == problem_.userP && data.m == problem_.userM;
  for (int k = 0; k < 3; ++k)
    samePatterns = samePatterns && patternIs(*mats[k], rows[k], problem_.n, patterns_[k]);
  std::string error = samePatterns && valuesValid(data) ? std::string() : validate(data);
  if (!error.empty())
    return error;
  if (data.n != problem_.n || data.p != problem_.userP || data.m != problem_.userM)
    return "update changes the dimensions (n, p, m) from (" + std::to_string(problem_.n) +
           ", " + std::to_string(problem_.userP) + ", " + std::to_string(problem_.userM) +
           ") to (" + std::to_string(data.n) + ", " + std::to_string(data.p) + ", " +
           std::to_string(data.m) + "); set up a new solver instead";
  double t0 = monotonicSeconds();
  sides(data, rowSides_, boundSides_);
  bool sameValues = samePatterns;
  for (int k = 0; k < 3; ++k)
    sameValues = sameValues && valuesAre(*mats[k], values_[k]);
  bool sameSides = rowSides_ == problem_.rowSides && boundSides_ == problem_.boundSides;
  if (sameSides && samePatterns && sameValues) {
    // Only vectors changed (the usual MPC update): same scaling, same
    // factorization pattern and values, nothing to check again.
    refreshVectors(problem_, data);
    impossible_ = impossible(data, impossibleBy_);
  } else if (sameSides && samePatterns) {
    // New values on the same patterns (an SQP's next model): equilibrated
    // again, in place, and the KKT backend keeps its ordering and analysis.
    if (checkConvexity) {
      Problem problem = problem_;
      setValues(problem, data, settings_);
      std::string convexity = checkConvex(problem);
      if (!convexity.empty())
        return convexity;
      problem_ = std::move(problem);
    } else {
      setValues(problem_, data, settings_);
    }
    for (int k = 0; k < 3; ++k)
      copyValues(*mats[k], values_[k]);
    kkt_->refresh();
    impossible_ = impossible(data, impossibleBy_);
  } else {
    try {
      build(data);
    } catch (const std::invalid_argument &e) {
      return e.what();
    }
  }
  info_.t_update = monotonicSeconds() - t0;
  return "";
}

int Solver::solve(const double *x0, const double *y0, const double *z0, const double *zBox0) {
  double t0 = monotonicSeconds();
  // warm_start: no point given, and the previous solve of this structure
  // solved: start from its solution (copied, as the solve overwrites it).
  Solution previous;
  if (settings_.warm_start && !x0 && !y0 && !z0 && !zBox0 && solves_ > 0 &&
      info_.native_status == SCALY_QP_SOLVED && solution_.x.size() == problem_.n) {
    previous = solution_;
    x0 = previous.x.data();
    y0 = previous.y.data();
    z0 = previous.z.data();
    zBox0 = previous.zBox.data();
  }
  const Problem &pb = problem_;
  const double cs = pb.costScale;
  // One Ipm per problem structure and KKT backend (its storage reused), made
  // anew when either changed or this Solver moved.
  if (!ipm_ || ipmSolver_ != this || ipmKkt_ != kkt_.get()) {
    ipm_ = std::make_unique<Ipm>(pb, *kkt_, settings_, info_);
    ipmSolver_ = this;
    ipmKkt_ = kkt_.get();
  }
  Ipm &ipm = *ipm_;
  ipm.reset();
  bool warm = x0 || y0 || z0 || zBox0;
  if (warm) {
    // The user's point in the equilibrated variables (see buildProblem:
    // x = D x~, a row's multiplier is its scale times the internal one over
    // costScale).
    if (x0)
      ipm.x = Eigen::Map<const Vec>(x0, pb.n).cwiseQuotient(pb.D);
    else
      ipm.x = Vec::Zero(pb.n);
    ipm.y = Vec::Zero(pb.p());
    for (int r = 0; r < pb.p(); ++r) {
      const RowOrigin &o = pb.eqOrigin[r];
      const double *src = o.kind == RowOrigin::ARow ? y0 : o.kind == RowOrigin::GRow ? z0 : zBox0;
      if (src)
        ipm.y[r] = src[o.index] * cs / pb.eqScale[r];
    }
    ipm.q.z = Vec::Zero(pb.m());
    for (int r = 0; r < pb.m(); ++r)
      if (z0)
        ipm.q.z[r] = std::max(pb.ineqOrigin[r].sign * z0[pb.ineqOrigin[r].index], 0.0) * cs /
                     pb.ineqScale[r];
    ipm.q.zl = Vec::Zero(pb.il.size());
    ipm.q.zu = Vec::Zero(pb.iu.size());
    if (zBox0) {
      for (size_t k = 0; k < pb.il.size(); ++k)
        ipm.q.zl[k] = std::max(-zBox0[pb.il[k]], 0.0) * cs * pb.D[pb.il[k]];
      for (size_t k = 0; k < pb.iu.size(); ++k)
        ipm.q.zu[k] = std::max(zBox0[pb.iu[k]], 0.0) * cs * pb.D[pb.iu[k]];
    }
  }
  int status = impossible_ ? SCALY_QP_PRIMAL_INFEASIBLE : ipm.run(warm);
  if (impossible_) {
    // Nothing was iterated: the diagnostics say so rather than keep the last solve's.
    info_.iter = 0;
    info_.factorizations = 0;
    info_.primal_res = impossibleBy_;
    info_.dual_res = info_.duality_gap = 0.0;
    info_.rho = info_.delta = info_.mu = 0.0;
    ipm.x = Vec::Zero(pb.n);
    ipm.y = Vec::Zero(pb.p());
    ipm.q.z = Vec::Zero(pb.m());
    ipm.q.zl = Vec::Zero(pb.il.size());
    ipm.q.zu = Vec::Zero(pb.iu.size());
  }

  // Back to the user's variables.
  Solution &sol = solution_;
  sol.x = ipm.x.cwiseProduct(pb.D);
  sol.y.setZero();
  sol.z.setZero();
  sol.zBox.setZero();
  for (int r = 0; r < pb.p(); ++r) {
    const RowOrigin &o = pb.eqOrigin[r];
    double v = ipm.y[r] * pb.eqScale[r] / cs;
    (o.kind == RowOrigin::ARow ? sol.y : o.kind == RowOrigin::GRow ? sol.z : sol.zBox)[o.index] += v;
  }
  for (int r = 0; r < pb.m(); ++r)
    sol.z[pb.ineqOrigin[r].index] += pb.ineqOrigin[r].sign * ipm.q.z[r] * pb.ineqScale[r] / cs;
  for (size_t k = 0; k < pb.il.size(); ++k)
    sol.zBox[pb.il[k]] -= ipm.q.zl[k] / (pb.D[pb.il[k]] * cs);
  for (size_t k = 0; k < pb.iu.size(); ++k)
    sol.zBox[pb.iu[k]] += ipm.q.zu[k] / (pb.D[pb.iu[k]] * cs);
  Vec &Px = objectivePx_;
  Px.resize(pb.n);
  symmetricMultiply(pb.P, ipm.x.data(), Px.data());
  info_.obj = (0.5 * ipm.x.dot(Px) + pb.c.dot(ipm.x)) / cs;

  info_.native_status = status;
  info_.status = status == SCALY_QP_SOLVED             ? SCALY_SOLVE_OK
                 : status == SCALY_QP_ACCEPTABLE        ? SCALY_SOLVE_ACCEPTABLE
                 : status == SCALY_QP_MAX_ITER_REACHED ? SCALY_SOLVE_MAX_ITER
                 : status == SCALY_QP_PRIMAL_INFEASIBLE ? SCALY_SOLVE_PRIMAL_INFEASIBLE
                 : status == SCALY_QP_DUAL_INFEASIBLE   ? SCALY_SOLVE_DUAL_INFEASIBLE
                 : status == SCALY_QP_NUMERICS          ? SCALY_SOLVE_NUMERICS
                                                        : SCALY_SOLVE_ERROR;
  info_.t_solve = monotonicSeconds() - t0;
  ++solves_;
  return info_.status;
}

} // namespace scaly::qp
