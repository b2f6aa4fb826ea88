//===- Tracing.h - the tracing graph's bindings ---------------*- C++ -*-===//
//
// `scaly._scaly.Graph`: one binding per Python operator, each recording the
// user's file:line first; and Expr.__getitem__ and Function.__call__ as C
// methods, the one-call paths of a step of an unrolled loop.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_PYTHON_TRACING_H
#define SCALY_PYTHON_TRACING_H

#include <pybind11/pybind11.h>

namespace scaly::python {

/// Registers Graph and install_fast_methods on `m`.
void bindGraph(pybind11::module_ &m);

} // namespace scaly::python

#endif
