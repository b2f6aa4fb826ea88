//===- IndexArithmetic.h - element offsets folded as they are built -*- C++ -*-===//
//
// The program dialect's index arithmetic is i64 `arith` with nsw (C prints
// it plainly). The lowering and the loop passes build offsets with these
// helpers, which fold what is constant as they go, so both build the same
// ops for the same index.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_DIALECT_PROGRAM_INDEXARITHMETIC_H
#define SCALY_DIALECT_PROGRAM_INDEXARITHMETIC_H

#include "mlir/IR/Builders.h"

namespace scaly::prog {

/// An index: a constant, or an i64 SSA value.
struct Ix {
  mlir::Value v;
  int64_t c = 0;
  bool isConst() const { return !v; }
};

/// The value of `i`, materializing a constant.
mlir::Value ixValue(mlir::OpBuilder &b, Ix i, mlir::Location loc);

/// a * scale + c, folded when constant (no op for a scale of 1 or an addend
/// of 0).
Ix mulAdd(mlir::OpBuilder &b, Ix a, int64_t scale, Ix c, mlir::Location loc);

/// The row-major position of `idx` in an array of `shape`.
Ix linear(mlir::OpBuilder &b, llvm::ArrayRef<Ix> idx, llvm::ArrayRef<int64_t> shape,
          mlir::Location loc);

} // namespace scaly::prog

#endif
