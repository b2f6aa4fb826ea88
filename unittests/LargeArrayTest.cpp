//===- LargeArrayTest.cpp - the allocator of pattern and table arrays -----===//

#include "scaly/Support/LargeArray.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

using scaly::LargeVector;
namespace large_array = scaly::large_array;

TEST(LargeArray, SmallAndLargeVectorsHoldTheirValues) {
  for (size_t n : {size_t(0), size_t(10), size_t(32767), size_t(32768), size_t(3) << 20}) {
    LargeVector<int64_t> v(n);
    std::iota(v.begin(), v.end(), int64_t(0));
    LargeVector<int64_t> copy = v;
    ASSERT_EQ(copy.size(), n);
    for (size_t i = 0; i < n; i += 4099)
      EXPECT_EQ(copy[i], static_cast<int64_t>(i));
  }
}

TEST(LargeArray, LargeArraysAreHugePageAligned) {
  // From 256 KiB an array is a mapping of its own, aligned for huge pages.
  LargeVector<int64_t> big(size_t(1) << 16); // 512 KiB
  EXPECT_EQ(reinterpret_cast<uintptr_t>(big.data()) % (uintptr_t(2) << 20), 0u);
}

TEST(LargeArray, FreedMappingsAreReusedUpToALimit) {
  size_t before = large_array::cachedBytes();
  const void *first;
  {
    LargeVector<int64_t> v(size_t(3) << 17, 1); // 3 MiB: two huge pages mapped
    first = v.data();
  }
  EXPECT_EQ(large_array::cachedBytes(), before + (size_t(4) << 20));
  {
    // The same size again takes the kept mapping, and gives it back after.
    LargeVector<int64_t> again(size_t(3) << 17, 2);
    EXPECT_EQ(static_cast<const void *>(again.data()), first);
    EXPECT_EQ(large_array::cachedBytes(), before);
    EXPECT_EQ(again[12345], 2);
  }
  // Many at once, then all freed: the cache keeps no more than its limit.
  {
    std::vector<LargeVector<int64_t>> many;
    for (int i = 0; i < 24; ++i)
      many.emplace_back(size_t(1) << 18, i); // 2 MiB each
  }
  EXPECT_LE(large_array::cachedBytes(), size_t(32) << 20);
}
