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

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace scaly::codegen {

enum class WasmExportKind {
  Pointers, // <module>__<entry>: the five-argument ABI on the host's buffers
  Struct,   // <module>__<entry>__struct: typed structs by address
  Scalar,   // <module>__<entry>__scalar: scalars by value (all-scalar entries)
  Table,    // <module>__<entry>__<field>_<table>: a sparse index table's address
  Layout,   // <module>__scaly_layout: the compiled layout table's address
};

/// "pointers", "struct", "scalar", "table" or "layout".
const char *kindName(WasmExportKind kind);

/// One function the shim exports, as C declares it.
struct WasmExport {
  std::string entry; // the entry it belongs to ("" for the layout table)
  WasmExportKind kind;
  std::string detail; // a table's <field>_<table>
  std::string name;   // the export name, also its C name
  std::string result;
  std::vector<std::pair<std::string, std::string>> params; // (C type, name)
  /// `result name(type name, ...)`.
  std::string signature() const;
};

/// The shim of a module as EmitC: its C file, its header, and every export
/// (in the order the shim defines them) as they declare it.
struct WasmShim {
  mlir::OwningOpRef<mlir::ModuleOp> shim, header, alloc;
  std::vector<WasmExport> exports;
};

/// The EmitC modules of `module`'s shim (<module>_wasm.c) and header
/// (<module>_wasm.h), built in `ctx`; the C printer prints them.
WasmShim buildWasmShim(mlir::MLIRContext *ctx, const RenderedModule &module);

/// The shim printed: its C, its header and its exports; `error` is not
/// empty when they could not be printed (a bug in Scaly).
struct WasmShimText {
  /// <module>_wasm.c, <module>_wasm.h, and scaly_alloc.c (the allocation
  /// exports of a standalone module: the same for every module).
  std::string shim, header, alloc;
  std::vector<WasmExport> exports;
  std::string error;
};

/// Builds (in a context of its own) and prints the shim of `module`.
WasmShimText renderWasm(const RenderedModule &module);

/// Every export of the shim of `module`, in the order it defines them.
std::vector<WasmExport> wasmExportList(const RenderedModule &module);

/// Why `entry` gets no direct scalar export ("" when it gets one).
std::string noScalarExportReason(const RenderedEntry &entry);

/// Why `module`'s names cannot make distinct export names ("" when they can).
std::string wasmNameProblem(const RenderedModule &module);

/// The shim C file (<module>_wasm.c) for `module`; renderWasm's error in
/// `error`.
std::string renderWasmShim(const RenderedModule &module, std::string &error);

} // namespace scaly::codegen

#endif
