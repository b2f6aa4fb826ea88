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
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace scaly::c {

/// Read-only tables (prog.table) a module uses: `static const` arrays
/// (emitc.global) defined once each before the procedures, tables of the
/// same C text shared.
class Tables {
public:
  /// The C expression pointing to the table of `values` (a cast drops the
  /// const: tables are only read, through the module's plain pointers).
  std::string use(mlir::ElementsAttr values);
  /// Builds each table's emitc.global at `b`, in order of first use.
  void define(mlir::OpBuilder &b, mlir::Location loc) const;
  bool empty() const { return tables.empty(); }

private:
  struct Table {
    std::string name;
    mlir::ElementsAttr values;
  };
  /// Table names by element type and initializer text.
  llvm::StringMap<std::string> names;
  std::vector<Table> tables;
};

} // namespace scaly::c

#endif
