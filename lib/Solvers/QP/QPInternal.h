//===- QPInternal.h - the QP solver's internal types ------------*- C++ -*-===//
//
// The solver works on an internal form of the user's problem:
//
//   minimize 1/2 x'Px + c'x  s.t.  Ax = b,  Gx <= h,  x_i >= xl (i in il),
//                                   x_i <= xu (i in iu)
//
// where the rows of A are the user's equalities plus every two-sided row or
// bound whose sides coincide, and the rows of G are the finite sides of the
// user's inequality rows (a lower side negated). Everything is equilibrated
// (Ruiz): x = D x~, the rows of A and G are scaled, the cost by costScale.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_QP_QPINTERNAL_H
#define SCALY_SOLVERS_QP_QPINTERNAL_H

#include "scaly/Solvers/scaly_qp.h"

#include <Eigen/Dense>

#include <memory>
#include <string>
#include <vector>

namespace scaly::qp {

using Vec = Eigen::VectorXd;

/// A bound at or beyond this is absent: SCALY_QP_INFINITY within rounding,
/// as data sets store "no bound" as values such as 9.99999999999997e19.
constexpr double absentBound = SCALY_QP_INFINITY * (1.0 - 1e-12);

/// Compressed-column matrix owning its tables.
struct Csc {
  int rows = 0, cols = 0;
  std::vector<int> colptr{0}, rowind;
  std::vector<double> values;
  int nnz() const { return colptr.back(); }
  /// y += alpha * this * x
  void multiplyAdd(const double *x, double *y, double alpha = 1.0) const;
  /// y += alpha * this' * x
  void multiplyTransposeAdd(const double *x, double *y, double alpha = 1.0) const;
};

/// y = P x for P given by its upper triangle.
void symmetricMultiply(const Csc &upper, const double *x, double *y);

/// Where an internal row comes from.
struct RowOrigin {
  enum Kind { ARow, GRow, Bound } kind;
  int index;   // row of A or G, or the variable of a bound
  double sign; // +1, or -1 for a lower side written as -g'x <= -h_l
};

/// The entries of P, A and G in one array by column, for equilibrate (made on
/// its first call for a pattern), and its work arrays.
struct EquilibrationPlan {
  std::vector<int> colStart, slot, source;
  std::vector<double> values, norm, scale;
  // The row and column norms the latest fresh equilibration left (slots as
  // above; empty: none), and whether the latest call reused its scaling.
  std::vector<double> finalNorm;
  bool reused = false;
  std::vector<double> scaledP, scaledA, scaledG; // the reuse test's scaled values
};

/// The user's problem classified, copied and equilibrated.
struct Problem {
  int n = 0;                // variables
  int userP = 0, userM = 0; // the user's rows of A and of G
  Csc P;                    // upper triangle, scaled
  Csc A, G;                 // internal rows, scaled
  Vec c, b, h;
  std::vector<int> il, iu;  // variables with a finite lower / upper bound
  Vec xl, xu;               // those bounds, scaled
  std::vector<RowOrigin> eqOrigin, ineqOrigin;
  // Per user row of G, its internal upper and lower inequality rows (-1:
  // none); per variable, its positions in il and iu (-1: none).
  std::vector<int> upRow, loRow, boundLo, boundUp;

  // Equilibration: x = D x~, row i of A~ = eqScale_i * (row of user data),
  // row i of G~ = ineqScale_i * (...), cost scaled by costScale.
  Vec D, eqScale, ineqScale;
  double costScale = 1.0;

  // Which sides are finite per user row and bound: the structure. An update
  // that changes it rebuilds the internal problem.
  std::vector<unsigned char> rowSides, boundSides;

  // Where the values come from, for setValues: per entry of P, the user's
  // entry; the user's A and G equilibrated (their scaled values) with their
  // row scales; per entry of the internal A, the entry k of the scaled A
  // (k < nnz(A)), of the scaled G (nnz(A) + k) or -1 (a fixed variable's 1);
  // per entry of the internal G, the entry k of the scaled G, or -1 - k for
  // its negation (a lower side).
  std::vector<int> pSource, aSource, gSource;
  Csc scaledA, scaledG;
  Vec rowScaleA, rowScaleG;
  EquilibrationPlan equilibration;

