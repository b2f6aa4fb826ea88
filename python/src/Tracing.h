//===- Tracing.h - the tracing graph's bindings ---------------*- C++ -*-===//
//
// `scaly._scaly.Graph`: one binding per Python operator, each recording the
// user's file:line first; and `trace_call`, the one-call path of a traced
// Function applied to Exprs (a step of an unrolled loop).
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_PYTHON_TRACING_H
#define SCALY_PYTHON_TRACING_H

#include <pybind11/pybind11.h>

namespace scaly::python {

/// Registers Graph, trace_call and register_expr_class on `m`.
void bindGraph(pybind11::module_ &m);

} // namespace scaly::python

#endif
