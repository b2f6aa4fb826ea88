//===- CApi.cpp - scaly_nlp.h: options, problems, solves, statistics ------===//

// The C interface is the library's only export (hidden visibility inside).
#pragma GCC visibility push(default)
#include "scaly/Solvers/scaly_nlp.h"
#pragma GCC visibility pop

#include "NLPInternal.h"

#include "scaly/Solvers/scaly_qp.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

using namespace scaly::nlp;

struct scaly_nlp_solver {
  Oracles oracles;
  int backend;
  std::unique_ptr<Backend> impl;
  scaly_solver_stats stats{};
  // A solve's data and result, kept for the next solve's storage.
  SolveData data{};
  Solution out{};
};

namespace {

void writeError(char *err, size_t len, const std::string &message) {
  if (err && len > 0)
    std::snprintf(err, len, "%s", message.c_str());
}

/// out = v, or +-inf for anything at or beyond SCALY_NLP_INFINITY; `fill` when absent.
void bounds(std::vector<double> &out, const double *v, int k, double fill) {
  out.resize(k);
  for (int i = 0; i < k; ++i)
    out[i] = !v                           ? fill
             : v[i] >= SCALY_NLP_INFINITY  ? inf
             : v[i] <= -SCALY_NLP_INFINITY ? -inf
                                           : v[i];
}

} // namespace

