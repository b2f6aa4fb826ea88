//===- DenseKKT.cpp - the KKT system condensed, by dense Cholesky ---------===//
//
// Eliminating dy = (A dx - ry) / delta and dz = (G dx - rz) / w leaves
//
//   (H + A'A / delta + G' W^-1 G) dx = rx + A' ry / delta + G' (rz / w),
//
// symmetric positive definite whenever P is positive semidefinite: one
// n x n Cholesky factorization (Eigen's LLT) per iteration, PIQP's dense
// backend. Suits small problems with dense data, such as condensed MPC.
//
//===----------------------------------------------------------------------===//

#include "QPInternal.h"

#include <Eigen/Cholesky>

namespace scaly::qp {
namespace {

using Mat = Eigen::MatrixXd;

Mat toDense(const Csc &M) {
  Mat D = Mat::Zero(M.rows, M.cols);
  for (int j = 0; j < M.cols; ++j)
    for (int k = M.colptr[j]; k < M.colptr[j + 1]; ++k)
      D(M.rowind[k], j) = M.values[k];
  return D;
}

class DenseKKT final : public KKT {
public:
  explicit DenseKKT(const Problem &pb) : pb_(pb) { refresh(); }

  void refresh() override {
    Mat upper = toDense(pb_.P);
    P_ = upper.selfadjointView<Eigen::Upper>();
    A_ = toDense(pb_.A);
    G_ = toDense(pb_.G);
  }

  bool factor(const Vec &hx, double delta, const Vec &w) override {
    delta_ = delta;
    winv_ = w.cwiseInverse();
    M_ = P_;
    M_.diagonal() += hx;
    if (A_.rows() > 0)
      M_.selfadjointView<Eigen::Lower>().rankUpdate(A_.transpose(), 1.0 / delta);
    if (G_.rows() > 0) {
      Mat scaledG = winv_.cwiseSqrt().asDiagonal() * G_;
      M_.selfadjointView<Eigen::Lower>().rankUpdate(scaledG.transpose(), 1.0);
    }
    llt_.compute(M_); // reads the lower triangle
    if (llt_.info() != Eigen::Success)
      return false;
    // A pivot that is tiny next to its diagonal means the matrix is not
    // numerically positive definite.
    const Mat &L = llt_.matrixLLT();
    for (int j = 0; j < L.rows(); ++j)
      if (!(L(j, j) > 0.0) || !std::isfinite(L(j, j)))
        return false;
    return true;
  }

  void solve(const Vec &rx, const Vec &ry, const Vec &rz, Vec &dx, Vec &dy,
             Vec &dz) override {
    Vec rhs = rx;
    if (A_.rows() > 0)
      rhs.noalias() += A_.transpose() * (ry / delta_);
    if (G_.rows() > 0)
      rhs.noalias() += G_.transpose() * rz.cwiseProduct(winv_);
    dx = llt_.solve(rhs);
    dy = (A_ * dx - ry) / delta_;
    dz = (G_ * dx - rz).cwiseProduct(winv_);
  }

private:
  const Problem &pb_;
  Mat P_, A_, G_, M_;
  Vec winv_;
  double delta_ = 1.0;
  Eigen::LLT<Mat> llt_;
};

} // namespace

std::unique_ptr<KKT> makeDenseKKT(const Problem &problem) {
  return std::make_unique<DenseKKT>(problem);
}

} // namespace scaly::qp
