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
/// heap's top: the thresholds glibc itself moves to once a process frees a
/// block of 32 MiB, set from the start. Not when the user chose malloc
/// settings or set SCALY_HEAP_POLICY to 0, off, false or no. Returns whether
/// both settings took. Called once, when the extension loads.
bool applyHeapPolicy();

/// Blocks from this size up keep their own mapping: 32 MiB.
constexpr int kHeapBlockBytes = 32 << 20;
/// Free memory at the top of the heap kept for reuse: 64 MiB.
constexpr int kKeptTopBytes = 64 << 20;

} // namespace scaly::python

#endif // SCALY_PYTHON_HEAPPOLICY_H
