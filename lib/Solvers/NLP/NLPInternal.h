//===- NLPInternal.h - the NLP layer's internal types ------------*- C++ -*-===//
//
// What both backends share: the option tables, the problem's oracles wrapped
// so that every call is counted and timed into the statistics, and the
// bounds of one solve with infinities normalized.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_NLP_NLPINTERNAL_H
#define SCALY_SOLVERS_NLP_NLPINTERNAL_H

#include "scaly/Solvers/scaly_nlp.h"

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace scaly::nlp {

constexpr double inf = std::numeric_limits<double>::infinity();

double now();

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

enum class Kind { Real, Integer, Choice };

/// One option of a backend: its name, default (NaN for IPOPT's own default),
/// type, smallest valid value and, for a choice, the names "a|b|c".
struct OptionSpec {
  const char *name;
  double fallback;
  Kind kind;
  double lowest;
  const char *choices;
};

/// The option table of a backend, or an empty one for an unknown backend.
const std::vector<OptionSpec> &optionTable(int backend);

/// Empty when `value` suits option `spec`, else what is wrong.
std::string checkOption(const OptionSpec &spec, double value);

/// A solve's options: the table's defaults overlaid with the given array
/// (NaN entries keep the default).
class Options {
public:
  Options(int backend, const double *given);
  double operator[](const char *name) const;
  bool isSet(int i) const { return !std::isnan(values_[i]); }
  double at(int i) const { return values_[i]; }

private:
  const std::vector<OptionSpec> &table_;
  std::vector<double> values_;
};

//===----------------------------------------------------------------------===//
// Oracles
//===----------------------------------------------------------------------===//

/// The problem's dimensions, patterns (owned) and callbacks. Every call goes
/// through here: counted in n_eval_*, timed into t_fe, and refused (false)
/// when the callback fails or returns a value that is not finite.
class Oracles {
public:
  explicit Oracles(const scaly_nlp_problem &problem);

  int n, m;
  std::vector<int32_t> jacColptr, jacRowind, hessColptr, hessRowind;
  scaly_solver_stats *stats = nullptr; // the statistics of the solve in progress

  bool f(const double *x, double &value);
  bool gradF(const double *x, double *out);
  bool g(const double *x, double *out);
  bool jacG(const double *x, double *values);
  bool hessL(const double *x, double sigma, const double *lam, double *values);

  int jacNnz() const { return (int)jacRowind.size(); }
  int hessNnz() const { return (int)hessRowind.size(); }

private:
  scaly_nlp_problem problem_;
};

/// The bounds and starting point of one solve, infinities (and anything at or
/// beyond SCALY_NLP_INFINITY) as +-inf, absent arrays as absent bounds/zeros.
struct SolveData {
  std::vector<double> lbx, ubx, lbg, ubg, x0, lamG0, lamX0;
};

/// The iterate a backend leaves behind.
struct Solution {
  std::vector<double> x, lamG, lamX;
};

/// Checks a pattern: `empty` when valid, else what is wrong.
std::string checkPattern(const char *what, int rows, int cols, const int32_t *colptr,
                         const int32_t *rowind, int nnz, bool lower);

//===----------------------------------------------------------------------===//
// Backends
//===----------------------------------------------------------------------===//

/// A backend keeps what it reuses between solves (Scaly SQP: its QP solver,
/// the previous multipliers for real-time iterations).
class Backend {
public:
  virtual ~Backend() = default;
  /// Solves; fills `stats` (but t_total and t_glue) and returns the SCALY_SOLVE_* status.
  virtual int solve(Oracles &oracles, const Options &options, const SolveData &data,
                    Solution &out, scaly_solver_stats &stats) = 0;
  std::vector<std::pair<std::string, std::string>> ipoptOptions; // set by name
};

std::unique_ptr<Backend> makeIpopt();
/// Whether IPOPT takes `value` for its option `name` (IPOPT's own message
/// about a refusal is discarded; the caller reports it).
bool ipoptAccepts(const std::string &name, const std::string &value);
bool ipoptAcceptsLoudly(const std::string &name, const std::string &value);
std::unique_ptr<Backend> makeSqp(int qpBackend);

} // namespace scaly::nlp

#endif // SCALY_SOLVERS_NLP_NLPINTERNAL_H
