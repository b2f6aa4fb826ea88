//===- Loops.h - C variables for the carried values of scf.for ----*- C++ -*-===//
//
// A value an scf.for carries from one iteration to the next is a C variable
// declared before the loop, `T v = init;` (an emitc.variable followed by the
// assignment of its init value, which the C printer prints as one
// declaration). In the body the carried block argument reads the variable;
// at the end of the body the yielded values are assigned to the variables,
// all at once (a yield that swaps two values must work); after the loop the
// loop's results read the variables.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_LOOPS_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_LOOPS_H

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/IR/Builders.h"

namespace scaly::c {

/// Which carried values of `loop` anything reads: its result, an op of the
/// body other than the yield, or the yield for another carried value that is
/// read. The others get no variable (a variable only ever assigned would be
/// "set but not used" in C).
llvm::SmallVector<bool> liveCarried(mlir::scf::ForOp loop);

/// One variable per carried value, declared at the builder's insertion point
/// and initialized with `inits[k]` (EmitC values; cast to `types[k]` when
/// their C type differs). A null init (a value nothing reads) gets no
/// variable: its entry in the result is null.
llvm::SmallVector<mlir::Value> declareCarried(mlir::OpBuilder &b, mlir::Location loc,
                                              llvm::ArrayRef<mlir::Type> types,
                                              llvm::ArrayRef<mlir::Value> inits);

/// The end of an iteration of the loop whose EmitC body is `body`: each
/// non-null `vars[k]` takes `next[k]`, with the semantics of a parallel
/// assignment. A value that may read a variable assigned before it in this
/// list (directly, or through an expression of `body` the C printer may
/// print at the assignment) is first copied into a fresh variable declared
/// before any assignment; `v = v;` is left out.
void assignCarried(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> vars,
                   llvm::ArrayRef<mlir::Value> next, mlir::Block *body);

} // namespace scaly::c

#endif
