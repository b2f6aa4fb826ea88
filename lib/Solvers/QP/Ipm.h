//===- Ipm.h - the QP solver's interior-point iteration ---------*- C++ -*-===//
//
// One solve of an equilibrated Problem with a factored KKT backend: the
// iteration of Ipm.cpp, and the checks and polishing of the point it returns
// (Polish.cpp). The Solver (Solver.cpp) maps the user's data and starting
// point in and the solution out.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_QP_IPM_H
#define SCALY_SOLVERS_QP_IPM_H

#include "QPInternal.h"

#include <cmath>

namespace scaly::qp {

/// x[index], a new vector.
Vec gather(const std::vector<int> &index, const Vec &x);

/// Slack and multiplier pairs of the three kinds of inequality.
struct Pairs {
  Vec z, s, zl, sl, zu, su;
  int size() const { return (int)(z.size() + zl.size() + zu.size()); }
  double dot() const { return s.dot(z) + sl.dot(zl) + su.dot(zu); }
  /// Largest steps in [0, 1] along `d` that keep the slacks / the
  /// multipliers nonnegative.
  double slackStep(const Pairs &d) const;
  double multiplierStep(const Pairs &d) const;
};

class Ipm {
public:
  Ipm(const Problem &pb, KKT &kkt, const scaly_qp_settings &st, scaly_qp_info &info)
      : pb_(pb), kkt_(kkt), st_(st), info_(info), n_(pb.n), p_(pb.p()), m_(pb.m()),
        nl_((int)pb.il.size()), nu_((int)pb.iu.size()) {}

  Vec x, y;
  Pairs q;

  int run(bool warm);
  /// Back to the state of a new Ipm on the same problem, keeping the
  /// vectors' storage (a Solver solves with one Ipm until its structure
  /// changes: a solve then allocates nothing once the sizes are known).
  void reset();

private:
  int iterate(bool warm);
  double merit() const;
  void residuals();
  template <typename T> void gap();
  bool factorWithRetries();
  void raiseRegularization();
  void newton(const Vec &rsz, const Vec &rsl, const Vec &rsu, Vec &dx, Vec &dy, Pairs &d);
  void kktSolve(const Vec &bx, const Vec &by, const Vec &bz, Vec &dx, Vec &dy, Vec &dz);
  void kktMultiply(const Vec &dx, const Vec &dy, const Vec &dz, Vec &ox, Vec &oy, Vec &oz);
  void setDiagonals();
  void unitScales();
  bool coldStart();
  void warmStart();
  void shiftInterior(double floorValue);
  bool repairCollapsedPairs();
  double dualProxDistance() const;
  double primalProxDistance() const;
  bool converged();
  void userResiduals(const Vec &xs, const Vec &ys, const Pairs &qs, double &primal,
                     double &dual, double &gap, double &sidesGap) const;
  template <typename T>
  void userResidualsIn(const Vec &xs, const Vec &ys, const Pairs &qs, double &primal,
                       double &dual, double &gap, double &sidesGap, std::vector<T> &r,
                       std::vector<T> &ax) const;
  double meritOf(double primal, double dual, double gap) const;
  double exactMerit() const;
  bool polish(bool onlyIfConverged);
  int infeasibility();

  const Problem &pb_;
  KKT &kkt_;
  const scaly_qp_settings &st_;
  scaly_qp_info &info_;
  int n_, p_, m_, nl_, nu_;

  double rho_ = 0, delta_ = 0, mu_ = 0, regLimit_ = 0;
  double lastPrimalStep_ = 0, lastDualStep_ = 0;
  int directionRetries_ = 0;
  // The iterate nearest convergence so far (see run()).
  struct Point {
    Vec x, y;
    Pairs q;
    double primal, dual, gap;
  } best_;
  double bestMerit_ = INFINITY;
  // The least primal and dual parts of merit() over the iterates.
  double bestPrimal_ = INFINITY, bestDual_ = INFINITY;
  int noPrimalUpdate_ = 0, noDualUpdate_ = 0;
  Vec xi_, lambda_, nuz_, nul_, nuu_;            // proximal centres
  Vec rx_, ry_, rz_, rl_, ru_;                   // residuals without proximal terms
  Vec hx_, wz_, wl_, wu_;                        // KKT diagonals
  // Workspaces, sized on first use: an iteration allocates nothing.
  Vec dualUnscale_, eqInv_, inInv_, Dl_, Du_;    // unitScales()
  Vec Px_, Aty_, Gtz_, box_, Ax_, Gx_, xl_, xu_; // residuals()
  Vec vy_, vz_, vl_, vu_, awayX_;                // infeasibility()
  Vec ox_, oy_, oz_, ex_, ey_, ez_;              // kktSolve()
  Vec nrx_, nry_, nrz_, nrl_, nru_, tz_, tl_, tu_, bx_, by_; // newton()
  Vec dx_, dy_, rsz_, rsl_, rsu_;                // iterate()
  Pairs d_;
  double primalInf_ = 0, dualInf_ = 0, gap_ = 0; // in the user's units
  double violation_ = 0;                         // of the constraints by x alone
  double primalRel_ = 0, dualRel_ = 0, gapRel_ = 0;
  // The residuals of the point the user gets, evaluated in extended
  // precision (userResiduals), when converged() or polish() computed them.
  double exactPrimal_ = INFINITY, exactDual_ = INFINITY, exactGap_ = INFINITY;
  double exactSidesGap_ = INFINITY;
  int polishes_ = 0, lastPolish_ = -100; // polishes during the iteration (see iterate())
  double solveErr_ = 0.0; // kktSolve's residual, relative to each block's right-hand side
  double stallMerit_ = INFINITY; // bestMerit_ when it last halved, at iteration stallIter_
  int stallIter_ = 0;
  bool candidate_ = false; // converged by the iteration's own residuals
  Vec polX_, polY_, polZ_, polRx_, polRy_, polRz_, polDx_, polDy_, polDz_; // polish()
  // userResiduals()' workspaces (it is called on converged iterations of
  // every solve: no allocation once sized).
  mutable std::vector<long double> extR_, extAx_;
  mutable std::vector<double> dblR_, dblAx_; // the same in double (duality_gap_extended 0)
  mutable Vec extW_;
};

} // namespace scaly::qp

#endif // SCALY_SOLVERS_QP_IPM_H
