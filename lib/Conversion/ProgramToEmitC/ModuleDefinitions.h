//===- ModuleDefinitions.h - tables and C helpers a module defines -*- C++ -*-===//
//
// What scaly-program-to-emitc prints once per module before its procedures:
// the read-only tables of prog.table and the C helper functions of
// prog.reduce and prog.matmul, each registered on first use.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_MODULEDEFINITIONS_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_MODULEDEFINITIONS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

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

/// C helper functions (reductions, matrix products) a module uses, printed
/// once each before the procedures. Each is `static`, so only used ones are
/// emitted (an unused static function is a warning).
class Helpers {
public:
  /// Name of the helper for `kind` ("sum", "prod", "max", "min", "matmul")
  /// on elements of type `elem`, registering it.
  std::string use(llvm::StringRef kind, mlir::Type elem);
  /// Define the macro SCALY_NO_UNROLL (a Clang loop pragma; nothing under
  /// other compilers), printed before loops with c::kNoUnrollAttr.
  void useNoUnroll();
  /// The definitions, in the order first used.
  std::string definitions() const;
  /// Adds what `other` defines and this does not, in `other`'s order: the
  /// helpers of procedures translated apart, merged in procedure order, come
  /// out as if translated in one go.
  void append(const Helpers &other);

private:
  llvm::StringSet<> seen;
  /// (name, definition) in the order first used.
  std::vector<std::pair<std::string, std::string>> items;
  void add(const std::string &name, std::string definition);

  static std::string suffix(mlir::Type t);
  std::string define(llvm::StringRef kind, mlir::Type elem, const std::string &name);
};

} // namespace scaly::c

#endif
