//===- GroupByKey.h - a counting sort shared by the sparsity code -*- C++ -*-===//
//
// Internal to lib/Dialect/Expr/Analysis: the analysis builds compressed
// columns with it, the colourings transpose patterns with it.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_LIB_DIALECT_EXPR_ANALYSIS_GROUPBYKEY_H
#define SCALY_LIB_DIALECT_EXPR_ANALYSIS_GROUPBYKEY_H

#include <cstdint>
#include <vector>

namespace scaly::expr {

/// Entries grouped by key (a counting sort): `forEach(emit)` calls
/// emit(key, value) for every entry, the same way both times it is called;
/// `start` gets keys + 1 offsets and `values` each key's values in the
/// order they were emitted, in 32 bits as the patterns (SparsityPattern):
/// the callers check first that the values and the entry count fit.
template <typename ForEach>
void groupByKey(int64_t keys, ForEach forEach, std::vector<int32_t> &start,
                std::vector<int32_t> &values) {
  start.assign(keys + 1, 0);
  forEach([&](int64_t key, int64_t) { ++start[key + 1]; });
  for (int64_t k = 0; k < keys; ++k)
    start[k + 1] += start[k];
  values.resize(start[keys]);
  // start[k] serves as key k's cursor, ending at key k + 1's start; shifted
  // back after (no separate array of cursors).
  forEach([&](int64_t key, int64_t value) { values[start[key]++] = static_cast<int32_t>(value); });
  for (int64_t k = keys; k > 0; --k)
    start[k] = start[k - 1];
  start[0] = 0;
}

} // namespace scaly::expr

#endif