  int p() const { return (int)b.size(); }
  int m() const { return (int)h.size(); }
};

/// Checks the user's data; returns an empty string or what is wrong.
std::string validate(const scaly_qp_data &data);

/// Whether validate() would accept data whose dimensions and matrix
/// patterns it accepted before: its values' checks alone, without a message.
bool valuesValid(const scaly_qp_data &data);

/// Classifies, copies and equilibrates the user's data.
Problem buildProblem(const scaly_qp_data &data, const scaly_qp_settings &settings);

/// New values for a problem of unchanged structure (sides) and patterns:
/// equilibrated again, every matrix and vector as buildProblem gives them
/// (buildProblem sets its values through this), without allocating.
void setValues(Problem &problem, const scaly_qp_data &data, const scaly_qp_settings &settings);

/// Empty when P is positive semidefinite, else a message saying where not.
std::string checkConvex(const Problem &problem);

/// New c, b, h_l, h_u, x_l, x_u for a problem of unchanged structure and
/// matrices: scaled with the problem's equilibration, as buildProblem would.
void refreshVectors(Problem &problem, const scaly_qp_data &data);

/// The structure buildProblem would give (sides per row and bound).
void sides(const scaly_qp_data &data, std::vector<unsigned char> &rowSides,
           std::vector<unsigned char> &boundSides);

/// The regularized KKT system of one iteration,
///   [ P + diag(hx)  A'        G'       ] [dx]   [rx]
///   [ A             -delta I  0        ] [dy] = [ry]
///   [ G             0         -diag(w) ] [dz]   [rz]
/// with hx = rho + bound terms and w = delta + s/z.
class KKT {
public:
  virtual ~KKT() = default;
  /// Factors with new diagonals; false when the factorization fails or its
  /// inertia is not the quasi-definite one.
  virtual bool factor(const Vec &hx, double delta, const Vec &w) = 0;
  virtual void solve(const Vec &rx, const Vec &ry, const Vec &rz, Vec &dx, Vec &dy,
                     Vec &dz) = 0;
  /// The problem's matrices changed values (same patterns).
  virtual void refresh() = 0;
};

std::unique_ptr<KKT> makeSparseKKT(const Problem &problem);
std::unique_ptr<KKT> makeDenseKKT(const Problem &problem);

/// The latest iterate and solution, in the user's (unscaled) variables.
struct Solution {
  Vec x, y, z, zBox;
};

class Ipm;

class Solver {
public:
  /// Throws std::invalid_argument for a non-convex problem.
  Solver(const scaly_qp_data &data, int backend, const scaly_qp_settings &settings);
  Solver(Solver &&) noexcept;
  ~Solver();
  /// Replaces the data; returns an empty string or what is wrong.
  /// New data; `checkConvexity` false trusts the caller that P is PSD.
  std::string update(const scaly_qp_data &data, bool checkConvexity = true);
  void setSettings(const scaly_qp_settings &settings) { settings_ = settings; }
  int solve(const double *x0, const double *y0, const double *z0, const double *zBox0);

  const Solution &solution() const { return solution_; }
  const scaly_qp_info &info() const { return info_; }
  int n() const { return problem_.n; }
  int userP() const { return problem_.userP; }
  int userM() const { return problem_.userM; }

private:
  void build(const scaly_qp_data &data);

  Problem problem_;
  int backend_;
  scaly_qp_settings settings_;
  std::unique_ptr<KKT> kkt_;
  Solution solution_;
  scaly_qp_info info_{};
  std::vector<std::vector<int>> patterns_; // the user's P, A, G index tables
  std::vector<std::vector<double>> values_; // and their values
  std::vector<unsigned char> rowSides_, boundSides_; // update's scratch
  std::unique_ptr<Ipm> ipm_;               // the iteration, its storage kept between solves
  const Solver *ipmSolver_ = nullptr;      // the Solver and KKT backend ipm_ refers to
  const KKT *ipmKkt_ = nullptr;
  Vec objectivePx_;                        // solve()'s scratch
  bool impossible_ = false;                // a bound pair no x satisfies
  double impossibleBy_ = 0.0;              // by how much (l - u)
  int solves_ = 0;

public:
  int solves() const { return solves_; }
};

double monotonicSeconds();

} // namespace scaly::qp

#endif // SCALY_SOLVERS_QP_QPINTERNAL_H
