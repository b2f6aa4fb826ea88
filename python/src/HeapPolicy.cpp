//===- HeapPolicy.cpp - keep freed heap memory in the process -------------===//
//
// Each in-process compile allocates and frees some megabytes (Clang's AST,
// LLVM's IR and machine code), and a pattern of a large derivative is a few
// megabytes of index arrays. With glibc's defaults, a fresh process puts
// every block from 128 KiB up in a mapping of its own, unmapped on free, and
// gives freed memory at the top of the heap back to the kernel; the next
// compile touches all of it afresh. A page touched for the first time costs
// a page fault, which on virtual machines like ours costs 10-15 us per
// 4 KiB page: 2-5 ms of every compile. glibc raises both thresholds by
// itself as blocks are freed, up to 32 MiB for mappings and 64 MiB kept at
// the top; the policy sets those values from the start (about 8% off trace
// -> callable in bench/scale.py). Setting any threshold stops glibc's own
// adjusting, so both are set, at the values it would reach: a lower mapping
// threshold would map (and fault in) every large NumPy result afresh on
// each call. As under glibc's steady state, freed blocks between live ones
// stay resident until reused.
//
//===----------------------------------------------------------------------===//

#include "HeapPolicy.h"

#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <strings.h>

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

/// Whether SCALY_HEAP_POLICY turns the policy off.
bool turnedOff() {
  const char *setting = std::getenv("SCALY_HEAP_POLICY");
  if (!setting)
    return false;
  for (const char *off : {"0", "off", "false", "no"})
    if (strcasecmp(setting, off) == 0)
      return true;
  return false;
}

} // namespace

bool scaly::python::applyHeapPolicy() {
#if defined(__GLIBC__)
  if (turnedOff() || userChoseMallocSettings())
    return false;
  // Both settings: setting either one also stops glibc from raising the
  // mapping threshold by itself, which would leave every block from 128 KiB
  // up mapped and unmapped on each use.
  bool mapped = mallopt(M_MMAP_THRESHOLD, kHeapBlockBytes) == 1;
  bool trimmed = mallopt(M_TRIM_THRESHOLD, kKeptTopBytes) == 1;
  return mapped && trimmed;
#else
  return false; // other C libraries keep their own policy
#endif
}
