//===- BuildModule.h - traced graph to the expression dialect -----*- C++ -*-===//
#ifndef SCALY_TRACE_BUILDMODULE_H
#define SCALY_TRACE_BUILDMODULE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "scaly/Trace/Graph.h"

namespace scaly::trace {

/// Builds one expr.func for `root` (first in the module) and one for every
/// Function it calls or maps, transitively. Distinct Functions that share a
/// Python name get distinct symbols (`f`, `f_1`, ...), and each call stays
/// bound to its own Function. A sparse output's `expr.sparse` result
/// attribute carries each index table's values, or with `tableValues` false
/// only its length (as i64): enough for a render without the tables, and no
/// megabytes of attributes kept by the context.
mlir::OwningOpRef<mlir::ModuleOp> buildExprModule(mlir::MLIRContext &ctx, const Function &root,
                                                  bool tableValues = true);

/// One module exporting every Function of `roots` (each an expr.func marked
/// `entry`, in this order) and the Functions they call. Entry names must be
/// distinct: a clash throws std::invalid_argument.
mlir::OwningOpRef<mlir::ModuleOp> buildExprModule(mlir::MLIRContext &ctx,
                                                  const std::vector<const Function *> &roots,
                                                  bool tableValues = true);

} // namespace scaly::trace

#endif
