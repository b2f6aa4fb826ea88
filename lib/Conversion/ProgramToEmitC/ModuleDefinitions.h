//===- ModuleDefinitions.h - the read-only tables a module defines -*- C++ -*-===//
//
// What scaly-program-to-emitc prints once per module before its procedures:
// the read-only tables of prog.table, each registered on first use. (The C
// helper functions of prog.reduce and prog.matmul: HelperFunctions.h.)
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_MODULEDEFINITIONS_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_MODULEDEFINITIONS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace scaly::c {

/// Read-only tables (prog.table) a module uses: `static const` arrays
/// (emitc.global) defined once each before the procedures, tables of the
/// same C text shared.
class Tables {
public:
  /// Registers the table of `values` (a name for each new one, in order of
  /// first use).
  void use(mlir::ElementsAttr values);
  /// The C expression pointing to the registered table of `values` (a cast
  /// drops the const: tables are only read, through the module's plain
  /// pointers). Only reads: procedures translated in parallel share it.
  std::string pointerTo(mlir::ElementsAttr values) const;
  /// Builds each table's emitc.global at `b`, in order of first use.
  void define(mlir::OpBuilder &b, mlir::Location loc) const;
  bool empty() const { return tables.empty(); }

private:
  struct Table {
    std::string name;
    mlir::ElementsAttr values;
  };
  /// The key of a table: its element type and initializer text.
  static std::string key(mlir::ElementsAttr values);
  /// Table names by key.
  llvm::StringMap<std::string> names;
  /// The C pointer to each registered attribute's table (attributes are
  /// uniqued: the key and its text are made once per table, not per read).
  llvm::DenseMap<mlir::Attribute, std::string> pointers;
  std::vector<Table> tables;
};

} // namespace scaly::c

#endif
