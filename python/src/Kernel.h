//===- Kernel.h - the fast numerical call type ----------------------------===//
#ifndef SCALY_PYTHON_KERNEL_H
#define SCALY_PYTHON_KERNEL_H

#include <Python.h>

namespace scaly::python {
/// Registers `scaly._runtime.Kernel` on `module`; imports NumPy's C API.
int registerKernelType(PyObject *module);
} // namespace scaly::python

#endif
