//===- RetainedMemory.cpp - the cache of large blocks ---------------------===//

#include "scaly/Support/RetainedMemory.h"

#include <array>
#include <mutex>

namespace scaly {
namespace {

/// Blocks are rounded up to a power of two, so that a block freed by one
/// call fits the next call's request of about the same size.
constexpr unsigned kClasses = 48;

struct Cache {
  std::mutex mutex;
  std::array<std::vector<void *>, kClasses> free;
  std::size_t bytes = 0;
};

Cache &cache() {
  static Cache *c = new Cache; // never destroyed: vectors may outlive static destructors
  return *c;
}

unsigned sizeClass(std::size_t bytes) {
  unsigned k = 0;
  while ((std::size_t(1) << k) < bytes)
    ++k;
  return k;
}

} // namespace

void *allocateRetained(std::size_t bytes) {
  if (bytes < kRetainedMinimum)
    return ::operator new(bytes);
  unsigned k = sizeClass(bytes);
  if (k >= kClasses)
    return ::operator new(bytes);
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (!c.free[k].empty()) {
      void *b = c.free[k].back();
      c.free[k].pop_back();
      c.bytes -= std::size_t(1) << k;
      return b;
    }
  }
  return ::operator new(std::size_t(1) << k);
}

void releaseRetained(void *block, std::size_t bytes) noexcept {
  if (!block)
    return;
  unsigned k = sizeClass(bytes);
  if (bytes < kRetainedMinimum || k >= kClasses) {
    ::operator delete(block);
    return;
  }
  Cache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    std::size_t size = std::size_t(1) << k;
    if (c.bytes + size <= kRetainedLimit) {
      try {
        c.free[k].push_back(block);
        c.bytes += size;
        return;
      } catch (...) {
      }
    }
  }
  ::operator delete(block);
}

std::size_t retainedBytes() {
  Cache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.bytes;
}

} // namespace scaly
