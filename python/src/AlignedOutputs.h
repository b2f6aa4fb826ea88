//===- AlignedOutputs.h - large output arrays on 64-byte boundaries --*- C++ -*-===//
//
// See AlignedOutputs.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_PYTHON_ALIGNEDOUTPUTS_H
#define SCALY_PYTHON_ALIGNEDOUTPUTS_H

#include <Python.h>
#include <cstddef>

namespace scaly::python {

/// Outputs from this size up start on a cache line: 1 MiB, the size from
/// which the generated C streams a transposed result past the caches, which
/// it does only into a 64-byte aligned buffer.
constexpr std::size_t kAlignedOutputBytes = 1 << 20;

/// A new C-contiguous NumPy array of `nd` dims and dtype `typenum` whose data
/// is 64-byte aligned. It owns its data like any other (NumPy frees it
/// through the allocator that made it). nullptr with a Python error set on
/// failure. Needs NumPy's C API imported by the extension.
PyObject *newAlignedArray(int nd, const Py_intptr_t *dims, int typenum);

} // namespace scaly::python

#endif // SCALY_PYTHON_ALIGNEDOUTPUTS_H
