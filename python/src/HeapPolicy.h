//===- HeapPolicy.h - keep freed heap memory in the process ------*- C++ -*-===//
//
// See HeapPolicy.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_PYTHON_HEAPPOLICY_H
#define SCALY_PYTHON_HEAPPOLICY_H

namespace scaly::python {

/// Asks glibc's malloc to keep freed memory (up to kKeptHeapBytes) and to
/// serve blocks below that size from the heap instead of fresh mappings,
/// unless the user chose malloc settings or set SCALY_HEAP_POLICY=0.
/// Returns whether the policy was applied. Called once, when the extension
/// loads.
bool applyHeapPolicy();

/// The bytes of freed heap the policy keeps, and the size from which blocks
/// are mapped on their own: 32 MiB.
constexpr int kKeptHeapBytes = 32 << 20;

} // namespace scaly::python

#endif // SCALY_PYTHON_HEAPPOLICY_H
