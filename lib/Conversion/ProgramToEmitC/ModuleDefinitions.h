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
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace scaly::c {

/// Read-only tables (prog.table) a module uses: `static const` arrays printed
/// once each before the procedures, identical tables shared.
class Tables {
public:
  /// The C expression pointing to the table of `values` (a cast drops the
  /// const: tables are only read, through the module's plain pointers).
  std::string use(mlir::ElementsAttr values);
  const std::string &definitions() const { return text; }

private:
  llvm::StringMap<std::string> names;
  std::string text;
};

} // namespace scaly::c

#endif
