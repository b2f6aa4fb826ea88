//===- Problem.cpp - checking, classifying and equilibrating QP data ------===//

#include "QPInternal.h"

extern "C" {
#include <amd.h>
#include <ldl.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>

namespace scaly::qp {

double monotonicSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void Csc::multiplyAdd(const double *x, double *y, double alpha) const {
  for (int j = 0; j < cols; ++j) {
    double xj = alpha * x[j];
    if (xj == 0.0)
      continue;
    for (int k = colptr[j]; k < colptr[j + 1]; ++k)
      y[rowind[k]] += values[k] * xj;
  }
}

void Csc::multiplyTransposeAdd(const double *x, double *y, double alpha) const {
  for (int j = 0; j < cols; ++j) {
    double sum = 0.0;
    for (int k = colptr[j]; k < colptr[j + 1]; ++k)
      sum += values[k] * x[rowind[k]];
    y[j] += alpha * sum;
  }
}

void symmetricMultiply(const Csc &upper, const double *x, double *y) {
  std::fill(y, y + upper.cols, 0.0);
  for (int j = 0; j < upper.cols; ++j) {
    // y_j takes its terms from column j (nothing before it: an earlier column
    // has no row j), in the order of the entries; summed in a register.
    double xj = x[j], yj = 0.0;
    for (int k = upper.colptr[j]; k < upper.colptr[j + 1]; ++k) {
      int i = upper.rowind[k];
      if (i != j) {
        y[i] += upper.values[k] * xj;
        yj += upper.values[k] * x[i];
      } else {
        yj += upper.values[k] * xj;
      }
    }
    y[j] = yj;
  }
}

namespace {

/// An ostringstream made on the first write: the checks below build one only
/// when they have something to say (constructing one costs a locale's set-up).
class Message {
public:
  template <typename T> Message &operator<<(const T &v) {
    if (!stream_)
      stream_.emplace();
    *stream_ << v;
    return *this;
  }
  std::string str() const { return stream_ ? stream_->str() : std::string(); }

private:
  std::optional<std::ostringstream> stream_;
};

enum Side : unsigned char { NoSide = 0, Lower = 1, Upper = 2, Equal = 4 };

/// A lower side exists above -SCALY_QP_INFINITY, an upper one below +.
/// A side that exists at an infinite value (a lower bound of +inf) makes
/// the problem infeasible; solve() reports that before iterating.
unsigned char sideOf(const double *lo, const double *hi, int i) {
  double l = lo ? lo[i] : -INFINITY, u = hi ? hi[i] : INFINITY;
  bool hasL = l > -absentBound, hasU = u < absentBound;
  if (hasL && hasU && l == u && std::isfinite(l))
    return Equal;
  return (hasL ? Lower : 0) | (hasU ? Upper : 0);
}

std::string checkCsc(const scaly_qp_csc &M, const char *name, int rows, int cols) {
  Message os;
  if (M.nrow != rows || M.ncol != cols) {
    os << name << " is " << M.nrow << " x " << M.ncol << ", expected " << rows << " x " << cols;
    return os.str();
  }
  if (!M.colptr) {
    if (cols == 0 || rows == 0)
      return "";
    os << name << " has no column pointers (colptr is NULL)";
    return os.str();
  }
  if (M.colptr[0] != 0) {
    os << name << ": colptr[0] is " << M.colptr[0] << ", expected 0";
    return os.str();
  }
  for (int j = 0; j < cols; ++j)
    if (M.colptr[j + 1] < M.colptr[j]) {
      os << name << ": colptr decreases at column " << j;
      return os.str();
    }
  int nnz = M.colptr[cols];
  if (nnz > 0 && (!M.rowind || !M.values)) {
    os << name << " has " << nnz << " entries but no rowind or values";
    return os.str();
  }
  for (int j = 0; j < cols; ++j)
    for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k) {
      int i = M.rowind[k];
      if (i < 0 || i >= rows) {
        os << name << ": row index " << i << " in column " << j << " is outside 0.." << rows - 1;
        return os.str();
      }
      if (k > M.colptr[j] && i <= M.rowind[k - 1]) {
        os << name << ": row indices of column " << j << " are not strictly ascending";
        return os.str();
      }
      if (!std::isfinite(M.values[k])) {
        os << name << "[" << i << ", " << j << "] is " << M.values[k] << ", expected a finite value";
        return os.str();
      }
    }
  return "";
}

std::string checkVector(const double *v, int size, const char *name, bool allowInf,
                        bool required) {
  Message os;
  if (!v) {
    if (required && size > 0) {
      os << name << " is NULL, expected " << size << " values";
      return os.str();
    }
    return "";
  }
  for (int i = 0; i < size; ++i)
    if (std::isnan(v[i]) || (!allowInf && std::isinf(v[i]))) {
      os << name << "[" << i << "] is " << v[i] << ", expected a "
         << (allowInf ? "number or an infinity" : "finite value");
      return os.str();
    }
  return "";
}

/// Collects entries column by column, then builds a CSC with sorted rows;
/// each entry may carry a tag, returned in the CSC's order.
struct CscBuilder {
  struct Entry {
    int row;
    double value;
    int tag;
  };
  int rows, cols;
  std::vector<std::vector<Entry>> columns;
  CscBuilder(int rows, int cols) : rows(rows), cols(cols), columns(cols) {}
  void add(int i, int j, double v, int tag = 0) { columns[j].push_back({i, v, tag}); }
  Csc build(std::vector<int> *tags = nullptr) {
    Csc M;
    M.rows = rows;
    M.cols = cols;
    M.colptr.assign(cols + 1, 0);
    if (tags)
      tags->clear();
    for (int j = 0; j < cols; ++j) {
      auto &col = columns[j];
      std::sort(col.begin(), col.end(), [](auto &a, auto &b) { return a.row < b.row; });
      for (const Entry &e : col) {
        M.rowind.push_back(e.row);
        M.values.push_back(e.value);
        if (tags)
          tags->push_back(e.tag);
      }
      M.colptr[j + 1] = (int)M.rowind.size();
    }
    return M;
  }
};

Csc copyCsc(const scaly_qp_csc &M, bool upperOnly) {
  CscBuilder builder(M.nrow, M.ncol);
  if (M.colptr)
    for (int j = 0; j < M.ncol; ++j)
      for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k)
        if (!upperOnly || M.rowind[k] <= j)
          builder.add(M.rowind[k], j, M.values[k]);
  return builder.build();
}

/// The power of two nearest to v > 0 (in ratio: within a factor sqrt 2).
double nearestPowerOfTwo(double v) {
  int e;
  double f = std::frexp(v, &e); // v = f 2^e, f in [0.5, 1)
  return std::ldexp(1.0, f < 0.70710678118654752440 ? e - 1 : e);
}

/// Ruiz equilibration of [P A' G'; A 0 0; G 0 0]: returns the column scaling
/// D and the row scalings of A and G, each a power of two, and scales the
/// three in place (exactly).
///
/// The entries are gathered once into one array in column order (column j:
/// P's, then A's, then G's), each with the slot of its row's scale: slots
/// 0..n-1 are the columns (P's row i is column i's scale), then A's rows,
/// then G's. Each pass over that array scales the entries and takes the next
/// sweep's norms; maxima are exact in any order. The sweeps work on a copy:
/// the matrices are scaled once, by the rounded result.
///
/// With `reuse` >= 1 and a previous equilibration of the same patterns (D, R,
/// S as it left them), the previous scaling is tried first: it is kept when
/// every row and column norm it gives the new values lies within a factor
/// `reuse` of the norm it gave the values it was computed for (one pass
/// instead of sweeps + 1; an SQP's consecutive models differ little).
void equilibrate(Csc &P, Csc &A, Csc &G, Vec &D, Vec &R, Vec &S, int sweeps, double reuse,
                 EquilibrationPlan &plan) {
  const int n = P.cols, nA = A.rows, nG = G.rows, slots = n + nA + nG;
  const int nnzP = P.nnz(), nnzA = A.nnz(), nnzG = G.nnz(), total = nnzP + nnzA + nnzG;
  const bool tryReuse = reuse >= 1.0 && sweeps > 0 && (int)plan.finalNorm.size() == slots &&
                        (int)plan.slot.size() == total && D.size() == n && R.size() == nA &&
                        S.size() == nG;
  if (!tryReuse) {
    D.setOnes(n);
    R.setOnes(nA);
    S.setOnes(nG);
  }
  plan.reused = false;
  if (sweeps <= 0) {
    plan.finalNorm.clear();
    return;
  }
  if ((int)plan.slot.size() != total || (int)plan.colStart.size() != n + 1) {
    plan.colStart.assign(1, 0);
    plan.slot.clear();
    plan.source.clear();
    for (int j = 0; j < n; ++j) {
      for (int k = P.colptr[j]; k < P.colptr[j + 1]; ++k) {
        plan.slot.push_back(P.rowind[k]);
        plan.source.push_back(k);
      }
      for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k) {
        plan.slot.push_back(n + A.rowind[k]);
        plan.source.push_back(nnzP + k);
      }
      for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k) {
        plan.slot.push_back(n + nA + G.rowind[k]);
        plan.source.push_back(nnzP + nnzA + k);
      }
      plan.colStart.push_back((int)plan.slot.size());
    }
  }
  auto valueAt = [&](int source) -> double & {
    return source < nnzP          ? P.values[source]
           : source < nnzP + nnzA ? A.values[source - nnzP]
                                  : G.values[source - nnzP - nnzA];
  };
  std::vector<double> &v = plan.values, &norm = plan.norm, &scale = plan.scale;
  norm.assign(slots, 0.0);
  scale.assign(slots, 1.0);
  const int *slot = plan.slot.data(), *colStart = plan.colStart.data();
  // One pass: entries times (row scale * column scale) when `scaling`, and
  // the norms of the results.
  auto pass = [&](bool scaling) {
    for (int j = 0; j < n; ++j) {
      const double dj = scale[j];
      double cj = 0.0; // column j's norm, in a register
      for (int e = colStart[j]; e < colStart[j + 1]; ++e) {
        const int i = slot[e];
        double x = v[e];
        if (scaling) {
          x *= scale[i] * dj;
          v[e] = x;
        }
        double a = std::fabs(x);
        cj = std::max(cj, a);
        norm[i] = std::max(norm[i], a);
      }
      norm[j] = std::max(norm[j], cj);
    }
  };
  auto clampScale = [](double norm) {
    if (norm < 1e-4)
      return 1.0; // an (almost) empty column or row is left alone
    return std::clamp(1.0 / std::sqrt(norm), 1e-4, 1e4);
  };
  if (tryReuse) {
    for (int j = 0; j < n; ++j)
      scale[j] = D[j];
    for (int i = 0; i < nA; ++i)
      scale[n + i] = R[i];
    for (int i = 0; i < nG; ++i)
      scale[n + nA + i] = S[i];
    // pass(true) on each matrix in its own order (the same products; the
    // norms are maxima), into copies that replace the values if kept.
    std::vector<double> &sp = plan.scaledP, &sa = plan.scaledA, &sg = plan.scaledG;
    sp.resize(nnzP);
    sa.resize(nnzA);
    sg.resize(nnzG);
    auto scaleColumn = [&](const Csc &M, std::vector<double> &out, int first, int j, double dj,
                           double &cj) {
      for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k) {
        const int i = first + M.rowind[k];
        double x = M.values[k];
        x *= scale[i] * dj;
        out[k] = x;
        double a = std::fabs(x);
        cj = std::max(cj, a);
        norm[i] = std::max(norm[i], a);
      }
    };
    for (int j = 0; j < n; ++j) {
      const double dj = scale[j];
      double cj = 0.0;
      scaleColumn(P, sp, 0, j, dj, cj);
      scaleColumn(A, sa, n, j, dj, cj);
      scaleColumn(G, sg, n + nA, j, dj, cj);
      norm[j] = std::max(norm[j], cj);
    }
    bool keep = true;
    for (int i = 0; keep && i < slots; ++i) {
      double now = norm[i], then = plan.finalNorm[i];
      keep = now == then || (now <= reuse * then && then <= reuse * now);
    }
    if (keep) {
      P.values.swap(sp);
      A.values.swap(sa);
      G.values.swap(sg);
      plan.reused = true;
      return;
    }
    // Too far from what the scaling was made for: equilibrated afresh.
    D.setOnes(n);
    R.setOnes(nA);
    S.setOnes(nG);
    std::fill(norm.begin(), norm.end(), 0.0);
    std::fill(scale.begin(), scale.end(), 1.0);
  }
  v.resize(total);
  for (int e = 0; e < total; ++e)
    v[e] = valueAt(plan.source[e]);
  pass(false);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    for (int i = 0; i < slots; ++i)
      scale[i] = clampScale(norm[i]);
    std::fill(norm.begin(), norm.end(), 0.0);
    pass(true);
    for (int j = 0; j < n; ++j)
      D[j] *= scale[j];
    for (int i = 0; i < nA; ++i)
      R[i] *= scale[n + i];
    for (int i = 0; i < nG; ++i)
      S[i] *= scale[n + nA + i];
  }
  // The scalings Ruiz found, each rounded to the nearest power of two, are
  // the ones used: scaling by them is exact, so the scaled data is the
  // user's data exactly, and the solution maps back without rounding (the
  // residuals of the returned x and multipliers are the iteration's own).
  for (int j = 0; j < n; ++j)
    scale[j] = D[j] = nearestPowerOfTwo(D[j]);
  for (int i = 0; i < nA; ++i)
    scale[n + i] = R[i] = nearestPowerOfTwo(R[i]);
  for (int i = 0; i < nG; ++i)
    scale[n + nA + i] = S[i] = nearestPowerOfTwo(S[i]);
  // The matrices scaled by them, with the norms a reuse is compared with
  // (the same products and maxima as the reuse's pass).
  std::fill(norm.begin(), norm.end(), 0.0);
  for (int j = 0; j < n; ++j) {
    double cj = 0.0;
    for (int e = colStart[j]; e < colStart[j + 1]; ++e) {
      const int i = slot[e];
      double &value = valueAt(plan.source[e]);
      value *= scale[i] * scale[j];
      double a = std::fabs(value);
      cj = std::max(cj, a);
      norm[i] = std::max(norm[i], a);
    }
    norm[j] = std::max(norm[j], cj);
  }
  plan.finalNorm = norm;
}

} // namespace

