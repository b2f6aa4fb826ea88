//===- ScalarOps.h - scalar forms of expression ops -------------*- C++ -*-===//
//
// Builders of the scalar (arith / math) ops the lowering emits for one
// element of an expression op. Private to Conversion/ExprToProgram.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_EXPRTOPROGRAM_SCALAROPS_H
#define SCALY_CONVERSION_EXPRTOPROGRAM_SCALAROPS_H

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/Builders.h"

namespace scaly::lowering {

/// An arith.constant of element type `elem`.
mlir::Value constant(mlir::OpBuilder &b, mlir::Type elem, mlir::Attribute value,
                     mlir::Location loc);

/// The scalar form of elementwise op `op` on scalar operands `a`.
mlir::Value scalarOf(mlir::OpBuilder &b, mlir::Operation *op, llvm::ArrayRef<mlir::Value> a,
                     mlir::Location l);

/// Scalars combined by a reduction in the order the module's helpers use:
/// NumPy's pairwise blocking for float sums, left to right for the rest
/// (max and min propagate NaN); the identity when `in` is empty.
mlir::Value combine(mlir::OpBuilder &b, expr::ReduceKind kind, llvm::ArrayRef<mlir::Value> in,
                    mlir::Type elem, mlir::Location loc);
/// One step of a reduction: acc (op) x.
mlir::Value combine2(mlir::OpBuilder &b, expr::ReduceKind kind, mlir::Value acc, mlir::Value x,
                     mlir::Location l);

} // namespace scaly::lowering

#endif
