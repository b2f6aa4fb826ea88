//===- BodyTranslator.h - program-dialect procedure bodies to EmitC -*- C++ -*-===//
//
// The op-by-op translation of a procedure's body (BodyTranslator.cpp), and
// the C types both it and the procedure-level translation use.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_BODYTRANSLATOR_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_BODYTRANSLATOR_H

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace scaly::c {

class Helpers;
class LaneSupport;
class Tables;
class VectorTypes;

/// C's `void`, `int` (the ABI's iw, mem and status) and `char` (byte offsets).
mlir::Type voidType(mlir::MLIRContext *ctx);
mlir::Type intType(mlir::MLIRContext *ctx);
mlir::Type charType(mlir::MLIRContext *ctx);
/// Bytes of one element as C stores it (void, an opaque type here, counts 1).
int64_t emittedElementBytes(mlir::Type t);
/// An element type as C has it (none: void).
mlir::Type convertElement(mlir::Type t);
/// A `!prog.ptr<T>` as an EmitC pointer; other types as they are.
mlir::Type convertPtr(mlir::Type t);

/// What a body's translation registers as it goes: vector typedefs, the
/// module's C helpers, constant tables and lane support.
struct BodyRegistries {
  VectorTypes &vectors;
  Helpers &helpers;
  Tables &tables;
  LaneSupport &lanes;
};

/// Translates the ops of `body` (a procedure's block, without its
/// terminator) at the builder's insertion point. `map` holds the EmitC
/// values of the procedure's arguments and receives those of its ops.
mlir::LogicalResult translateBody(mlir::OpBuilder &b, mlir::IRMapping &map,
                                  const BodyRegistries &registries, bool c99, mlir::Block &body);

} // namespace scaly::c

#endif
