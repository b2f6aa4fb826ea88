//===- Ipopt.cpp - the IPOPT backend, through IPOPT's C interface ---------===//
//
// IPOPT is given the oracles as callbacks (triplet patterns made once from
// the compressed-column ones), Scaly's option table plus the options set by
// name, and the start. Its time outside the oracles is t_solver.
//
//===----------------------------------------------------------------------===//

#include "NLPInternal.h"

#include <IpStdCInterface.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fcntl.h>
#include <unistd.h>

namespace scaly::nlp {
namespace {

struct Callbacks {
  Oracles *oracles;
  std::vector<Index> jacRow, jacCol, hessRow, hessCol;
  int iterations = 0;
};

Bool evalF(Index, Number *x, Bool, Number *value, UserDataPtr data) {
  return static_cast<Callbacks *>(data)->oracles->f(x, *value);
}

Bool evalGradF(Index, Number *x, Bool, Number *grad, UserDataPtr data) {
  return static_cast<Callbacks *>(data)->oracles->gradF(x, grad);
}

Bool evalG(Index, Number *x, Bool, Index, Number *g, UserDataPtr data) {
  return static_cast<Callbacks *>(data)->oracles->g(x, g);
}

Bool evalJacG(Index, Number *x, Bool, Index, Index nnz, Index *row, Index *col, Number *values,
              UserDataPtr data) {
  auto *cb = static_cast<Callbacks *>(data);
  if (!values) {
    std::copy(cb->jacRow.begin(), cb->jacRow.end(), row);
    std::copy(cb->jacCol.begin(), cb->jacCol.end(), col);
    return nnz == (Index)cb->jacRow.size();
  }
  return cb->oracles->jacG(x, values);
}

Bool evalH(Index, Number *x, Bool, Number sigma, Index, Number *lam, Bool, Index nnz, Index *row,
           Index *col, Number *values, UserDataPtr data) {
  auto *cb = static_cast<Callbacks *>(data);
  if (!values) {
    std::copy(cb->hessRow.begin(), cb->hessRow.end(), row);
    std::copy(cb->hessCol.begin(), cb->hessCol.end(), col);
    return nnz == (Index)cb->hessRow.size();
  }
  return cb->oracles->hessL(x, sigma, lam, values);
}

Bool intermediate(Index, Index iter, Number, Number, Number, Number, Number, Number, Number,
                  Number, Index, UserDataPtr data) {
  static_cast<Callbacks *>(data)->iterations = iter;
  return TRUE;
}

void triplets(const std::vector<int32_t> &colptr, const std::vector<int32_t> &rowind,
              std::vector<Index> &row, std::vector<Index> &col) {
  for (size_t j = 0; j + 1 < colptr.size(); ++j)
    for (int k = colptr[j]; k < colptr[j + 1]; ++k) {
      row.push_back(rowind[k]);
      col.push_back((Index)j);
    }
}

/// IPOPT's ApplicationReturnStatus as a SCALY_SOLVE_* status.
int statusOf(int native) {
  switch (native) {
  case Solve_Succeeded:
    return SCALY_SOLVE_OK;
  case Solved_To_Acceptable_Level:
  case Feasible_Point_Found:
    return SCALY_SOLVE_ACCEPTABLE;
  case Infeasible_Problem_Detected:
    return SCALY_SOLVE_PRIMAL_INFEASIBLE;
  case Diverging_Iterates:
    return SCALY_SOLVE_DUAL_INFEASIBLE;
  case User_Requested_Stop:
    return SCALY_SOLVE_USER_STOP;
  case Maximum_Iterations_Exceeded:
  case Maximum_CpuTime_Exceeded:
    return SCALY_SOLVE_MAX_ITER;
  case Search_Direction_Becomes_Too_Small:
  case Restoration_Failed:
  case Error_In_Step_Computation:
  case Invalid_Number_Detected:
    return SCALY_SOLVE_NUMERICS;
  default:
    return SCALY_SOLVE_ERROR;
  }
}

/// IPOPT's bounds: absent ones beyond its nlp_*_bound_inf (1e19).
std::vector<Number> ipoptBounds(const std::vector<double> &v) {
  std::vector<Number> out(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    out[i] = std::isinf(v[i]) ? (v[i] > 0 ? 2e19 : -2e19) : v[i];
  return out;
}

/// Sets a by-name option given as text: integer, number or string, as IPOPT
/// registered it (each Add* refuses an option of another type).
bool setByName(IpoptProblem p, const std::string &name, const std::string &value) {
  char *key = const_cast<char *>(name.c_str());
  char *end = nullptr;
  long asInt = std::strtol(value.c_str(), &end, 10);
  if (!value.empty() && *end == '\0' && AddIpoptIntOption(p, key, (Int)asInt))
    return true;
  double asNum = std::strtod(value.c_str(), &end);
  if (!value.empty() && *end == '\0' && AddIpoptNumOption(p, key, asNum))
    return true;
  return AddIpoptStrOption(p, key, const_cast<char *>(value.c_str()));
}

Bool noF(Index, Number *, Bool, Number *, UserDataPtr) { return FALSE; }
Bool noG(Index, Number *, Bool, Index, Number *, UserDataPtr) { return FALSE; }
Bool noJ(Index, Number *, Bool, Index, Index, Index *, Index *, Number *, UserDataPtr) {
  return FALSE;
}
Bool noH(Index, Number *, Bool, Number, Index, Number *, Bool, Index, Index *, Index *, Number *,
         UserDataPtr) {
  return FALSE;
}

class IpoptBackend : public Backend {
public:
  ~IpoptBackend() override {
    if (problem_)
      FreeIpoptProblem(problem_);
  }

  int solve(Oracles &oracles, const Options &options, const SolveData &data, Solution &out,
            scaly_solver_stats &stats) override {
    if (cb_.jacRow.empty() && cb_.hessRow.empty()) {
      triplets(oracles.jacColptr, oracles.jacRowind, cb_.jacRow, cb_.jacCol);
      // IPOPT reads the lower triangle as (row, column) with row >= column.
      triplets(oracles.hessColptr, oracles.hessRowind, cb_.hessRow, cb_.hessCol);
    }
    cb_.oracles = &oracles;
    cb_.iterations = 0;
    out.x = data.x0;
    out.lamG = data.lamG0;
    out.lamX = data.lamX0;
    // IPOPT's time: (re)creating the problem and solving, less the oracles'.
    double t0 = now();
    if (!ready(oracles, options, data)) {
      stats.native_status = problem_ ? Invalid_Option : Invalid_Problem_Definition;
      if (problem_)
        FreeIpoptProblem(problem_);
      problem_ = nullptr;
      return SCALY_SOLVE_ERROR;
    }
    // IPOPT's bound multipliers are both nonnegative: lam_x = z_U - z_L.
    std::vector<Number> zl(oracles.n), zu(oracles.n), g(oracles.m);
    for (int i = 0; i < oracles.n; ++i) {
      zl[i] = std::max(0.0, -data.lamX0[i]);
      zu[i] = std::max(0.0, data.lamX0[i]);
    }
    Number obj = 0;
    int native = IpoptSolve(problem_, out.x.data(), g.data(), &obj, out.lamG.data(), zl.data(),
                            zu.data(), &cb_);
    double elapsed = now() - t0;
    for (int i = 0; i < oracles.n; ++i)
      out.lamX[i] = zu[i] - zl[i];
    stats.native_status = native;
    stats.iter = cb_.iterations;
    stats.obj = obj;
    stats.t_solver = std::max(0.0, elapsed - stats.t_fe);
    double viol = 0;
    for (int i = 0; i < oracles.m; ++i)
      viol = std::max({viol, data.lbg[i] - g[i], g[i] - data.ubg[i]});
    for (int i = 0; i < oracles.n; ++i)
      viol = std::max({viol, data.lbx[i] - out.x[i], out.x[i] - data.ubx[i]});
    stats.primal_viol = std::isfinite(viol) ? viol : 0.0;
    return statusOf(native);
  }

private:
  /// The IPOPT problem for these bounds and options: the previous solve's
  /// when they are the same (creating one sets up IPOPT's whole option
  /// registry, about a millisecond), else a new one. False when IPOPT
  /// refuses the problem or an option.
  bool ready(Oracles &oracles, const Options &options, const SolveData &data) {
    std::vector<Number> bounds;
    for (const auto *v : {&data.lbx, &data.ubx, &data.lbg, &data.ubg}) {
      std::vector<Number> b = ipoptBounds(*v);
      bounds.insert(bounds.end(), b.begin(), b.end());
    }
    const auto &table = optionTable(SCALY_NLP_IPOPT);
    std::vector<double> given;
    for (size_t i = 0; i < table.size(); ++i)
      given.push_back(options.isSet((int)i) ? options.at((int)i) : NAN);
    auto same = [](const std::vector<double> &a, const std::vector<double> &b) {
      if (a.size() != b.size())
        return false;
      for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]))))
          return false;
      return true;
    };
    if (problem_ && same(bounds, bounds_) && same(given, options_) && strings_ == ipoptOptions)
      return true;
    if (problem_)
      FreeIpoptProblem(problem_);
    int n = oracles.n, m = oracles.m;
    problem_ = CreateIpoptProblem(n, bounds.data(), bounds.data() + n, m, bounds.data() + 2 * n,
                                  bounds.data() + 2 * n + m, oracles.jacNnz(), oracles.hessNnz(),
                                  0, evalF, evalG, evalGradF, evalJacG, evalH);
    if (!problem_)
      return false;
    bounds_ = bounds;
    options_ = given;
    strings_ = ipoptOptions;
    SetIntermediateCallback(problem_, intermediate);
    AddIpoptStrOption(problem_, const_cast<char *>("sb"), const_cast<char *>("yes"));
    for (size_t i = 0; i < table.size(); ++i) {
      if (std::isnan(given[i]))
        continue;
      char *key = const_cast<char *>(table[i].name);
      double v = given[i];
      if (table[i].kind == Kind::Real) {
        AddIpoptNumOption(problem_, key, v);
      } else if (table[i].kind == Kind::Integer) {
        AddIpoptIntOption(problem_, key, (Int)v);
      } else {
        std::string choices = table[i].choices;
        for (int k = 0; k < (int)v; ++k)
          choices = choices.substr(choices.find('|') + 1);
        choices = choices.substr(0, choices.find('|'));
        AddIpoptStrOption(problem_, key, const_cast<char *>(choices.c_str()));
      }
    }
    for (const auto &[name, value] : ipoptOptions)
      if (!setByName(problem_, name, value))
        return false;
    return true;
  }

  Callbacks cb_{nullptr, {}, {}, {}, {}, 0};
  IpoptProblem problem_ = nullptr;
  std::vector<Number> bounds_;
  std::vector<double> options_;
  std::vector<std::pair<std::string, std::string>> strings_;
};

} // namespace

