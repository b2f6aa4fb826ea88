//===- WasmShim.h - plain-name WebAssembly exports of a C module --*- C++ -*-===//
//
// A host that owns a WebAssembly instance links a Scaly module's object into
// it and calls the entries by plain export names. The shim is one C file
// that includes the module's source (so the entries become internal and the
// archive defines only <module>__* symbols) and adds, per entry, a pointer
// export, a typed-struct export and, for all-scalar entries, a direct scalar
// export; errors go to the host's `scaly.error` import, then trap.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CODEGEN_WASMSHIM_H
#define SCALY_CODEGEN_WASMSHIM_H

#include "scaly/Codegen/RenderModule.h"

#include <string>

namespace scaly::codegen {

/// The export names the shim gives one entry of module `module`.
struct WasmExports {
  std::string pointers; // <module>__<entry>: the five-argument ABI, no copy
  std::string structs;  // <module>__<entry>__struct: typed structs by address
  std::string scalar;   // <module>__<entry>__scalar: only for all-scalar entries
};
WasmExports wasmExports(llvm::StringRef module, const RenderedEntry &entry);

/// One function the shim exports, as C declares it.
struct WasmExport {
  std::string entry;  // the entry it belongs to ("" for the module's layout table)
  std::string kind;   // pointers, struct, scalar, table or layout
  std::string detail; // a table's <field>_<table>
  std::string name;   // the export name, also its C name
  std::string result;
  std::vector<std::pair<std::string, std::string>> params; // (C type, name)
  /// `result name(type name, ...)`.
  std::string signature() const;
};

/// Every export of the shim of `module`, in the order it defines them.
std::vector<WasmExport> wasmExportList(const RenderedModule &module);

/// <module>_wasm.h: the exports' declarations for a host's C code.
std::string renderWasmHeader(const RenderedModule &module);

/// Whether every input and output of `entry` is a scalar (shape ()).
bool allScalar(const RenderedEntry &entry);

/// Why `module`'s names cannot make distinct export names ("" when they can).
std::string wasmNameProblem(const RenderedModule &module);

/// The shim C file (<module>_wasm.c) for `module`.
std::string renderWasmShim(const RenderedModule &module);

} // namespace scaly::codegen

#endif
