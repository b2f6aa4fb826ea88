//===- RetainedMemoryTest.cpp - the cache of large blocks -----------------===//

#include "scaly/Support/RetainedMemory.h"

#include <gtest/gtest.h>

using namespace scaly;

TEST(RetainedMemory, ALargeBlockFreedIsTheNextOneOfItsSize) {
  // 1.5 MB and 1.9 MB share the 2 MiB size class: the second vector takes
  // the block the first gave back, with its values intact to overwrite.
  const int64_t *first;
  {
    IndexVector a(200000, 7);
    first = a.data();
  }
  size_t held = retainedBytes();
  EXPECT_GE(held, size_t(2) << 20);
  IndexVector b(240000, 1);
  EXPECT_EQ(b.data(), first);
  EXPECT_EQ(retainedBytes(), held - (size_t(2) << 20));
  EXPECT_EQ(b[239999], 1);
}

TEST(RetainedMemory, SmallBlocksAreNotCachedAndTheCacheIsBounded) {
  size_t before = retainedBytes();
  { IndexVector small(100, 1); }
  EXPECT_EQ(retainedBytes(), before);
  {
    // Twice the limit in 32 MiB blocks: the cache keeps at most the limit.
    std::vector<IndexVector> many(2 * kRetainedLimit / (size_t(32) << 20));
    for (IndexVector &v : many)
      v.reserve(size_t(4) << 20); // 32 MiB each, never touched
  }
  EXPECT_LE(retainedBytes(), kRetainedLimit);
  EXPECT_GT(retainedBytes(), before);
}
