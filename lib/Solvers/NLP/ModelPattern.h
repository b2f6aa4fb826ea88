//===- ModelPattern.h - the pattern of the SQP model's Hessian --*- C++ -*-===//
//
// The upper triangle P in which the SQP's QP model takes its Hessian,
// H + delta I (+ rho J_A'J_A when convexify adds it; BFGS: dense), where
// each entry of H and of the diagonal goes in it, and where the products of
// two entries of a row of J land. And P on the Hessian's own entries and the
// diagonal alone: the model's pattern while convexify adds no J'J term.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_NLP_MODELPATTERN_H
#define SCALY_SOLVERS_NLP_MODELPATTERN_H

#include "NLPInternal.h"

#include <cstdint>
#include <vector>

namespace scaly::nlp {

struct ModelPattern {
  bool bfgs = false;
  std::vector<int32_t> colptr, rowind; // P
  std::vector<int> hessToP, diagP;     // per entry of H, per diagonal: its entry of P
  // Per row of J, the products J_ik J_il it adds to P's entry (k, l), k <= l.
  struct Product {
    int a, b, pos;
  };
  std::vector<int> rowStart;
  std::vector<Product> products;
  // Per entry of P: on the Hessian's pattern or the diagonal. P on those
  // entries alone, and where each comes from in P.
  std::vector<char> hessianEntry;
  std::vector<int32_t> hColptr, hRowind;
  std::vector<int> hFromP;

  void build(const Oracles &o, bool bfgs);
};

} // namespace scaly::nlp

#endif // SCALY_SOLVERS_NLP_MODELPATTERN_H
