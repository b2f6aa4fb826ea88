//===- CachedLLTTest.cpp - the SQP's cached Cholesky test against Eigen's ---===//
//
// CachedLLT (lib/Solvers/NLP/CachedLLT.h) analyses a pattern once and then
// must decide "positive definite" exactly as Eigen's SimplicialLLT does, for
// every set of values on that pattern, and again after a new analysis for a
// new pattern.
//
//===----------------------------------------------------------------------===//

#include "CachedLLT.h"

#include <Eigen/Dense>
#include <gtest/gtest.h>

#include <random>

namespace {

using SpMat = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

/// A random upper-triangular pattern (the whole diagonal, each entry above it
/// with probability `density`), as column pointers and row indices.
void randomPattern(int n, double density, std::mt19937 &rng, std::vector<int32_t> &colptr,
                   std::vector<int32_t> &rowind) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  colptr.assign(1, 0);
  rowind.clear();
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i)
      if (u(rng) < density)
        rowind.push_back(i);
    rowind.push_back(j);
    colptr.push_back((int32_t)rowind.size());
  }
}

bool eigenDecides(int n, const std::vector<int32_t> &colptr, const std::vector<int32_t> &rowind,
                  const std::vector<double> &values) {
  Eigen::Map<const SpMat> upper(n, n, (int)values.size(), colptr.data(), rowind.data(),
                                values.data());
  Eigen::SimplicialLLT<SpMat, Eigen::Upper, Eigen::AMDOrdering<int>> llt;
  llt.compute(upper);
  return llt.info() == Eigen::Success;
}

/// The smallest eigenvalue of the symmetric matrix with this upper triangle.
double smallestEigenvalue(int n, const std::vector<int32_t> &colptr,
                          const std::vector<int32_t> &rowind, const std::vector<double> &values) {
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int j = 0; j < n; ++j)
    for (int k = colptr[j]; k < colptr[j + 1]; ++k)
      M(rowind[k], j) = M(j, rowind[k]) = values[k];
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(M).eigenvalues()[0];
}

TEST(CachedLLT, DecidesAsEigenOnEveryValueSetOfAPattern) {
  std::mt19937 rng(29);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 6; ++trial) {
    const int n = 20 + 15 * trial;
    std::vector<int32_t> colptr, rowind;
    randomPattern(n, 0.08, rng, colptr, rowind);
    scaly::nlp::CachedLLT llt;
    llt.analyze(n, colptr, rowind); // once per pattern
    int definite = 0, indefinite = 0;
    for (int set = 0; set < 40; ++set) {
      std::vector<double> values(rowind.size());
      for (double &v : values)
        v = g(rng);
      // Shift the diagonal around the smallest eigenvalue: clearly
      // indefinite, clearly definite, and within rounding of singular.
      double lambda = smallestEigenvalue(n, colptr, rowind, values);
      double shift = -lambda + (set % 4 == 0 ? -0.5 : set % 4 == 1 ? 0.5
                                : set % 4 == 2 ? 1e-15 : -1e-15);
      for (int j = 0; j < n; ++j)
        values[colptr[j + 1] - 1] += shift; // the diagonal ends each column
      bool expected = eigenDecides(n, colptr, rowind, values);
      EXPECT_EQ(llt.factor(values.data()), expected) << "n " << n << " set " << set;
      (expected ? definite : indefinite) += 1;
    }
    EXPECT_GT(definite, 0);
    EXPECT_GT(indefinite, 0);
  }
}

TEST(CachedLLT, KnownEntriesDecideAsEigenOnTheWholePattern) {
  // Values only on a known part of the pattern (the diagonal and a random
  // half of the rest), zero elsewhere: the short factorization decides as
  // Eigen does on the whole pattern, near singular too.
  std::mt19937 rng(32);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 6; ++trial) {
    const int n = 20 + 15 * trial;
    std::vector<int32_t> colptr, rowind;
    randomPattern(n, 0.1, rng, colptr, rowind);
    std::vector<char> known(rowind.size());
    for (int j = 0; j < n; ++j)
      for (int k = colptr[j]; k < colptr[j + 1]; ++k)
        known[k] = rowind[k] == j || u(rng) < 0.5;
    scaly::nlp::CachedLLT whole, part;
    whole.analyze(n, colptr, rowind);
    part.analyze(n, colptr, rowind, &known);
    int definite = 0, indefinite = 0;
    for (int set = 0; set < 40; ++set) {
      std::vector<double> values(rowind.size());
      for (size_t k = 0; k < values.size(); ++k)
        values[k] = known[k] ? g(rng) : 0.0;
      double lambda = smallestEigenvalue(n, colptr, rowind, values);
      double shift = -lambda + (set % 4 == 0 ? -0.5 : set % 4 == 1 ? 0.5
                                : set % 4 == 2 ? 1e-15 : -1e-15);
      for (int j = 0; j < n; ++j)
        values[colptr[j + 1] - 1] += shift;
      bool expected = eigenDecides(n, colptr, rowind, values);
      EXPECT_EQ(part.factor(values.data()), expected) << "n " << n << " set " << set;
      EXPECT_EQ(whole.factor(values.data()), expected) << "n " << n << " set " << set;
      (expected ? definite : indefinite) += 1;
    }
    EXPECT_GT(definite, 0);
    EXPECT_GT(indefinite, 0);
  }
}

TEST(CachedLLT, ANewPatternIsAnalysedAgain) {
  std::mt19937 rng(30);
  std::normal_distribution<double> g(0.0, 1.0);
  scaly::nlp::CachedLLT llt;
  for (int pattern = 0; pattern < 3; ++pattern) {
    const int n = 30 + 7 * pattern;
    std::vector<int32_t> colptr, rowind;
    randomPattern(n, 0.1 + 0.05 * pattern, rng, colptr, rowind);
    llt.analyze(n, colptr, rowind);
    for (int set = 0; set < 10; ++set) {
      std::vector<double> values(rowind.size());
      for (double &v : values)
        v = g(rng);
      for (int j = 0; j < n; ++j)
        values[colptr[j + 1] - 1] += set % 2 ? 0.0 : 2.0 * n; // diagonally dominant or not
      EXPECT_EQ(llt.factor(values.data()), eigenDecides(n, colptr, rowind, values));
    }
  }
}

} // namespace
