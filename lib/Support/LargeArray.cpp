//===- LargeArray.cpp - huge-page mappings for large arrays, reused -------===//

#include "scaly/Support/LargeArray.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <new>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace scaly::large_array {

#if defined(__linux__) && defined(MADV_HUGEPAGE)
namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kThreshold = size_t(256) << 10;
/// Freed mappings kept for reuse: a Hessian at n = 10^5 holds about 10 MiB
/// of such arrays at once.
constexpr size_t kCacheLimit = size_t(32) << 20;

/// Bytes mapped for an array of `bytes`: whole huge pages.
size_t mappedBytes(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

struct Cache {
  std::mutex lock;
  std::vector<std::pair<void *, size_t>> free; ///< (mapping, mapped bytes)
  size_t bytes = 0;
};

Cache &cache() {
  static Cache *c = new Cache; // never destroyed: arrays may be freed at exit
  return *c;
}

/// A kept mapping of at least `size` bytes and at most twice that, smallest
/// first (null if none).
void *reuse(size_t size) {
  Cache &c = cache();
  std::lock_guard<std::mutex> hold(c.lock);
  auto best = c.free.end();
  for (auto it = c.free.begin(); it != c.free.end(); ++it)
    if (it->second >= size && it->second <= 2 * size &&
        (best == c.free.end() || it->second < best->second))
      best = it;
  if (best == c.free.end())
    return nullptr;
  void *p = best->first;
  // A larger mapping serves a smaller array: what it holds beyond is
  // unmapped now so that release() sees the size it expects.
  if (best->second > size)
    munmap(static_cast<char *>(p) + size, best->second - size);
  c.bytes -= best->second;
  c.free.erase(best);
  return p;
}

void *mapAligned(size_t size) {
  // One huge page more than needed, so that a 2 MiB boundary falls inside;
  // the parts before and after it are given back at once.
  void *raw = mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    throw std::bad_alloc();
  auto begin = reinterpret_cast<uintptr_t>(raw);
  uintptr_t aligned = (begin + kHugePage - 1) & ~(uintptr_t(kHugePage) - 1);
  if (aligned > begin)
    munmap(raw, aligned - begin);
  if (size_t after = begin + size + kHugePage - (aligned + size))
    munmap(reinterpret_cast<void *>(aligned + size), after);
  madvise(reinterpret_cast<void *>(aligned), size, MADV_HUGEPAGE); // advice: may be refused
  return reinterpret_cast<void *>(aligned);
}

} // namespace

void *allocate(size_t bytes) {
  if (bytes < kThreshold)
    return ::operator new(bytes);
  size_t size = mappedBytes(bytes);
  if (void *p = reuse(size))
    return p;
  return mapAligned(size);
}

void release(void *p, size_t bytes) {
  if (bytes < kThreshold) {
    ::operator delete(p);
    return;
  }
  size_t size = mappedBytes(bytes);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> hold(c.lock);
    if (c.bytes + size <= kCacheLimit) {
      c.free.emplace_back(p, size);
      c.bytes += size;
      return;
    }
  }
  munmap(p, size);
}

size_t cachedBytes() {
  Cache &c = cache();
  std::lock_guard<std::mutex> hold(c.lock);
  return c.bytes;
}

#else

void *allocate(size_t bytes) { return ::operator new(bytes); }
void release(void *p, size_t) { ::operator delete(p); }
size_t cachedBytes() { return 0; }

#endif

} // namespace scaly::large_array
