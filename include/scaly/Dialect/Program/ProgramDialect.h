//===- ProgramDialect.h - Scaly program dialect -------------------*- C++ -*-===//
#ifndef SCALY_DIALECT_PROGRAM_PROGRAMDIALECT_H
#define SCALY_DIALECT_PROGRAM_PROGRAMDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "scaly/Dialect/Program/ProgramDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "scaly/Dialect/Program/ProgramTypes.h.inc"

#define GET_OP_CLASSES
#include "scaly/Dialect/Program/ProgramOps.h.inc"

#include "scaly/Dialect/Program/CountedLoop.h"

namespace scaly::prog {
/// Bytes of one buffer element as C stores it: bools as uint8_t, and 1 for
/// `none` (void*, whose sizes count bytes).
int64_t elementBytes(mlir::Type element);

/// The buffer a pointer points into: `ptr` with every prog.offset removed.
mlir::Value rootOf(mlir::Value ptr);
} // namespace scaly::prog

#endif
