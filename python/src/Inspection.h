//===- Inspection.h - the extension's views of a traced function -*- C++ -*-===//
//
// Bindings that look at a traced function without rendering it: its
// expression module as text, its expression graph as data (scaly.viz), and
// the structural sparsity of its derivatives with the colourings
// (scaly.derivatives). They share the process's MLIR context with `render`.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_PYTHON_INSPECTION_H
#define SCALY_PYTHON_INSPECTION_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/MLIRContext.h"
#include <pybind11/pybind11.h>

namespace scaly::python {

/// Holds the lock of the shared context for a scope, taken as `render` takes
/// it: waiting without the GIL, so a render on another thread (which needs
/// the GIL back to finish) never deadlocks with us.
struct ContextGuard {
  ContextGuard();
  ~ContextGuard();
  ContextGuard(const ContextGuard &) = delete;
  ContextGuard &operator=(const ContextGuard &) = delete;
};

/// The process's MLIR context (hold a ContextGuard while using it).
mlir::MLIRContext &context();

/// A Python value as attribute `name` of expression op `op` (Graph.op): int,
/// float and bool as themselves, a list of ints or of bools as a dense array,
/// a str as MLIR attribute text. Throws std::invalid_argument otherwise.
mlir::Attribute toAttribute(mlir::MLIRContext &ctx, const std::string &op,
                            const std::string &name, pybind11::handle value);

/// expr_module, expr_graph, jacobian_pattern, set_output_sparsity and the colourings.
void bindInspection(pybind11::module_ &m);

} // namespace scaly::python

#endif
