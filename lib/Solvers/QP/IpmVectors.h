//===- IpmVectors.h - vector helpers of the interior-point iteration -*- C++ -*-===//
//
// Norms, gathers and scatters through index lists, sums in a chosen
// precision, step lengths, and the iteration's acceptance thresholds:
// shared by Ipm.cpp (the iteration) and Convergence.cpp (residuals,
// convergence and infeasibility). Private to libscaly_qp.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_SOLVERS_QP_IPMVECTORS_H
#define SCALY_SOLVERS_QP_IPMVECTORS_H

#include "Ipm.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace scaly::qp::ipm {
/// The largest magnitude of a vector or of an expression (evaluated on the
/// fly: no temporary; a maximum is exact in any order).
template <typename E> inline double infNorm(const Eigen::MatrixBase<E> &v) {
  return v.size() ? v.template lpNorm<Eigen::Infinity>() : 0.0;
}

/// A solve that stops unconverged is "acceptable" when its best iterate was
/// within this factor of every tolerance.
inline constexpr double acceptableFactor = 1e3;

/// How far (times its penalty) the iterate may run from a proximal centre
/// before that is read as evidence of infeasibility.
inline constexpr double infeasibilityThreshold = 0.9;

/// out = x[index], into out's storage.
inline void gatherInto(const std::vector<int> &index, const Vec &x, Vec &out) {
  out.resize((Eigen::Index)index.size());
  for (size_t k = 0; k < index.size(); ++k)
    out[k] = x[index[k]];
}

/// out[index] += sign * v, for a vector or an expression (its entries
/// computed as they are added: no temporary).
template <typename E>
inline void scatterAdd(const std::vector<int> &index, const Eigen::MatrixBase<E> &v, Vec &out,
                double sign) {
  for (size_t k = 0; k < index.size(); ++k)
    out[index[k]] += sign * v.coeff((Eigen::Index)k);
}

/// a'b summed in T: long double (extended precision, one sum in order) or
/// double (four interleaved partial sums, which overlap).
template <typename T> inline T dotIn(const Vec &a, const Vec &b) {
  if constexpr (std::is_same_v<T, long double>) {
    long double sum = 0.0L;
    for (int i = 0; i < a.size(); ++i)
      sum += (long double)a[i] * b[i];
    return sum;
  } else {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    const int size = (int)a.size(), body = size & ~3;
    int i = 0;
    for (; i < body; i += 4) {
      s0 += a[i] * b[i];
      s1 += a[i + 1] * b[i + 1];
      s2 += a[i + 2] * b[i + 2];
      s3 += a[i + 3] * b[i + 3];
    }
    for (; i < size; ++i)
      s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
  }
}

/// x'Px for P given by its upper triangle, summed in T as dotIn does.
template <typename T> inline T quadraticForm(const Csc &upper, const Vec &x) {
  if constexpr (std::is_same_v<T, long double>) {
    long double sum = 0.0L;
    for (int j = 0; j < upper.cols; ++j)
      for (int k = upper.colptr[j]; k < upper.colptr[j + 1]; ++k) {
        int i = upper.rowind[k];
        long double term = (long double)upper.values[k] * x[i] * x[j];
        sum += i == j ? term : 2.0L * term;
      }
    return sum;
  } else {
    // Per column, sum_i P_ij x_i (the diagonal entry counted once, the
    // others twice: each stands for two) in its own sum, times x_j.
    double s0 = 0.0, s1 = 0.0;
    const int *rowind = upper.rowind.data();
    const double *values = upper.values.data();
    for (int j = 0; j < upper.cols; ++j) {
      double off = 0.0, diag = 0.0;
      for (int k = upper.colptr[j]; k < upper.colptr[j + 1]; ++k) {
        int i = rowind[k];
        if (i == j)
          diag += values[k] * x[i];
        else
          off += values[k] * x[i];
      }
      double column = (2.0 * off + diag) * x[j];
      if (j & 1)
        s1 += column;
      else
        s0 += column;
    }
    return s0 + s1;
  }
}

/// Largest step in [0, 1] keeping v + alpha dv >= 0.
inline double maxStep(const Vec &v, const Vec &dv, double alpha) {
  for (int i = 0; i < v.size(); ++i)
    if (dv[i] < 0)
      alpha = std::min(alpha, -v[i] / dv[i]);
  return alpha;
}

} // namespace scaly::qp::ipm

#endif