/// Runs `body` with the standard output discarded: IPOPT 3.11's C interface
/// gives no access to the journal on which it prints why it refuses an
/// option, and the caller reports that refusal itself.
template <typename Body> bool quietly(Body body) {
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
  if (saved >= 0 && null >= 0)
    dup2(null, STDOUT_FILENO);
  bool result = body();
  std::fflush(stdout);
  if (saved >= 0 && null >= 0)
    dup2(saved, STDOUT_FILENO);
  if (saved >= 0)
    close(saved);
  if (null >= 0)
    close(null);
  return result;
}

bool ipoptAccepts(const std::string &name, const std::string &value) {
  return quietly([&] { return ipoptAcceptsLoudly(name, value); });
}

bool ipoptAcceptsLoudly(const std::string &name, const std::string &value) {
  Number lo = 0, hi = 1;
  IpoptProblem p = CreateIpoptProblem(1, &lo, &hi, 0, nullptr, nullptr, 0, 0, 0, noF, noG, noF,
                                      noJ, noH);
  if (!p)
    return false;
  AddIpoptIntOption(p, const_cast<char *>("print_level"), 0);
  bool ok = setByName(p, name, value);
  FreeIpoptProblem(p);
  return ok;
}

std::unique_ptr<Backend> makeIpopt() { return std::make_unique<IpoptBackend>(); }

} // namespace scaly::nlp
