//===- HeapPolicy.h - keep freed heap memory in the process ------*- C++ -*-===//
//
// See HeapPolicy.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_PYTHON_HEAPPOLICY_H
#define SCALY_PYTHON_HEAPPOLICY_H

namespace scaly::python {

/// Asks glibc's malloc to serve blocks below kHeapBlockBytes from the heap
/// instead of fresh mappings and to keep up to kKeptTopBytes free at the
/// heap's top, unless the user chose malloc settings or set
/// SCALY_HEAP_POLICY to 0, off, false or no. Returns whether both settings
/// took. Called once, when the extension loads.
bool applyHeapPolicy();

/// Blocks from this size up keep their own mapping: 4 MiB.
constexpr int kHeapBlockBytes = 4 << 20;
/// Free memory at the top of the heap kept for reuse: 32 MiB.
constexpr int kKeptTopBytes = 32 << 20;

} // namespace scaly::python

#endif // SCALY_PYTHON_HEAPPOLICY_H
