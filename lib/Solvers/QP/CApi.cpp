//===- CApi.cpp - scaly_qp.h: options, setup, solve, results --------------===//

// The C interface is the library's only export (the library is built with
// hidden visibility, so Eigen's and the solver's symbols stay inside).
#pragma GCC visibility push(default)
#include "scaly/Solvers/scaly_qp.h"
#pragma GCC visibility pop

#include "QPInternal.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

using namespace scaly::qp;

struct scaly_qp_solver {
  Solver solver;
};

namespace {

enum class Kind { Real, Integer, Flag };
enum class Range {
  Positive,
  NonNegative,
  PositiveInt,
  NonNegativeInt,
  UnitInterval,
  ZeroOrAtLeastOne,
  Any
};

/// Every option: its name, C field, type and valid range. The one table the
/// setter, the checker and the option list read.
struct Option {
  const char *name;
  size_t offset;
  Kind kind;
  Range range;
};

#define SCALY_QP_OPTION(field, kind, range)                                                  \
  Option { #field, offsetof(scaly_qp_settings, field), Kind::kind, Range::range }

const Option options[] = {
    SCALY_QP_OPTION(eps_abs, Real, Positive),
    SCALY_QP_OPTION(eps_rel, Real, NonNegative),
    SCALY_QP_OPTION(check_duality_gap, Flag, Any),
    SCALY_QP_OPTION(eps_duality_gap_abs, Real, Positive),
    SCALY_QP_OPTION(eps_duality_gap_rel, Real, NonNegative),
    SCALY_QP_OPTION(max_iter, Integer, PositiveInt),
    SCALY_QP_OPTION(rho_init, Real, Positive),
    SCALY_QP_OPTION(delta_init, Real, Positive),
    SCALY_QP_OPTION(reg_lower_limit, Real, Positive),
    SCALY_QP_OPTION(reg_finetune_lower_limit, Real, Positive),
    SCALY_QP_OPTION(max_factor_retries, Integer, NonNegativeInt),
    SCALY_QP_OPTION(preconditioner_iter, Integer, NonNegativeInt),
    SCALY_QP_OPTION(preconditioner_scale_cost, Flag, Any),
    SCALY_QP_OPTION(tau, Real, UnitInterval),
    SCALY_QP_OPTION(iterative_refinement_max_iter, Integer, NonNegativeInt),
    SCALY_QP_OPTION(iterative_refinement_eps, Real, Positive),
    SCALY_QP_OPTION(verbose, Flag, Any),
    SCALY_QP_OPTION(warm_start, Flag, Any),
    SCALY_QP_OPTION(preconditioner_reuse, Real, ZeroOrAtLeastOne),
    SCALY_QP_OPTION(duality_gap_extended, Flag, Any),
    SCALY_QP_OPTION(polish, Flag, Any),
};
constexpr int optionCount = sizeof(options) / sizeof(options[0]);

void writeError(char *err, size_t len, const std::string &message) {
  if (err && len > 0)
    std::snprintf(err, len, "%s", message.c_str());
}

double readOption(const scaly_qp_settings *s, const Option &o) {
  const char *base = reinterpret_cast<const char *>(s) + o.offset;
  if (o.kind == Kind::Real)
    return *reinterpret_cast<const double *>(base);
  return *reinterpret_cast<const int32_t *>(base);
}

/// Empty when value suits option o, else what is wrong.
std::string checkValue(const Option &o, double v) {
  std::string name = o.name;
  if (std::isnan(v))
    return "option " + name + " is NaN, expected a number";
  if (o.kind != Kind::Real && (v != std::floor(v) || std::fabs(v) > 2147483647.0))
    return "option " + name + " must be an integer, got " + std::to_string(v);
  if (o.kind == Kind::Flag && v != 0 && v != 1)
    return "option " + name + " is a flag: 0 or 1 (or True/False), got " + std::to_string(v);
  switch (o.range) {
  case Range::Positive:
    if (!(v > 0) || std::isinf(v))
      return "option " + name + " must be a positive finite number, got " + std::to_string(v);
    break;
  case Range::NonNegative:
    if (!(v >= 0) || std::isinf(v))
      return "option " + name + " must be a non-negative finite number, got " +
             std::to_string(v);
    break;
  case Range::PositiveInt:
    if (v < 1)
      return "option " + name + " must be at least 1, got " + std::to_string((long long)v);
    break;
  case Range::NonNegativeInt:
    if (v < 0)
      return "option " + name + " must not be negative, got " + std::to_string((long long)v);
    break;
  case Range::UnitInterval:
    if (!(v > 0 && v <= 1))
      return "option " + name + " must lie in (0, 1], got " + std::to_string(v);
    break;
  case Range::ZeroOrAtLeastOne:
    if (!(v == 0 || v >= 1) || std::isinf(v))
      return "option " + name + " must be 0 or a finite number of at least 1, got " +
             std::to_string(v);
    break;
  case Range::Any:
    break;
  }
  return "";
}

std::string checkAll(const scaly_qp_settings *s) {
  for (const Option &o : options) {
    std::string e = checkValue(o, readOption(s, o));
    if (!e.empty())
      return e;
  }
  return "";
}

} // namespace

extern "C" {

const char *scaly_qp_version(void) { return "scaly-qp 0.1.0"; }

void scaly_qp_default_settings(scaly_qp_settings *s) {
  if (!s)
    return;
  s->eps_abs = 1e-8;
  s->eps_rel = 1e-9;
  s->check_duality_gap = 1;
  s->eps_duality_gap_abs = 1e-8;
  s->eps_duality_gap_rel = 1e-13;
  s->max_iter = 250;
  s->rho_init = 1e-6;
  s->delta_init = 1e-4;
  s->reg_lower_limit = 1e-10;
  s->reg_finetune_lower_limit = 1e-13;
  s->max_factor_retries = 10;
  s->preconditioner_iter = 10;
  s->preconditioner_scale_cost = 0;
  s->tau = 0.99;
  s->iterative_refinement_max_iter = 10;
  s->iterative_refinement_eps = 1e-12;
  s->verbose = 0;
  s->warm_start = 0;
  s->preconditioner_reuse = 0.0;
  s->duality_gap_extended = 1;
  s->polish = 1;
}

int scaly_qp_option_count(void) { return optionCount; }

const char *scaly_qp_option_name(int i) {
  return i >= 0 && i < optionCount ? options[i].name : nullptr;
}

int scaly_qp_set_option(scaly_qp_settings *s, const char *name, double value, char *err,
                        size_t len) {
  if (!s || !name) {
    writeError(err, len, "scaly_qp_set_option: settings and name must not be NULL");
    return -1;
  }
  for (const Option &o : options) {
    if (std::strcmp(o.name, name) != 0)
      continue;
    std::string e = checkValue(o, value);
    if (!e.empty()) {
      writeError(err, len, e);
      return -1;
    }
    char *base = reinterpret_cast<char *>(s) + o.offset;
    if (o.kind == Kind::Real)
      *reinterpret_cast<double *>(base) = value;
    else
      *reinterpret_cast<int32_t *>(base) = (int32_t)value;
    return 0;
  }
  std::string known;
  for (const Option &o : options)
    known += std::string(known.empty() ? "" : ", ") + o.name;
  writeError(err, len, std::string("unknown QP option '") + name + "'; the options are: " + known);
  return -1;
}

int scaly_qp_check_settings(const scaly_qp_settings *s, char *err, size_t len) {
  if (!s) {
    writeError(err, len, "settings must not be NULL");
    return -1;
  }
  std::string e = checkAll(s);
  if (!e.empty()) {
    writeError(err, len, e);
    return -1;
  }
  return 0;
}

scaly_qp_solver *scaly_qp_setup(const scaly_qp_data *data, int32_t backend,
                                const scaly_qp_settings *settings, char *err, size_t len) {
  if (!data) {
    writeError(err, len, "data must not be NULL");
    return nullptr;
  }
  if (backend != SCALY_QP_SPARSE && backend != SCALY_QP_DENSE) {
    writeError(err, len, "backend must be SCALY_QP_SPARSE (0) or SCALY_QP_DENSE (1), got " +
                             std::to_string(backend));
    return nullptr;
  }
  scaly_qp_settings defaults;
  scaly_qp_default_settings(&defaults);
  if (!settings)
    settings = &defaults;
  std::string e = checkAll(settings);
  if (e.empty())
    e = validate(*data);
  if (!e.empty()) {
    writeError(err, len, e);
    return nullptr;
  }
  try {
    return new scaly_qp_solver{Solver(*data, backend, *settings)};
  } catch (const std::bad_alloc &) {
    writeError(err, len, "out of memory setting up the QP");
    return nullptr;
  } catch (const std::invalid_argument &e) {
    writeError(err, len, e.what());
    return nullptr;
  }
}

int scaly_qp_update(scaly_qp_solver *s, const scaly_qp_data *data, char *err, size_t len) {
  return scaly_qp_update_convex(s, data, 0, err, len);
}

int scaly_qp_update_convex(scaly_qp_solver *s, const scaly_qp_data *data, int32_t known_convex,
                           char *err, size_t len) {
  if (!s || !data) {
    writeError(err, len, "solver and data must not be NULL");
    return -1;
  }
  try {
    std::string e = s->solver.update(*data, !known_convex);
    if (!e.empty()) {
      writeError(err, len, e);
      return -1;
    }
  } catch (const std::bad_alloc &) {
    writeError(err, len, "out of memory updating the QP");
    return -1;
  }
  return 0;
}

int scaly_qp_update_settings(scaly_qp_solver *s, const scaly_qp_settings *settings, char *err,
                             size_t len) {
  if (!s || !settings) {
    writeError(err, len, "solver and settings must not be NULL");
    return -1;
  }
  std::string e = checkAll(settings);
  if (!e.empty()) {
    writeError(err, len, e);
    return -1;
  }
  s->solver.setSettings(*settings);
  return 0;
}

int scaly_qp_solve(scaly_qp_solver *s, const double *x0, const double *y0, const double *z0,
                   const double *zBox0) {
  if (!s)
    return SCALY_SOLVE_ERROR;
  try {
    return s->solver.solve(x0, y0, z0, zBox0);
  } catch (const std::bad_alloc &) {
    return SCALY_SOLVE_ERROR;
  }
}

void scaly_qp_solution(const scaly_qp_solver *s, double *x, double *y, double *z,
                       double *zBox) {
  if (!s)
    return;
  const Solution &sol = s->solver.solution();
  auto copy = [](const Vec &v, double *out) {
    if (out && v.size())
      std::memcpy(out, v.data(), sizeof(double) * v.size());
  };
  copy(sol.x, x);
  copy(sol.y, y);
  copy(sol.z, z);
  copy(sol.zBox, zBox);
}

void scaly_qp_get_info(const scaly_qp_solver *s, scaly_qp_info *info) {
  if (s && info)
    *info = s->solver.info();
}

void scaly_qp_get_stats(const scaly_qp_solver *s, scaly_solver_stats *stats) {
  if (!stats)
    return;
  std::memset(stats, 0, sizeof(*stats));
  if (!s || s->solver.solves() == 0)
    return;
  const scaly_qp_info &info = s->solver.info();
  stats->version = SCALY_SOLVER_STATS_VERSION;
  stats->status = info.status;
  stats->native_status = info.native_status;
  stats->iter = info.iter;
  stats->obj = info.obj;
  stats->t_qp = info.t_solve;
  stats->t_total = info.t_solve;
  stats->primal_viol = info.primal_res;
  stats->qp_iter = info.iter;
}

void scaly_qp_free(scaly_qp_solver *s) { delete s; }

} // extern "C"