std::string validate(const scaly_qp_data &data) {
  Message os;
  if (data.n < 0 || data.p < 0 || data.m < 0) {
    os << "dimensions must not be negative (n = " << data.n << ", p = " << data.p
       << ", m = " << data.m << ")";
    return os.str();
  }
  for (std::string e : {checkCsc(data.P, "P", data.n, data.n),
                        checkCsc(data.A, "A", data.p, data.n),
                        checkCsc(data.G, "G", data.m, data.n),
                        checkVector(data.c, data.n, "c", false, true),
                        checkVector(data.b, data.p, "b", false, true),
                        checkVector(data.h_l, data.m, "h_l", true, false),
                        checkVector(data.h_u, data.m, "h_u", true, false),
                        checkVector(data.x_l, data.n, "x_l", true, false),
                        checkVector(data.x_u, data.n, "x_u", true, false)})
    if (!e.empty())
      return e;
  return "";
}

namespace {

/// How many of v's n values are NaN, or (finiteOnly) not finite: exponent
/// bits tested in one pass without branches, which the compiler vectorizes
/// (validate's per-value tests branch on each).
int countBad(const double *v, int n, bool finiteOnly) {
  const std::uint64_t exponent = 0x7ff0000000000000ULL, magnitude = ~(1ULL << 63);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    std::uint64_t bits;
    std::memcpy(&bits, v + i, sizeof bits);
    bad += finiteOnly ? (bits & exponent) == exponent : (bits & magnitude) > exponent;
  }
  return bad;
}

