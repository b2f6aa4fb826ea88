//===- HeapPolicy.cpp - keep freed heap memory in the process -------------===//
//
// Each in-process compile allocates and frees some megabytes (Clang's AST,
// LLVM's IR and machine code), and a pattern of a large derivative is a few
// megabytes of index arrays. With glibc's defaults, freed memory at the top
// of the heap goes back to the kernel, and blocks from 128 KiB up get their
// own mapping, unmapped again on free; the next compile touches all of it
// afresh. A page touched for the first time costs a page fault, which on
// virtual machines like ours costs 10-15 us per 4 KiB page: 2-5 ms of every
// compile. Keeping freed memory for reuse removes that cost (about 10% of
// trace -> callable, bench/scale.py), at the price of a process holding
// on to up to 32 MiB of freed heap.
//
//===----------------------------------------------------------------------===//

#include "HeapPolicy.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

/// Whether the user already chose malloc settings through the environment
/// (glibc reads them at startup; the policy must not override them).
bool userChoseMallocSettings() {
  const char *tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables && std::strstr(tunables, "glibc.malloc."))
    return true;
  for (const char *name : {"MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
                           "MALLOC_MMAP_MAX_"})
    if (std::getenv(name))
      return true;
  return false;
}

} // namespace

bool scaly::python::applyHeapPolicy() {
#if defined(__GLIBC__)
  const char *off = std::getenv("SCALY_HEAP_POLICY");
  if ((off && std::strcmp(off, "0") == 0) || userChoseMallocSettings())
    return false;
  // Both settings together: setting either one alone also stops glibc from
  // raising the mapping threshold by itself, which would leave every block
  // from 128 KiB up mapped and unmapped on each use.
  return mallopt(M_MMAP_THRESHOLD, kKeptHeapBytes) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kKeptHeapBytes) == 1;
#else
  return false; // other C libraries keep their own policy
#endif
}
