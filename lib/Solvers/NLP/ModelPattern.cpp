//===- ModelPattern.cpp - the pattern of the SQP model's Hessian ----------===//

#include "ModelPattern.h"

#include <map>
#include <utility>

namespace scaly::nlp {

void ModelPattern::build(const Oracles &o, bool bfgsPattern) {
  const int n = o.n;
  bfgs = bfgsPattern;
  // The upper triangle: the transpose of the lower one, plus the whole
  // diagonal (delta I goes there); BFGS fills the whole triangle.
  std::vector<std::map<int, int>> columns(n); // column -> row -> Hessian entry (-1: none)
  for (int j = 0; j < n; ++j) {
    columns[j][j] = -1;
    if (bfgsPattern)
      for (int i = 0; i < j; ++i)
        columns[j][i] = -1;
  }
  // J'J's pattern too: convexify (Sqp.cpp) may add rho J_A'J_A.
  std::vector<std::vector<std::pair<int, int>>> rows(o.m); // row -> (column, entry)
  if (!bfgs) {
    for (int j = 0; j < n; ++j)
      for (int k = o.jacColptr[j]; k < o.jacColptr[j + 1]; ++k)
        rows[o.jacRowind[k]].push_back({j, k});
    for (const auto &row : rows)
      for (auto [k, a] : row)
        for (auto [l, b] : row)
          if (k < l)
            columns[l].emplace(k, -1);
    for (int j = 0; j < n; ++j)
      for (int k = o.hessColptr[j]; k < o.hessColptr[j + 1]; ++k)
        columns[o.hessRowind[k]][j] = k; // lower (i, j) is upper (j, i)
  }
  colptr.assign(1, 0);
  rowind.clear();
  hessToP.assign(o.hessNnz(), -1);
  diagP.assign(n, -1);
  for (int j = 0; j < n; ++j) {
    for (auto [i, k] : columns[j]) {
      if (k >= 0)
        hessToP[k] = (int)rowind.size();
      if (i == j)
        diagP[j] = (int)rowind.size();
      rowind.push_back(i);
    }
    colptr.push_back((int32_t)rowind.size());
  }
  // The Hessian's own entries and the diagonal, and P on them alone.
  hessianEntry.assign(rowind.size(), 0);
  for (int k : hessToP)
    if (k >= 0)
      hessianEntry[k] = 1;
  for (int k : diagP)
    hessianEntry[k] = 1;
  hColptr.assign(1, 0);
  hRowind.clear();
  hFromP.clear();
  for (int j = 0; j < n; ++j) {
    for (int k = colptr[j]; k < colptr[j + 1]; ++k)
      if (hessianEntry[k]) {
        hRowind.push_back(rowind[k]);
        hFromP.push_back(k);
      }
    hColptr.push_back((int32_t)hRowind.size());
  }
  // Where each product of two entries of a row of J lands in P.
  rowStart.assign(1, 0);
  products.clear();
  for (const auto &row : rows) {
    for (auto [k, a] : row)
      for (auto [l, b] : row)
        if (k <= l) {
          int pos = colptr[l];
          while (rowind[pos] != k)
            ++pos;
          products.push_back({a, b, pos});
        }
    rowStart.push_back((int)products.size());
  }
}

} // namespace scaly::nlp
