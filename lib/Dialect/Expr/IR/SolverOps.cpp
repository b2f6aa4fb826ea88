//===- SolverOps.cpp - the expression dialect's solver calls ---------------===//
//
// Result types and verifiers of expr.qp_solve and expr.nlp_solve: a QP's
// compressed-column patterns, an NLP's bounds and multipliers, and the C
// name of the wrapper each call becomes.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

using namespace mlir;
using namespace scaly::expr;

//===----------------------------------------------------------------------===//
// QpSolveOp
//===----------------------------------------------------------------------===//

LogicalResult QpSolveOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                          ValueRange operands, DictionaryAttr,
                                          OpaqueProperties, RegionRange,
                                          SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 9)
    return failure();
  auto length = [&](unsigned k) { return numElements(operands[k].getType()); };
  Type f64 = Float64Type::get(ctx);
  for (int64_t size : {length(1), length(3), length(5), length(1)})
    inferred.push_back(RankedTensorType::get({size}, f64));
  return success();
}

/// A compressed-column pattern: `rows` x `cols`, ascending rows per column.
static LogicalResult verifyPattern(Operation *op, StringRef name, ArrayRef<int64_t> colptr,
                                   ArrayRef<int64_t> rowind, int64_t rows, int64_t cols,
                                   int64_t values, bool upper) {
  if ((int64_t)colptr.size() != cols + 1 || colptr.front() != 0)
    return op->emitOpError() << name << "_colptr must hold " << cols + 1
                             << " entries starting at 0";
  if (colptr.back() != (int64_t)rowind.size() || (int64_t)rowind.size() != values)
    return op->emitOpError() << name << " stores " << rowind.size() << " entries but "
                             << name << "_values has " << values;
  // The column pointers first, so that the rows are only read within bounds.
  for (int64_t j = 0; j < cols; ++j)
    if (colptr[j + 1] < colptr[j] || colptr[j + 1] > (int64_t)rowind.size())
      return op->emitOpError() << name << "_colptr decreases or passes the "
                               << rowind.size() << " stored entries at column " << j;
  for (int64_t j = 0; j < cols; ++j) {
    for (int64_t k = colptr[j]; k < colptr[j + 1]; ++k) {
      int64_t i = rowind[k];
      if (i < 0 || i >= rows || (upper && i > j) || (k > colptr[j] && i <= rowind[k - 1]))
        return op->emitOpError() << name << "_rowind[" << k << "] = " << i
                                 << " is out of order or outside the "
                                 << (upper ? "upper triangle" : "matrix");
    }
  }
  return success();
}

LogicalResult QpSolveOp::verify() {
  int64_t n = numElements(getC().getType()), p = numElements(getB().getType()),
          m = numElements(getHL().getType());
  for (Value v : getOperands())
    if (cast<RankedTensorType>(v.getType()).getRank() != 1 || !cast<RankedTensorType>(v.getType()).getElementType().isF64())
      return emitOpError("operands must be 1-D float64 arrays");
  if (numElements(getHU().getType()) != m)
    return emitOpError("h_l and h_u must have the same length");
  if (numElements(getXL().getType()) != n || numElements(getXU().getType()) != n)
    return emitOpError("x_l and x_u must have the length of c");
  if (failed(verifyPattern(*this, "P", getPColptr(), getPRowind(), n, n,
                           numElements(getPValues().getType()), true)) ||
      failed(verifyPattern(*this, "A", getAColptr(), getARowind(), p, n,
                           numElements(getAValues().getType()), false)) ||
      failed(verifyPattern(*this, "G", getGColptr(), getGRowind(), m, n,
                           numElements(getGValues().getType()), false)))
    return failure();
  if (getName().empty())
    return emitOpError("needs the C name of its solver wrapper");
  return success();
}

//===----------------------------------------------------------------------===//
// NlpSolveOp
//===----------------------------------------------------------------------===//

LogicalResult NlpSolveOp::inferReturnTypes(MLIRContext *ctx, std::optional<Location>,
                                           ValueRange operands, DictionaryAttr,
                                           OpaqueProperties, RegionRange,
                                           SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 8)
    return failure();
  auto length = [&](unsigned k) { return numElements(operands[k].getType()); };
  Type f64 = Float64Type::get(ctx);
  for (int64_t size : {length(0), length(4), length(0)})
    inferred.push_back(RankedTensorType::get({size}, f64));
  return success();
}

LogicalResult NlpSolveOp::verify() {
  for (Value v : getOperands())
    if (cast<RankedTensorType>(v.getType()).getRank() != 1 || !cast<RankedTensorType>(v.getType()).getElementType().isF64())
      return emitOpError("operands must be 1-D float64 arrays");
  auto length = [](Value v) { return numElements(v.getType()); };
  int64_t n = length(getX0()), m = length(getLbg());
  if (length(getLbx()) != n || length(getUbx()) != n || length(getLamX0()) != n)
    return emitOpError("lbx, ubx and lam_x0 must have the length of x0 (") << n << ")";
  if (length(getUbg()) != m || length(getLamG0()) != m)
    return emitOpError("ubg and lam_g0 must have the length of lbg (") << m << ")";
  if (getName().empty())
    return emitOpError("needs the C name of its solver wrapper");
  if (getSolver() != "ipopt" && getSolver() != "sqp")
    return emitOpError("solver must be \"ipopt\" or \"sqp\", got \"") << getSolver() << "\"";
  return success();
}
