//===- CDeclDialect.h - C declarations EmitC 19 cannot say --------*- C++ -*-===//
#ifndef SCALY_DIALECT_CDECL_CDECLDIALECT_H
#define SCALY_DIALECT_CDECL_CDECLDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h.inc"
#include "scaly/Dialect/CDecl/CDeclEnums.h.inc"

#define GET_OP_CLASSES
#include "scaly/Dialect/CDecl/CDeclOps.h.inc"

namespace scaly::cdecl {
/// A C identifier: a letter or underscore, then letters, digits, underscores.
bool isIdentifier(llvm::StringRef name);
} // namespace scaly::cdecl

#endif
