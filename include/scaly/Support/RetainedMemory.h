//===- RetainedMemory.h - large buffers kept for reuse ----------*- C++ -*-===//
//
// The sparsity analysis and the colourings build arrays of megabytes at
// n = 10^5, call after call. Returned to the system when freed (glibc hands
// back large blocks), each such array costs a page fault per 4 KiB when the
// next call takes it again; on the virtual machines Scaly is measured on
// that is about 1.5 ms per megabyte, more than the work on it. Vectors with
// the RetainingAllocator keep their large blocks in a process-wide cache
// (bounded) and take them back from it.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_SUPPORT_RETAINEDMEMORY_H
#define SCALY_SUPPORT_RETAINEDMEMORY_H

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

namespace scaly {

/// At least `bytes` bytes, from the cache when it holds a block of that
/// size class. Blocks below kRetainedMinimum come from operator new.
void *allocateRetained(std::size_t bytes);
/// Give back a block of `bytes` (as requested) to the cache, or to the
/// system when the cache is full.
void releaseRetained(void *block, std::size_t bytes) noexcept;
/// Bytes the cache holds now (for tests).
std::size_t retainedBytes();

/// Smaller blocks are cheap to allocate: the cache holds none.
constexpr std::size_t kRetainedMinimum = 64 * 1024;
/// The most the cache holds; a block that would exceed it is freed.
constexpr std::size_t kRetainedLimit = std::size_t(256) << 20;

/// A stateless allocator over the cache.
template <typename T> struct RetainingAllocator {
  using value_type = T;
  RetainingAllocator() = default;
  template <typename U> RetainingAllocator(const RetainingAllocator<U> &) {}
  T *allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T))
      throw std::bad_array_new_length();
    return static_cast<T *>(allocateRetained(n * sizeof(T)));
  }
  void deallocate(T *p, std::size_t n) noexcept { releaseRetained(p, n * sizeof(T)); }
  template <typename U> bool operator==(const RetainingAllocator<U> &) const { return true; }
  template <typename U> bool operator!=(const RetainingAllocator<U> &) const { return false; }
};

template <typename T> using RetainedVector = std::vector<T, RetainingAllocator<T>>;
/// Index tables (patterns, colourings, dependency sets' starts).
using IndexVector = RetainedVector<int64_t>;

} // namespace scaly

#endif
