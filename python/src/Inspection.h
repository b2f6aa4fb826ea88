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

#include <string>
#include <vector>

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

/// A Python value read as an attribute of an expression op (Graph.op), with
/// no MLIR object made yet (so no context lock is held while Python runs).
struct AttributeValue {
  enum Kind { None, Bool, Int, Float, Text, Ints, Bools } kind = None;
  std::vector<int64_t> ints;
  double real = 0;
  std::string text;
};
/// int (or NumPy integer), float, bool, a list of ints or of bools, or a str
/// of MLIR attribute text; throws std::invalid_argument naming `op` and
/// `name` otherwise.
AttributeValue readAttribute(const std::string &op, const std::string &name,
                             pybind11::handle value);
/// The attribute of `value` in `ctx` (hold the context lock).
mlir::Attribute toAttribute(mlir::MLIRContext &ctx, const std::string &op,
                            const std::string &name, const AttributeValue &value);

/// expr_module, expr_graph, jacobian_pattern, set_output_sparsity and the colourings.
void bindInspection(pybind11::module_ &m);

} // namespace scaly::python

#endif