bool vectorValid(const double *v, int n, bool allowInf, bool required) {
  return v ? countBad(v, n, !allowInf) == 0 : !(required && n > 0);
}

bool matrixValuesValid(const scaly_qp_csc &M) {
  int nnz = M.colptr ? M.colptr[M.ncol] : 0;
  return nnz == 0 || (M.values && countBad(M.values, nnz, true) == 0);
}

} // namespace

bool valuesValid(const scaly_qp_data &data) {
  return matrixValuesValid(data.P) && matrixValuesValid(data.A) && matrixValuesValid(data.G) &&
         vectorValid(data.c, data.n, false, true) && vectorValid(data.b, data.p, false, true) &&
         vectorValid(data.h_l, data.m, true, false) && vectorValid(data.h_u, data.m, true, false) &&
         vectorValid(data.x_l, data.n, true, false) && vectorValid(data.x_u, data.n, true, false);
}

void sides(const scaly_qp_data &data, std::vector<unsigned char> &rowSides,
           std::vector<unsigned char> &boundSides) {
  rowSides.resize(data.m);
  boundSides.resize(data.n);
  for (int j = 0; j < data.m; ++j)
    rowSides[j] = sideOf(data.h_l, data.h_u, j);
  for (int i = 0; i < data.n; ++i)
    boundSides[i] = sideOf(data.x_l, data.x_u, i);
}