extern "C" {

int scaly_nlp_option_count(int32_t backend) { return (int)optionTable(backend).size(); }

const char *scaly_nlp_option_name(int32_t backend, int i) {
  const auto &t = optionTable(backend);
  return i >= 0 && i < (int)t.size() ? t[i].name : nullptr;
}

double scaly_nlp_option_default(int32_t backend, int i) {
  const auto &t = optionTable(backend);
  return i >= 0 && i < (int)t.size() ? t[i].fallback : NAN;
}

const char *scaly_nlp_option_choices(int32_t backend, int i) {
  const auto &t = optionTable(backend);
  return i >= 0 && i < (int)t.size() ? t[i].choices : nullptr;
}

int scaly_nlp_check_option(int32_t backend, const char *name, double value, char *err,
                           size_t len) {
  const auto &t = optionTable(backend);
  for (size_t i = 0; name && i < t.size(); ++i)
    if (std::strcmp(t[i].name, name) == 0) {
      std::string why = checkOption(t[i], value);
      if (!why.empty()) {
        writeError(err, len, why);
        return -1;
      }
      return (int)i;
    }
  std::string known;
  for (const auto &o : t)
    known += (known.empty() ? "" : ", ") + std::string(o.name);
  writeError(err, len, "unknown option " + std::string(name ? name : "(null)") +
                           "; the options are " + known);
  return -1;
}

scaly_nlp_solver *scaly_nlp_create(const scaly_nlp_problem *p, int32_t backend,
                                   int32_t qpBackend, char *err, size_t len) {
  if (!p || p->n < 0 || p->m < 0) {
    writeError(err, len, "scaly_nlp_create: no problem, or negative dimensions");
    return nullptr;
  }
  if (backend != SCALY_NLP_IPOPT && backend != SCALY_NLP_SQP) {
    writeError(err, len, "scaly_nlp_create: backend must be SCALY_NLP_IPOPT or SCALY_NLP_SQP");
    return nullptr;
  }
  if (qpBackend != SCALY_QP_SPARSE && qpBackend != SCALY_QP_DENSE) {
    writeError(err, len, "scaly_nlp_create: qp_backend must be SCALY_QP_SPARSE or SCALY_QP_DENSE");
    return nullptr;
  }
  if (!p->f || !p->grad_f || !p->g || !p->jac_g || !p->hess_l) {
    writeError(err, len, "scaly_nlp_create: every oracle (f, grad_f, g, jac_g, hess_l) is needed");
    return nullptr;
  }
  std::string why = checkPattern("jacobian", p->m, p->n, p->jac_colptr, p->jac_rowind,
                                 p->jac_nnz, false);
  if (why.empty())
    why = checkPattern("hessian", p->n, p->n, p->hess_colptr, p->hess_rowind, p->hess_nnz, true);
  if (!why.empty()) {
    writeError(err, len, "scaly_nlp_create: " + why);
    return nullptr;
  }
  try {
    auto impl = backend == SCALY_NLP_IPOPT ? makeIpopt() : makeSqp(qpBackend);
    return new scaly_nlp_solver{Oracles(*p), backend, std::move(impl), {}};
  } catch (const std::bad_alloc &) {
    writeError(err, len, "scaly_nlp_create: out of memory");
    return nullptr;
  }
}

int scaly_nlp_set_ipopt_option(scaly_nlp_solver *s, const char *name, const char *value) {
  if (!s || !name)
    return -1;
  auto &list = s->impl->ipoptOptions;
  for (auto it = list.begin(); it != list.end(); ++it)
    if (it->first == name) {
      list.erase(it);
      break;
    }
  if (value)
    list.emplace_back(name, value);
  return 0;
}

int scaly_nlp_solve(scaly_nlp_solver *s, const double *options, const double *lbx,
                    const double *ubx, const double *lbg, const double *ubg, const double *x0,
                    const double *lam_g0, const double *lam_x0, double *x, double *lam_g,
                    double *lam_x) {
  const int n = s->oracles.n, m = s->oracles.m;
  s->stats = scaly_solver_stats{};
  s->stats.version = SCALY_SOLVER_STATS_VERSION;
  SolveData &data = s->data;
  bounds(data.lbx, lbx, n, -inf);
  bounds(data.ubx, ubx, n, inf);
  bounds(data.lbg, lbg, m, -inf);
  bounds(data.ubg, ubg, m, inf);
  bounds(data.x0, x0, n, 0.0);
  bounds(data.lamG0, lam_g0, m, 0.0);
  bounds(data.lamX0, lam_x0, n, 0.0);
  Solution &out = s->out;
  out.x = data.x0;
  out.lamG = data.lamG0;
  out.lamX = data.lamX0;
  // Options and data are checked before any oracle runs.
  const auto &table = optionTable(s->backend);
  bool valid = true;
  for (size_t i = 0; options && i < table.size(); ++i)
    valid &= std::isnan(options[i]) || checkOption(table[i], options[i]).empty();
  for (int i = 0; i < n; ++i)
    valid &= !std::isnan(data.lbx[i]) && !std::isnan(data.ubx[i]) && data.lbx[i] <= data.ubx[i] &&
             std::isfinite(data.x0[i]);
  for (int i = 0; i < m; ++i)
    valid &= !std::isnan(data.lbg[i]) && !std::isnan(data.ubg[i]) && data.lbg[i] <= data.ubg[i];
  int status;
  if (!valid) {
    s->stats.native_status = SCALY_SQP_INVALID;
    status = SCALY_SOLVE_ERROR;
  } else {
    s->oracles.stats = &s->stats;
    try {
      status = s->impl->solve(s->oracles, Options(s->backend, options), data, out, s->stats);
    } catch (...) {
      status = SCALY_SOLVE_ERROR;
    }
    s->oracles.stats = nullptr;
  }
  s->stats.status = status;
  if (x)
    std::memcpy(x, out.x.data(), sizeof(double) * n);
  if (lam_g)
    std::memcpy(lam_g, out.lamG.data(), sizeof(double) * m);
  if (lam_x)
    std::memcpy(lam_x, out.lamX.data(), sizeof(double) * n);
  return status;
}

int scaly_nlp_check_ipopt_option(const char *name, const char *value, char *err, size_t len) {
  if (!name || !value) {
    writeError(err, len, "an IPOPT option needs a name and a value");
    return -1;
  }
  try {
    if (ipoptAccepts(name, value))
      return 0;
  } catch (...) {
  }
  writeError(err, len, "IPOPT does not take " + std::string(value) + " for option " +
                           std::string(name) + " (unknown option, or a value of another type "
                           "or outside its range)");
  return -1;
}

void scaly_nlp_get_stats(const scaly_nlp_solver *s, scaly_solver_stats *stats) {
  if (s && stats)
    *stats = s->stats;
}

void scaly_nlp_free(scaly_nlp_solver *s) { delete s; }

const char *scaly_nlp_version(void) { return "scaly_nlp 0.1 (ipopt, sqp)"; }

} // extern "C"
