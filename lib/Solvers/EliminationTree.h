//===- EliminationTree.h - the reach of a row in an elimination tree ------===//
//
// Shared by the QP's LDL^T (QP/SparseKKT.cpp) and the SQP's Cholesky test
// (NLP/CachedLLT.h): the nonzero pattern of row k of a Cholesky-type factor
// is the union of the paths up the elimination tree from each entry of
// column k above the diagonal (SuiteSparse's ereach).
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_SOLVERS_ELIMINATIONTREE_H
#define SCALY_SOLVERS_ELIMINATIONTREE_H

namespace scaly::solvers {

/// Adds the path from `i` up the elimination tree `parent` to the first node
/// already marked `k` (marking each node on it) to the stack
/// `pattern[top..)`, nearest the root deepest, and returns the new top. The
/// front of `pattern` is used as scratch below `top`.
inline int reachFrom(int i, int k, const int *parent, int *mark, int *pattern, int top) {
  int len = 0;
  for (; mark[i] != k; i = parent[i]) {
    pattern[len++] = i;
    mark[i] = k;
  }
  while (len > 0)
    pattern[--top] = pattern[--len];
  return top;
}

} // namespace scaly::solvers

#endif // SCALY_SOLVERS_ELIMINATIONTREE_H
