//===- Problem.cpp - checking, classifying and equilibrating QP data ------===//

#include "QPInternal.h"

extern "C" {
#include <amd.h>
#include <ldl.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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
  for (int j = 0; j < upper.cols; ++j)
    for (int k = upper.colptr[j]; k < upper.colptr[j + 1]; ++k) {
      int i = upper.rowind[k];
      y[i] += upper.values[k] * x[j];
      if (i != j)
        y[j] += upper.values[k] * x[i];
    }
}

namespace {

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
  std::ostringstream os;
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
  std::ostringstream os;
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

/// Collects entries column by column, then builds a CSC with sorted rows.
struct CscBuilder {
  int rows, cols;
  std::vector<std::vector<std::pair<int, double>>> columns;
  CscBuilder(int rows, int cols) : rows(rows), cols(cols), columns(cols) {}
  void add(int i, int j, double v) { columns[j].emplace_back(i, v); }
  Csc build() {
    Csc M;
    M.rows = rows;
    M.cols = cols;
    M.colptr.assign(cols + 1, 0);
    for (int j = 0; j < cols; ++j) {
      auto &col = columns[j];
      std::sort(col.begin(), col.end(),
                [](auto &a, auto &b) { return a.first < b.first; });
      for (auto &[i, v] : col) {
        M.rowind.push_back(i);
        M.values.push_back(v);
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

/// Ruiz equilibration of [P A' G'; A 0 0; G 0 0]: returns the column scaling
/// D and the row scalings of A and G, and scales the three in place.
void equilibrate(Csc &P, Csc &A, Csc &G, Vec &D, Vec &R, Vec &S, int sweeps) {
  const int n = P.cols;
  D = Vec::Ones(n);
  R = Vec::Ones(A.rows);
  S = Vec::Ones(G.rows);
  auto clampScale = [](double norm) {
    if (norm < 1e-4)
      return 1.0; // an (almost) empty column or row is left alone
    return std::clamp(1.0 / std::sqrt(norm), 1e-4, 1e4);
  };
  Vec colNorm(n), rowA(A.rows), rowG(G.rows);
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    colNorm.setZero();
    rowA.setZero();
    rowG.setZero();
    for (int j = 0; j < n; ++j)
      for (int k = P.colptr[j]; k < P.colptr[j + 1]; ++k) {
        double a = std::fabs(P.values[k]);
        colNorm[j] = std::max(colNorm[j], a);
        colNorm[P.rowind[k]] = std::max(colNorm[P.rowind[k]], a);
      }
    for (int j = 0; j < n; ++j) {
      for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k) {
        double a = std::fabs(A.values[k]);
        colNorm[j] = std::max(colNorm[j], a);
        rowA[A.rowind[k]] = std::max(rowA[A.rowind[k]], a);
      }
      for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k) {
        double a = std::fabs(G.values[k]);
        colNorm[j] = std::max(colNorm[j], a);
        rowG[G.rowind[k]] = std::max(rowG[G.rowind[k]], a);
      }
    }
    Vec d(n), r(A.rows), s(G.rows);
    for (int j = 0; j < n; ++j)
      d[j] = clampScale(colNorm[j]);
    for (int i = 0; i < A.rows; ++i)
      r[i] = clampScale(rowA[i]);
    for (int i = 0; i < G.rows; ++i)
      s[i] = clampScale(rowG[i]);
    for (int j = 0; j < n; ++j) {
      for (int k = P.colptr[j]; k < P.colptr[j + 1]; ++k)
        P.values[k] *= d[P.rowind[k]] * d[j];
      for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k)
        A.values[k] *= r[A.rowind[k]] * d[j];
      for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k)
        G.values[k] *= s[G.rowind[k]] * d[j];
    }
    D.array() *= d.array();
    R.array() *= r.array();
    S.array() *= s.array();
  }
}

} // namespace

