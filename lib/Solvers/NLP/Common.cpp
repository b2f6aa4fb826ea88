//===- Common.cpp - option tables, counted oracles, pattern checks --------===//

#include "NLPInternal.h"

#include <cmath>
#include <cstring>
#include <ctime>

namespace scaly::nlp {

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

namespace {

const double nan = std::numeric_limits<double>::quiet_NaN();

/// IPOPT's numerical options most often set, by IPOPT's own names; NaN
/// defaults leave IPOPT's. Choices are passed as IPOPT's strings.
const std::vector<OptionSpec> ipoptTable = {
    {"tol", nan, Kind::Real, 0.0, nullptr},
    {"max_iter", nan, Kind::Integer, 0.0, nullptr},
    {"print_level", 0.0, Kind::Integer, 0.0, nullptr},
    {"acceptable_tol", nan, Kind::Real, 0.0, nullptr},
    {"acceptable_iter", nan, Kind::Integer, 0.0, nullptr},
    {"constr_viol_tol", nan, Kind::Real, 0.0, nullptr},
    {"dual_inf_tol", nan, Kind::Real, 0.0, nullptr},
    {"compl_inf_tol", nan, Kind::Real, 0.0, nullptr},
    {"max_cpu_time", nan, Kind::Real, 0.0, nullptr},
    {"mu_init", nan, Kind::Real, 0.0, nullptr},
    {"bound_push", nan, Kind::Real, 0.0, nullptr},
    {"bound_frac", nan, Kind::Real, 0.0, nullptr},
    {"obj_scaling_factor", nan, Kind::Real, -inf, nullptr},
    {"limited_memory_max_history", nan, Kind::Integer, 0.0, nullptr},
    {"warm_start_bound_push", nan, Kind::Real, 0.0, nullptr},
    {"warm_start_mult_bound_push", nan, Kind::Real, 0.0, nullptr},
    {"mu_strategy", nan, Kind::Choice, 0.0, "monotone|adaptive"},
    {"hessian_approximation", nan, Kind::Choice, 0.0, "exact|limited-memory"},
    {"warm_start_init_point", nan, Kind::Choice, 0.0, "no|yes"},
    {"nlp_scaling_method", nan, Kind::Choice, 0.0,
     "none|user-scaling|gradient-based|equilibration-based"},
    {"derivative_test", nan, Kind::Choice, 0.0, "none|first-order|second-order|only-second-order"},
    {"expect_infeasible_problem", nan, Kind::Choice, 0.0, "no|yes"},
    {"fixed_variable_treatment", nan, Kind::Choice, 0.0,
     "make_parameter|make_constraint|relax_bounds"},
};

/// Scaly SQP's options (docs/solvers.md describes each).
const std::vector<OptionSpec> sqpTable = {
    {"max_iter", 100, Kind::Integer, 1.0, nullptr},
    {"tol", 1e-8, Kind::Real, 0.0, nullptr},
    {"constr_viol_tol", 1e-8, Kind::Real, 0.0, nullptr},
    {"acceptable_tol", 1e-6, Kind::Real, 0.0, nullptr},
    {"hessian_approximation", 0, Kind::Choice, 0.0, "exact|bfgs"},
    {"rti", 0, Kind::Choice, 0.0, "no|yes"},
    {"second_order_correction", 1, Kind::Choice, 0.0, "no|yes"},
    {"armijo", 1e-4, Kind::Real, 0.0, nullptr},
    {"max_backtracks", 30, Kind::Integer, 0.0, nullptr},
    {"min_step", 1e-10, Kind::Real, 0.0, nullptr},
    {"regularization_init", 1e-4, Kind::Real, 0.0, nullptr},
    {"penalty_init", 1.0, Kind::Real, 0.0, nullptr},
    {"obj_lower_limit", -1e20, Kind::Real, -inf, nullptr},
    {"qp_eps_abs", 1e-9, Kind::Real, 0.0, nullptr},
    {"qp_max_iter", 250, Kind::Integer, 1.0, nullptr},
    {"qp_warm_start", 1, Kind::Choice, 0.0, "no|yes"},
    {"print_level", 0, Kind::Integer, 0.0, nullptr},
};

const std::vector<OptionSpec> noOptions;

int choiceCount(const char *choices) {
  int k = 1;
  for (const char *c = choices; *c; ++c)
    k += *c == '|';
  return k;
}

} // namespace

const std::vector<OptionSpec> &optionTable(int backend) {
  if (backend == SCALY_NLP_IPOPT)
    return ipoptTable;
  if (backend == SCALY_NLP_SQP)
    return sqpTable;
  return noOptions;
}

std::string checkOption(const OptionSpec &spec, double v) {
  // The name is made into a string only for a message (a valid value allocates nothing).
  auto name = [&] { return std::string(spec.name); };
  if (std::isnan(v))
    return "option " + name() + " is NaN, expected a number";
  if (spec.kind == Kind::Choice) {
    int k = choiceCount(spec.choices);
    if (v != std::floor(v) || v < 0 || v >= k)
      return "option " + name() + " takes one of " + spec.choices + " (index 0 to " +
             std::to_string(k - 1) + "), got " + std::to_string(v);
    return "";
  }
  if (spec.kind == Kind::Integer && (v != std::floor(v) || std::fabs(v) > 2147483647.0))
    return "option " + name() + " takes an integer, got " + std::to_string(v);
  if (!(v >= spec.lowest) || (spec.kind == Kind::Real && spec.lowest == 0.0 && v <= 0.0 &&
                              std::strcmp(spec.name, "obj_scaling_factor") != 0))
    return "option " + name() + " must be " +
           (spec.kind == Kind::Real && spec.lowest == 0.0 ? std::string("positive")
                                                          : ">= " + std::to_string(spec.lowest)) +
           ", got " + std::to_string(v);
  return "";
}

Options::Options(int backend, const double *given) : table_(optionTable(backend)) {
  for (size_t i = 0; i < table_.size(); ++i)
    values_.push_back(given && !std::isnan(given[i]) ? given[i] : table_[i].fallback);
}

double Options::operator[](const char *name) const {
  for (size_t i = 0; i < table_.size(); ++i)
    if (std::strcmp(table_[i].name, name) == 0)
      return values_[i];
  return std::numeric_limits<double>::quiet_NaN();
}

//===----------------------------------------------------------------------===//
// Oracles
//===----------------------------------------------------------------------===//

Oracles::Oracles(const scaly_nlp_problem &p)
    : n(p.n), m(p.m), jacColptr(p.jac_colptr, p.jac_colptr + p.n + 1),
      jacRowind(p.jac_rowind, p.jac_rowind + p.jac_nnz),
      hessColptr(p.hess_colptr, p.hess_colptr + p.n + 1),
      hessRowind(p.hess_rowind, p.hess_rowind + p.hess_nnz), problem_(p) {}

namespace {

bool finite(const double *v, int k) {
  for (int i = 0; i < k; ++i)
    if (!std::isfinite(v[i]))
      return false;
  return true;
}

/// Calls `call`, counting it in `counter` and its time in t_fe.
template <typename Call> bool timed(scaly_solver_stats *stats, int32_t &counter, Call call) {
  double t0 = now();
  bool ok = call();
  if (stats) {
    stats->t_fe += now() - t0;
    ++counter;
  }
  return ok;
}

int32_t scratch;

} // namespace

bool Oracles::f(const double *x, double &value) {
  return timed(stats, stats ? stats->n_eval_f : scratch, [&] {
    return problem_.f(problem_.context, x, &value) == 0 && std::isfinite(value);
  });
}

bool Oracles::gradF(const double *x, double *out) {
  return timed(stats, stats ? stats->n_eval_grad_f : scratch, [&] {
    return problem_.grad_f(problem_.context, x, out) == 0 && finite(out, n);
  });
}

bool Oracles::g(const double *x, double *out) {
  if (m == 0)
    return true;
  return timed(stats, stats ? stats->n_eval_g : scratch, [&] {
    return problem_.g(problem_.context, x, out) == 0 && finite(out, m);
  });
}

bool Oracles::jacG(const double *x, double *values) {
  if (jacNnz() == 0)
    return true;
  return timed(stats, stats ? stats->n_eval_jac_g : scratch, [&] {
    return problem_.jac_g(problem_.context, x, values) == 0 && finite(values, jacNnz());
  });
}

bool Oracles::hessL(const double *x, double sigma, const double *lam, double *values) {
  if (hessNnz() == 0)
    return true;
  return timed(stats, stats ? stats->n_eval_h : scratch, [&] {
    return problem_.hess_l(problem_.context, x, sigma, lam, values) == 0 &&
           finite(values, hessNnz());
  });
}

std::string checkPattern(const char *what, int rows, int cols, const int32_t *colptr,
                         const int32_t *rowind, int nnz, bool lower) {
  std::string name = what;
  if (nnz < 0 || (!colptr && cols > 0) || (!rowind && nnz > 0))
    return name + ": missing index tables";
  if (cols >= 0 && colptr && (colptr[0] != 0 || colptr[cols] != nnz))
    return name + ": colptr must start at 0 and end at the " + std::to_string(nnz) +
           " stored entries";
  for (int j = 0; j < cols; ++j) {
    if (colptr[j + 1] < colptr[j])
      return name + ": colptr decreases at column " + std::to_string(j);
    for (int k = colptr[j]; k < colptr[j + 1]; ++k) {
      int i = rowind[k];
      if (i < 0 || i >= rows || (lower && i < j) || (k > colptr[j] && i <= rowind[k - 1]))
        return name + ": rowind[" + std::to_string(k) + "] = " + std::to_string(i) +
               " is out of order or outside the " + (lower ? "lower triangle" : "matrix");
    }
  }
  return "";
}

} // namespace scaly::nlp