Problem buildProblem(const scaly_qp_data &data, const scaly_qp_settings &settings) {
  Problem pb;
  const int n = data.n;
  pb.n = n;
  pb.userP = data.p;
  pb.userM = data.m;
  sides(data, pb.rowSides, pb.boundSides);

  // The patterns the values go through: P's upper triangle, A and G as
  // given (equilibrated in place by setValues).
  {
    CscBuilder Pb(n, n);
    if (data.P.colptr)
      for (int j = 0; j < n; ++j)
        for (int k = data.P.colptr[j]; k < data.P.colptr[j + 1]; ++k)
          if (data.P.rowind[k] <= j)
            Pb.add(data.P.rowind[k], j, 0.0, k);
    pb.P = Pb.build(&pb.pSource);
  }
  pb.scaledA = copyCsc(data.A, false);
  pb.scaledG = copyCsc(data.G, false);

  // Internal rows. Equalities: the user's A, then rows of G with equal
  // sides, then fixed variables. Inequalities: finite sides of G's rows.
  std::vector<int> eqOfRow(data.m, -1), upOfRow(data.m, -1), loOfRow(data.m, -1);
  int eqRows = data.p, ineqRows = 0;
  for (int i = 0; i < data.p; ++i)
    pb.eqOrigin.push_back({RowOrigin::ARow, i, 1.0});
  for (int j = 0; j < data.m; ++j)
    if (pb.rowSides[j] == Equal) {
      eqOfRow[j] = eqRows++;
      pb.eqOrigin.push_back({RowOrigin::GRow, j, 1.0});
    }
  for (int j = 0; j < data.m; ++j) {
    if (pb.rowSides[j] & Upper) {
      upOfRow[j] = ineqRows++;
      pb.ineqOrigin.push_back({RowOrigin::GRow, j, 1.0});
    }
    if (pb.rowSides[j] & Lower) {
      loOfRow[j] = ineqRows++;
      pb.ineqOrigin.push_back({RowOrigin::GRow, j, -1.0});
    }
  }
  std::vector<int> fixedRow(n, -1);
  for (int i = 0; i < n; ++i)
    if (pb.boundSides[i] == Equal) {
      fixedRow[i] = eqRows++;
      pb.eqOrigin.push_back({RowOrigin::Bound, i, 1.0});
    }

  // Each internal entry's source (see Problem::aSource).
  CscBuilder Ab(eqRows, n), Gb(ineqRows, n);
  const int a = (int)pb.scaledA.values.size();
  const Csc &A = pb.scaledA, &G = pb.scaledG;
  for (int j = 0; j < n; ++j) {
    for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k)
      Ab.add(A.rowind[k], j, 0.0, k);
    for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k) {
      int r = G.rowind[k];
      if (eqOfRow[r] >= 0)
        Ab.add(eqOfRow[r], j, 0.0, a + k);
      if (upOfRow[r] >= 0)
        Gb.add(upOfRow[r], j, 0.0, k);
      if (loOfRow[r] >= 0)
        Gb.add(loOfRow[r], j, 0.0, -1 - k);
    }
    if (fixedRow[j] >= 0)
      Ab.add(fixedRow[j], j, 0.0, -1);
  }
  pb.A = Ab.build(&pb.aSource);
  pb.G = Gb.build(&pb.gSource);
  pb.b.resize(eqRows);
  pb.h.resize(ineqRows);
  pb.eqScale.resize(eqRows);
  pb.ineqScale.resize(ineqRows);

  pb.upRow = upOfRow;
  pb.loRow = loOfRow;
  pb.boundLo.assign(n, -1);
  pb.boundUp.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    if (pb.boundSides[i] == Equal)
      continue;
    if (pb.boundSides[i] & Lower) {
      pb.boundLo[i] = (int)pb.il.size();
      pb.il.push_back(i);
    }
    if (pb.boundSides[i] & Upper) {
      pb.boundUp[i] = (int)pb.iu.size();
      pb.iu.push_back(i);
    }
  }
  pb.xl.resize(pb.il.size());
  pb.xu.resize(pb.iu.size());
  pb.c.resize(n);
  setValues(pb, data, settings);
  return pb;
}

