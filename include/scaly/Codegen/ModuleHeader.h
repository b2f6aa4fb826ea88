//===- ModuleHeader.h - the model's header as declarations -------*- C++ -*-===//
//
// The header of a rendered module (<name>.h, or <name>.hpp for lang="cpp")
// is a module of declarations: emitc.include and bodiless emitc.func for
// what EmitC 19 says, the cdecl dialect for the rest (macros and index
// tables, include guard, extern "C" blocks, aligned structs, C++ namespaces
// and constants, comments). The C printer prints it like any other module.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CODEGEN_MODULEHEADER_H
#define SCALY_CODEGEN_MODULEHEADER_H

#include "scaly/Codegen/RenderModule.h"
#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>
#include <vector>

namespace scaly::codegen {

/// C type of a buffer element: bool buffers hold uint8_t, none is void.
std::string elementCType(mlir::Type t);

/// An input or output as the header describes it.
struct Port {
  std::string name;
  llvm::SmallVector<int64_t> shape;
  mlir::Type element;
  /// A sparse output's pattern: {nrow, ncol, colind, row} (null: dense).
  mlir::DictionaryAttr sparse = {};
};

/// Ports of an entry, read from its expr.func before lowering.
struct EntryPorts {
  std::string name;
  std::vector<Port> ins, outs;
};

/// A sparse output's index table as its module carries it: the values (a
/// module built for an export), or only their count (one built for the JIT).
struct IndexTable {
  std::optional<llvm::ArrayRef<int32_t>> values;
  int64_t length = 0;
};
IndexTable indexTable(mlir::DictionaryAttr sparse, llvm::StringRef name);
/// The names of a sparse output's index tables, in order.
llvm::SmallVector<llvm::StringRef> indexTableNames(mlir::DictionaryAttr sparse);

/// The header of a module whose entries are `procs` (their ports `ports`,
/// their struct fields in `rendered`): the recipe comment, include guard
/// (named after `moduleName`), status codes, one section per entry in C or
/// for lang="cpp" in C++, and with `casadi` the declarations of its
/// functions.
mlir::OwningOpRef<mlir::ModuleOp> headerModule(llvm::StringRef moduleName,
                                               llvm::ArrayRef<prog::ProcOp> procs,
                                               const std::vector<EntryPorts> &ports,
                                               llvm::ArrayRef<RenderedEntry> rendered,
                                               llvm::StringRef recipe,
                                               const RenderOptions &options,
                                               mlir::ModuleOp casadi = {});

/// About how many characters the header's index tables print to (room to
/// reserve: the tables can be megabytes).
size_t headerTablesSize(const std::vector<EntryPorts> &ports, const RenderOptions &options);

} // namespace scaly::codegen

#endif
