//===- EmitCBuilders.h - building C statements as EmitC ops --------*- C++ -*-===//
//
// The two statement shapes every hand-built EmitC function (the module's C
// helpers, the CasADi layer) is made of: a counted loop whose counter the C
// printer names, and an if / else whose branches are filled by callbacks.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_EMITCBUILDERS_H
#define SCALY_TARGET_EMITCBUILDERS_H

#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"

namespace scaly::c {

/// `for (name = lower; name < upper; name += step) { body(name) }`, built at
/// the builder's insertion point; the builder stays after the loop.
inline mlir::emitc::ForOp buildLoop(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lower,
                                    mlir::Value upper, mlir::Value step, llvm::StringRef name,
                                    llvm::function_ref<void(mlir::Value)> body) {
  auto loop = b.create<mlir::emitc::ForOp>(loc, lower, upper, step);
  loop->setAttr(kNameAttr, b.getStringAttr(name));
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(loop.getBody()->getTerminator());
  body(loop.getInductionVar());
  return loop;
}

/// `if (cond) { then() } else { otherwise() }` (no else without
/// `otherwise`); the builder stays after it.
inline void buildIfElse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
                        llvm::function_ref<void()> then,
                        llvm::function_ref<void()> otherwise = {}) {
  auto branch = b.create<mlir::emitc::IfOp>(loc, cond, /*addThenBlock=*/true,
                                            /*addElseBlock=*/static_cast<bool>(otherwise));
  mlir::OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&branch.getThenRegion().front());
  then();
  b.create<mlir::emitc::YieldOp>(loc);
  if (otherwise) {
    b.setInsertionPointToEnd(&branch.getElseRegion().front());
    otherwise();
    b.create<mlir::emitc::YieldOp>(loc);
  }
}

} // namespace scaly::c

#endif
