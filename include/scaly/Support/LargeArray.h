//===- LargeArray.h - storage for arrays that grow with a model -*- C++ -*-===//
//
// Sparsity patterns, colourings and index tables hold a few values per
// stored derivative entry: megabytes at n = 10^5, filled once and soon
// dropped. On a virtual machine the first write to each 4 KiB page is a trap
// that costs 10-15 us (measured on Scaly's build machines), so such arrays
// cost more in page faults than in the work that fills them. From 256 KiB,
// LargeArrayAllocator maps the memory itself, 2 MiB aligned, and asks the
// kernel for transparent huge pages (one fault per 2 MiB; where the kernel
// has none to give, the pages are ordinary ones). Freed mappings are kept
// for the next array, up to a few tens of MiB, as malloc keeps freed memory:
// a second build of the same size touches no new page. Smaller arrays take
// the usual operator new.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_SUPPORT_LARGEARRAY_H
#define SCALY_SUPPORT_LARGEARRAY_H

#include <cstddef>
#include <vector>

namespace scaly {

namespace large_array {
/// Storage for `bytes` (std::bad_alloc when there is none).
void *allocate(size_t bytes);
/// Gives back what allocate(bytes) returned.
void release(void *p, size_t bytes);
/// Bytes of freed mappings kept for reuse (for tests and benchmarks).
size_t cachedBytes();
} // namespace large_array

/// A std::allocator for arrays that may be large (see the file comment).
/// Stateless: any two compare equal, so vectors using it move and swap as
/// with std::allocator.
template <typename T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <typename U>
  LargeArrayAllocator(const LargeArrayAllocator<U> &) {}
  T *allocate(size_t n) { return static_cast<T *>(large_array::allocate(n * sizeof(T))); }
  void deallocate(T *p, size_t n) { large_array::release(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const LargeArrayAllocator<U> &) const { return true; }
  template <typename U>
  bool operator!=(const LargeArrayAllocator<U> &) const { return false; }
};

/// A vector whose storage grows with a model's size: patterns, colourings,
/// index tables.
template <typename T>
using LargeVector = std::vector<T, LargeArrayAllocator<T>>;

} // namespace scaly

#endif