void setValues(Problem &pb, const scaly_qp_data &data, const scaly_qp_settings &settings) {
  const int n = pb.n;
  Csc &P = pb.P, &A = pb.scaledA, &G = pb.scaledG;
  for (size_t k = 0; k < pb.pSource.size(); ++k)
    P.values[k] = data.P.values[pb.pSource[k]];
  std::copy(data.A.values, data.A.values + A.values.size(), A.values.begin());
  std::copy(data.G.values, data.G.values + G.values.size(), G.values.begin());
  Vec &R = pb.rowScaleA, &S = pb.rowScaleG;
  equilibrate(P, A, G, pb.D, R, S, std::max(0, (int)settings.preconditioner_iter),
              settings.preconditioner_reuse, pb.equilibration);
  const Vec &D = pb.D;

  // Cost scaling: PIQP's rule, off by default.
  Eigen::Map<const Vec> c(data.c, n);
  pb.costScale = 1.0;
  if (settings.preconditioner_scale_cost && n > 0) {
    double pNorm = 0.0;
    for (double v : P.values)
      pNorm = std::max(pNorm, std::fabs(v));
    double cNorm = (D.array() * c.array()).abs().maxCoeff();
    pb.costScale =
        nearestPowerOfTwo(std::clamp(1.0 / std::max({1.0, pNorm, cNorm}), 1e-4, 1e4));
  }
  if (pb.costScale != 1.0) // (times 1 changes nothing)
    for (double &v : P.values)
      v *= pb.costScale;
  pb.c = pb.costScale * D.cwiseProduct(c);

  // The internal rows' values, scales and right-hand sides.
  const int a = (int)A.values.size();
  for (size_t q = 0; q < pb.aSource.size(); ++q) {
    int k = pb.aSource[q];
    pb.A.values[q] = k < 0 ? 1.0 : k < a ? A.values[k] : G.values[k - a];
  }
  for (size_t q = 0; q < pb.gSource.size(); ++q) {
    int k = pb.gSource[q];
    pb.G.values[q] = k >= 0 ? G.values[k] : -G.values[-1 - k];
  }
  for (int r = 0; r < pb.p(); ++r) {
    const RowOrigin &o = pb.eqOrigin[r];
    int i = o.index;
    if (o.kind == RowOrigin::ARow) {
      pb.b[r] = R[i] * data.b[i];
      pb.eqScale[r] = R[i];
    } else if (o.kind == RowOrigin::GRow) {
      pb.b[r] = S[i] * data.h_l[i];
      pb.eqScale[r] = S[i];
    } else {
      // Row e_i' x = v, scaled by 1/D_i: x~_i = v / D_i.
      pb.b[r] = data.x_l[i] / D[i];
      pb.eqScale[r] = 1.0 / D[i];
    }
  }
  for (int r = 0; r < pb.m(); ++r) {
    const RowOrigin &o = pb.ineqOrigin[r];
    int j = o.index;
    pb.h[r] = o.sign > 0 ? S[j] * data.h_u[j] : -S[j] * data.h_l[j];
    pb.ineqScale[r] = S[j];
  }
  for (size_t k = 0; k < pb.il.size(); ++k)
    pb.xl[k] = data.x_l[pb.il[k]] / D[pb.il[k]];
  for (size_t k = 0; k < pb.iu.size(); ++k)
    pb.xu[k] = data.x_u[pb.iu[k]] / D[pb.iu[k]];
}

