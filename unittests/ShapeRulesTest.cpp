//===- ShapeRulesTest.cpp - shape rules against brute-force references ----===//

#include "scaly/Dialect/Expr/ShapeRules.h"

#include <gtest/gtest.h>

#include <random>

using namespace scaly::expr::shape;

namespace {

/// The row-major offsets of the elements a slice picks, in order.
std::vector<int64_t> pickedOffsets(const Shape &in, const Shape &out,
                                   const std::vector<int64_t> &starts,
                                   const std::vector<int64_t> &steps) {
  std::vector<int64_t> offsets;
  std::vector<int64_t> k(out.size(), 0);
  for (int64_t n = 0; n < count(out); ++n) {
    int64_t lin = 0;
    for (size_t d = 0; d < in.size(); ++d)
      lin = lin * in[d] + starts[d] + k[d] * steps[d];
    offsets.push_back(lin);
    for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
      if (++k[d] < out[d])
        break;
      k[d] = 0;
    }
  }
  return offsets;
}

// Whenever contiguousStart claims one run, the picked offsets are
// consecutive and it names the first (the rule is conservative: a run it
// cannot prove from the axes is copied, never misread). Every slice of
// small shapes, at random.
TEST(ShapeRules, ContiguousStartIsSound) {
  std::mt19937 rng(7);
  int runs = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    size_t rank = 1 + rng() % 3;
    Shape in(rank), out(rank);
    std::vector<int64_t> starts(rank), steps(rank);
    for (size_t d = 0; d < rank; ++d) {
      in[d] = 1 + rng() % 4;
      steps[d] = static_cast<int64_t>(rng() % 3) - 1;
      if (steps[d] == 0)
        steps[d] = 2;
      starts[d] = rng() % in[d];
      // The most elements that stay inside the axis from this start.
      int64_t room = steps[d] > 0 ? (in[d] - 1 - starts[d]) / steps[d] + 1
                                  : starts[d] / -steps[d] + 1;
      out[d] = 1 + rng() % room;
    }
    std::string error;
    slice(in, starts, steps, out, error);
    ASSERT_TRUE(error.empty()) << error;
    std::optional<int64_t> start = contiguousStart(in, out, starts, steps);
    if (!start)
      continue;
    std::vector<int64_t> offsets = pickedOffsets(in, out, starts, steps);
    for (size_t i = 1; i < offsets.size(); ++i)
      ASSERT_EQ(offsets[i], offsets[i - 1] + 1);
    EXPECT_EQ(*start, offsets.front());
    ++runs;
  }
  EXPECT_GT(runs, 100);
}

// The runs lowering relies on: a row (`X[2]`), a block of rows (`X[1:3]`),
// the whole array, a run inside one row; and what is not one: a column, every
// other row.
TEST(ShapeRules, ContiguousStartOfRowsAndColumns) {
  EXPECT_EQ(contiguousStart({4, 5}, {1, 5}, {2, 0}, {1, 1}), 10);
  EXPECT_EQ(contiguousStart({4, 5}, {2, 5}, {1, 0}, {1, 1}), 5);
  EXPECT_EQ(contiguousStart({4, 5}, {4, 5}, {0, 0}, {1, 1}), 0);
  EXPECT_EQ(contiguousStart({4, 5}, {1, 3}, {3, 1}, {1, 1}), 16);
  EXPECT_EQ(contiguousStart({4, 5}, {4, 1}, {0, 2}, {1, 1}), std::nullopt);
  EXPECT_EQ(contiguousStart({4, 5}, {2, 5}, {0, 0}, {2, 1}), std::nullopt);
}

} // namespace
