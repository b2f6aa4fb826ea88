//===- EmitCBuilders.h - building C statements as EmitC ops --------*- C++ -*-===//
//
// What every hand-built EmitC function (the module's C helpers, the CasADi
// layer) is made of: a counted loop whose counter the C printer names, an
// if / else whose branches are filled by callbacks, and short names for the
// ops in between (EmitCBuilder).
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

/// Short names for the EmitC ops a hand-built C function (the module's C
/// helpers, the CasADi layer) is made of, at `loc`. Counts and positions are
/// C's `long long` (an opaque type: EmitC adds only integers and opaque
/// values to pointers, and `index` or `i64` would print as another type).
struct EmitCBuilder {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type idx = mlir::emitc::OpaqueType::get(b.getContext(), "long long");
  mlir::Type i1 = b.getI1Type();

  /// The `long long` constant `k`.
  mlir::Value index(int64_t k) {
    return b.create<mlir::emitc::ConstantOp>(
        loc, idx, mlir::emitc::OpaqueAttr::get(b.getContext(), std::to_string(k)));
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::AddOp>(loc, x.getType(), x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::MulOp>(loc, x.getType(), x, y);
  }
  mlir::Value cmp(mlir::emitc::CmpPredicate p, mlir::Value x, mlir::Value y) {
    return b.create<mlir::emitc::CmpOp>(loc, i1, p, x, y);
  }
  /// `p[i]` of a pointer or an array (a fresh op for each read and each
  /// write: a subscript used once prints in place).
  mlir::Value at(mlir::Value p, mlir::Value i) {
    mlir::Type t = p.getType();
    mlir::Type elem = mlir::isa<mlir::emitc::ArrayType>(t)
                          ? mlir::cast<mlir::emitc::ArrayType>(t).getElementType()
                          : mlir::cast<mlir::emitc::PointerType>(t).getPointee();
    return b.create<mlir::emitc::SubscriptOp>(loc, elem, p, mlir::ValueRange{i});
  }
  void assign(mlir::Value var, mlir::Value value) {
    b.create<mlir::emitc::AssignOp>(loc, var, value);
  }
  void ret(mlir::Value v = {}) { b.create<mlir::emitc::ReturnOp>(loc, v); }
  void ifElse(mlir::Value cond, llvm::function_ref<void()> then,
              llvm::function_ref<void()> otherwise = {}) {
    buildIfElse(b, loc, cond, then, otherwise);
  }
};

} // namespace scaly::c

#endif