void refreshVectors(Problem &pb, const scaly_qp_data &data) {
  for (int i = 0; i < pb.n; ++i)
    pb.c[i] = pb.costScale * pb.D[i] * data.c[i];
  for (int r = 0; r < pb.p(); ++r) {
    const RowOrigin &o = pb.eqOrigin[r];
    double v = o.kind == RowOrigin::ARow   ? data.b[o.index]
               : o.kind == RowOrigin::GRow ? data.h_l[o.index]
                                           : data.x_l[o.index];
    pb.b[r] = pb.eqScale[r] * v;
  }
  for (int r = 0; r < pb.m(); ++r) {
    const RowOrigin &o = pb.ineqOrigin[r];
    pb.h[r] = o.sign > 0 ? pb.ineqScale[r] * data.h_u[o.index]
                         : -pb.ineqScale[r] * data.h_l[o.index];
  }
  for (size_t k = 0; k < pb.il.size(); ++k)
    pb.xl[k] = data.x_l[pb.il[k]] / pb.D[pb.il[k]];
  for (size_t k = 0; k < pb.iu.size(); ++k)
    pb.xu[k] = data.x_u[pb.iu[k]] / pb.D[pb.iu[k]];
}

std::string checkConvex(const Problem &pb) {
  // LDL^T of P~ + tau I (P~ = D P D is PSD exactly when P is): every pivot
  // is positive for a positive semidefinite P. tau (1e-4 of P~'s largest
  // entry) forgives data that is PSD on paper but not in its digits: VALUES
  // of the Maros-Meszaros set has eigenvalues of -1.3e-5, and the
  // regularized iteration solves it. Clear non-convexity is refused.
  const int n = pb.n;
  if (n == 0 || pb.P.nnz() == 0)
    return "";
  double maxAbs = 0.0;
  for (double v : pb.P.values)
    maxAbs = std::max(maxAbs, std::fabs(v));
  const double tau = 1e-4 * std::max(1.0, maxAbs);
  CscBuilder full(n, n);
  std::vector<bool> hasDiag(n, false);
  for (int j = 0; j < n; ++j)
    for (int k = pb.P.colptr[j]; k < pb.P.colptr[j + 1]; ++k) {
      int i = pb.P.rowind[k];
      double v = pb.P.values[k];
      if (i == j) {
        full.add(i, j, v + tau);
        hasDiag[j] = true;
      } else {
        full.add(i, j, v);
        full.add(j, i, v);
      }
    }
  for (int j = 0; j < n; ++j)
    if (!hasDiag[j])
      full.add(j, j, tau);
  Csc M = full.build();
  std::vector<int> perm(n), permInv(n), Lp(n + 1), parent(n), lnz(n), flag(n), pattern(n);
  double control[AMD_CONTROL];
  amd_defaults(control);
  if (amd_order(n, M.colptr.data(), M.rowind.data(), perm.data(), control, nullptr) < 0)
    for (int k = 0; k < n; ++k)
      perm[k] = k;
  ldl_symbolic(n, M.colptr.data(), M.rowind.data(), Lp.data(), parent.data(), lnz.data(),
               flag.data(), perm.data(), permInv.data());
  std::vector<int> Li(std::max(1, Lp[n]));
  std::vector<double> Lx(std::max(1, Lp[n])), D(n), Y(n);
  int done = ldl_numeric(n, M.colptr.data(), M.rowind.data(), M.values.data(), Lp.data(),
                         parent.data(), lnz.data(), Li.data(), Lx.data(), D.data(), Y.data(),
                         pattern.data(), flag.data(), perm.data(), permInv.data());
  for (int k = 0; k < n; ++k)
    if (k >= done || !(D[k] > 0.0))
    {
      char text[256];
      std::snprintf(text, sizeof text,
                    "P is not positive semidefinite (the quadratic program is not convex): "
                    "factoring P + %.3g I meets the pivot %.3g at variable %d",
                    tau, k < done ? D[k] : 0.0, perm[k]);
      return text;
    }
  return "";
}

} // namespace scaly::qp