std::string validate(const scaly_qp_data &data) {
  std::ostringstream os;
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

  Csc P = copyCsc(data.P, /*upperOnly=*/true);
  Csc A = copyCsc(data.A, false);
  Csc G = copyCsc(data.G, false);
  Vec R, S;
  equilibrate(P, A, G, pb.D, R, S, std::max(0, (int)settings.preconditioner_iter));
  const Vec &D = pb.D;

  // Cost scaling: PIQP's rule, off by default.
  Vec c = Eigen::Map<const Vec>(data.c, n);
  pb.costScale = 1.0;
  if (settings.preconditioner_scale_cost && n > 0) {
    double pNorm = 0.0;
    for (double v : P.values)
      pNorm = std::max(pNorm, std::fabs(v));
    double cNorm = (D.array() * c.array()).abs().maxCoeff();
    pb.costScale = std::clamp(1.0 / std::max({1.0, pNorm, cNorm}), 1e-4, 1e4);
  }
  for (double &v : P.values)
    v *= pb.costScale;
  pb.P = std::move(P);
  pb.c = pb.costScale * D.cwiseProduct(c);

  // Internal rows. Equalities: the user's A, then rows of G with equal
  // sides, then fixed variables. Inequalities: finite sides of G's rows.
  std::vector<int> eqOfRow(data.m, -1), upOfRow(data.m, -1), loOfRow(data.m, -1);
  std::vector<double> bv(data.p), hv;
  for (int i = 0; i < data.p; ++i)
    bv[i] = R[i] * data.b[i];
  std::vector<double> eqScale(R.data(), R.data() + R.size()), ineqScale;
  for (int i = 0; i < data.p; ++i)
    pb.eqOrigin.push_back({RowOrigin::ARow, i, 1.0});
  for (int j = 0; j < data.m; ++j)
    if (pb.rowSides[j] == Equal) {
      eqOfRow[j] = (int)bv.size();
      bv.push_back(S[j] * data.h_l[j]);
      eqScale.push_back(S[j]);
      pb.eqOrigin.push_back({RowOrigin::GRow, j, 1.0});
    }
  for (int j = 0; j < data.m; ++j) {
    if (pb.rowSides[j] & Upper) {
      upOfRow[j] = (int)hv.size();
      hv.push_back(S[j] * data.h_u[j]);
      ineqScale.push_back(S[j]);
      pb.ineqOrigin.push_back({RowOrigin::GRow, j, 1.0});
    }
    if (pb.rowSides[j] & Lower) {
      loOfRow[j] = (int)hv.size();
      hv.push_back(-S[j] * data.h_l[j]);
      ineqScale.push_back(S[j]);
      pb.ineqOrigin.push_back({RowOrigin::GRow, j, -1.0});
    }
  }
  std::vector<int> fixedRow(n, -1);
  for (int i = 0; i < n; ++i)
    if (pb.boundSides[i] == Equal) {
      fixedRow[i] = (int)bv.size();
      // Row e_i' x = v, scaled by 1/D_i: x~_i = v / D_i.
      bv.push_back(data.x_l[i] / D[i]);
      eqScale.push_back(1.0 / D[i]);
      pb.eqOrigin.push_back({RowOrigin::Bound, i, 1.0});
    }

  CscBuilder Ab((int)bv.size(), n), Gb((int)hv.size(), n);
  for (int j = 0; j < n; ++j) {
    for (int k = A.colptr[j]; k < A.colptr[j + 1]; ++k)
      Ab.add(A.rowind[k], j, A.values[k]);
    for (int k = G.colptr[j]; k < G.colptr[j + 1]; ++k) {
      int r = G.rowind[k];
      double v = G.values[k];
      if (eqOfRow[r] >= 0)
        Ab.add(eqOfRow[r], j, v);
      if (upOfRow[r] >= 0)
        Gb.add(upOfRow[r], j, v);
      if (loOfRow[r] >= 0)
        Gb.add(loOfRow[r], j, -v);
    }
    if (fixedRow[j] >= 0)
      Ab.add(fixedRow[j], j, 1.0);
  }
  pb.A = Ab.build();
  pb.G = Gb.build();
  pb.b = Eigen::Map<Vec>(bv.data(), (int)bv.size());
  pb.h = Eigen::Map<Vec>(hv.data(), (int)hv.size());
  pb.eqScale = Eigen::Map<Vec>(eqScale.data(), (int)eqScale.size());
  pb.ineqScale = Eigen::Map<Vec>(ineqScale.data(), (int)ineqScale.size());

  pb.upRow = upOfRow;
  pb.loRow = loOfRow;
  pb.boundLo.assign(n, -1);
  pb.boundUp.assign(n, -1);
  std::vector<double> xl, xu;
  for (int i = 0; i < n; ++i) {
    if (pb.boundSides[i] == Equal)
      continue;
    if (pb.boundSides[i] & Lower) {
      pb.boundLo[i] = (int)pb.il.size();
      pb.il.push_back(i);
      xl.push_back(data.x_l[i] / D[i]);
    }
    if (pb.boundSides[i] & Upper) {
      pb.boundUp[i] = (int)pb.iu.size();
      pb.iu.push_back(i);
      xu.push_back(data.x_u[i] / D[i]);
    }
  }
  pb.xl = Eigen::Map<Vec>(xl.data(), (int)xl.size());
  pb.xu = Eigen::Map<Vec>(xu.data(), (int)xu.size());
  return pb;
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
