//===- WasmShim.cpp - plain-name WebAssembly exports of a C module --------===//
//
// The shim is printed from the RenderedModule alone: the entries' ports,
// struct fields and sparse tables, and the signatures the emitter printed.
// Each export is one record (its declaration) plus its definition, built by
// the same function, so the header, the manifest and the shim cannot differ.
//
// Every export returns only after a successful call: a non-success status
// goes to the host's `scaly.error` import, then traps. The work is done in a
// noinline helper so that the exported function itself holds no shadow-stack
// frame when it traps (a trap skips the epilogue that would give the frame
// back, and the instance must stay usable after it). The shim's own statics
// are named scaly_shim_*: entries cannot be named scaly_* (ReservedNames).
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/WasmShim.h"
#include "scaly/Target/StatusCodes.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace scaly;
using namespace scaly::codegen;
using llvm::formatv;

namespace {

bool hasValues(const RenderedPort &p) {
  return llvm::all_of(p.shape, [](int64_t d) { return d != 0; });
}

std::string join(llvm::ArrayRef<std::string> items) {
  std::string s;
  for (const std::string &item : items)
    s += (s.empty() ? "" : ", ") + item;
  return s;
}

/// An export: its declaration, and the C that defines it (the statics and
/// the noinline helper it uses, then the exported function itself).
struct ShimExport {
  WasmExport decl;
  std::string definition;
};

/// The exported function: call `call`, report a failure, return `tail`.
std::string exported(const WasmExport &decl, llvm::StringRef entry, llvm::StringRef call,
                     llvm::StringRef tail = "") {
  return formatv("__attribute__((export_name(\"{0}\"))) {1} {{\n"
                 "  int status = {2};\n"
                 "  if (status != SCALY_SUCCESS) scaly_shim_fail(\"{3}\", status);\n{4}}\n",
                 decl.name, decl.signature(), call, entry, tail)
      .str();
}

/// What every export of one entry shares.
struct EntryShim {
  std::string module;
  const RenderedEntry &e;
  /// Prefix of this entry's statics: scaly_shim_e<index> (indices keep
  /// entries `a` and `a_struct` apart).
  std::string id;
  std::string T;    // the entry's pointer type: double, float or void
  std::string work; // the shim's workspace for the entry, or NULL

  EntryShim(llvm::StringRef module, const RenderedEntry &e, size_t index)
      : module(module.str()), e(e), id("scaly_shim_e" + std::to_string(index)),
        T(e.pointerType), work(e.workspaceBytes > 0 ? id + "_work" : "NULL") {}

  std::string exportName(llvm::StringRef suffix = "") const {
    return module + "__" + e.name + suffix.str();
  }

  /// The `arg` or `res` pointers of `ports`: each port's value at `address(k)`
  /// (NULL for a port without values).
  std::string pointers(const std::vector<RenderedPort> &ports, bool isConst,
                       llvm::function_ref<std::string(size_t)> address) const {
    std::vector<std::string> items;
    for (auto [k, p] : llvm::enumerate(ports))
      items.push_back(hasValues(p) ? formatv("({0}{1}*){2}", isConst ? "const " : "", T,
                                             address(k))
                                         .str()
                                   : "NULL");
    return items.empty() ? "NULL" : join(items);
  }

  std::string fieldOf(llvm::StringRef var, const std::vector<RenderedPort> &ports, size_t k) const {
    return ("&" + var + "->" + ports[k].field).str();
  }

  /// `const T* arg[n] = {...}; T* res[m] = {...}; return <entry>(...)`.
  std::string callBody(llvm::StringRef args, llvm::StringRef results) const {
    return formatv("  const {0}* arg[{1}] = {{{2}};\n  {0}* res[{3}] = {{{4}};\n"
                   "  return {5}(arg, res, NULL, {6}, 0);\n",
                   T, std::max<size_t>(e.inputs.size(), 1), args,
                   std::max<size_t>(e.outputs.size(), 1), results, e.name, work)
        .str();
  }

  ShimExport pointersExport() const {
    WasmExport decl{e.name, WasmExportKind::Pointers, "", exportName(), "void",
                    {{"const " + T + "**", "arg"}, {T + "**", "res"}, {"int*", "iw"},
                     {T + "*", "w"}, {"int", "mem"}}};
    std::string s;
    if (e.workspaceBytes > 0)
      s += formatv("static _Alignas(64) {0} {1}[{2}_SZ_W];\n",
                   T == "void" ? "unsigned char" : T, work, e.name);
    // A null w uses the shim's own workspace.
    s += formatv("__attribute__((noinline)) static int {0}_call(const {1}** arg, {1}** res, "
                 "int* iw, {1}* w, int mem) {{\n  return {2}(arg, res, iw, {3}, mem);\n}\n",
                 id, T, e.name, work == "NULL" ? "w" : "w ? w : " + work);
    s += exported(decl, e.name, id + "_call(arg, res, iw, w, mem)");
    return {decl, s};
  }

  ShimExport structExport() const {
    WasmExport decl{e.name, WasmExportKind::Struct, "", exportName("__struct"), "void",
                    {{e.name + "_out*", "out"}, {"const " + e.name + "_in*", "in"}}};
    std::string s = formatv("__attribute__((noinline)) static int {0}_struct_call({1}_out* out, "
                            "const {1}_in* in) {{\n",
                            id, e.name);
    // A struct without values is not read.
    if (!llvm::any_of(e.inputs, hasValues))
      s += "  (void)in;\n";
    if (!llvm::any_of(e.outputs, hasValues))
      s += "  (void)out;\n";
    s += callBody(pointers(e.inputs, true, [&](size_t k) { return fieldOf("in", e.inputs, k); }),
                  pointers(e.outputs, false,
                           [&](size_t k) { return fieldOf("out", e.outputs, k); }));
    s += "}\n" + exported(decl, e.name, id + "_struct_call(out, in)");
    return {decl, s};
  }

  /// Scalars by value; one result is returned (kept in a static, so the
  /// export holds no stack frame), several are written through `out`.
  ShimExport scalarExport() const {
    bool one = e.outputs.size() == 1;
    WasmExport decl{e.name, WasmExportKind::Scalar, "", exportName("__scalar"),
                    one ? e.outputs[0].cType : "void", {}};
    std::vector<std::string> args;
    if (!one) {
      decl.params.push_back({e.name + "_out*", "out"});
      args.push_back("out");
    }
    for (auto [k, p] : llvm::enumerate(e.inputs)) {
      decl.params.push_back({p.cType, "a" + std::to_string(k)});
      args.push_back("a" + std::to_string(k));
    }
    std::string params;
    for (auto &[type, name] : decl.params)
      params += (params.empty() ? "" : ", ") + type + " " + name;
    std::string result = id + "_result";
    std::string s = one ? formatv("static {0} {1};\n", e.outputs[0].cType, result).str() : "";
    s += formatv("__attribute__((noinline)) static int {0}_scalar_call({1}) {{\n", id,
                 params.empty() ? "void" : params);
    s += callBody(pointers(e.inputs, true, [](size_t k) { return "&a" + std::to_string(k); }),
                  one ? formatv("({0}*)&{1}", T, result).str()
                      : pointers(e.outputs, false,
                                 [&](size_t k) { return fieldOf("out", e.outputs, k); }));
    s += "}\n" + exported(decl, e.name, id + "_scalar_call(" + join(args) + ")",
                          one ? "  return " + result + ";\n" : "");
    return {decl, s};
  }

  /// The sparse outputs' index tables, as module variables with exported
  /// addresses.
  std::vector<ShimExport> tableExports() const {
    std::vector<ShimExport> out;
    for (const RenderedPort &p : e.outputs)
      for (auto &[table, length] : p.tables) {
        std::string what = p.field + "_" + llvm::StringRef(table).lower();
        WasmExport decl{e.name, WasmExportKind::Table, what, exportName("__" + what),
                        "const int32_t*", {}};
        std::string var = id + "_" + what;
        std::string s = formatv("static const int32_t {0}[{1}] = {2}_{3}_{4};\n", var, length,
                                e.name, p.field, table)
                            .str();
        s += formatv("__attribute__((export_name(\"{0}\"))) {1} {{ return {2}; }\n", decl.name,
                     decl.signature(), var);
        out.push_back({decl, s});
      }
    return out;
  }

  std::vector<ShimExport> all() const {
    std::vector<ShimExport> out = {pointersExport(), structExport()};
    if (noScalarExportReason(e).empty())
      out.push_back(scalarExport());
    for (ShimExport &t : tableExports())
      out.push_back(std::move(t));
    return out;
  }
};

const char *kErrorImport = R"C(/* The host's error import: it receives the message of a failed call (UTF-8,
 * `length` bytes); the shim then traps, and the host raises. */
__attribute__((import_module("scaly"), import_name("error")))
void scaly_wasm_error(int32_t status, const char* message, int32_t length);

)C";

/// The helper that reports to the host's error import and traps.
std::string errorHelpers() {
  std::string cases;
  for (const c::StatusCode &code : c::kStatusCodes)
    if (code.value != 0)
      cases += formatv("  case {0}: return \"{0} ({1})\";\n", code.name, code.meaning).str();
  return R"C(static char scaly_shim_message[160];

static const char* scaly_shim_status_text(int status) {
  switch (status) {
)C" + cases +
         R"C(  default: return "unknown status";
  }
}

static int32_t scaly_shim_append(int32_t n, const char* text) {
  for (; *text && n < (int32_t)sizeof scaly_shim_message; ++text)
    scaly_shim_message[n++] = *text;
  return n;
}

/* Report "<entry>: <status>" to the host, then trap. No local lives in
 * memory, so the trap leaves the shadow stack as it found it. */
__attribute__((noinline, cold, noreturn)) static void scaly_shim_fail(const char* entry, int status) {
  int32_t n = scaly_shim_append(0, entry);
  n = scaly_shim_append(n, ": ");
  n = scaly_shim_append(n, scaly_shim_status_text(status));
  scaly_wasm_error(status, scaly_shim_message, n);
  __builtin_trap();
}

)C";
}

/// sizeof, _Alignof and offsetof of every typed struct, as the wasm32
/// compiler lays them out: {count, then per struct: size, align, fields,
/// the offset of each field with values, then the size of each}.
ShimExport layoutExport(const RenderedModule &module) {
  WasmExport decl{"", WasmExportKind::Layout, "", module.name + "__scaly_layout",
                  "const uint32_t*", {}};
  std::string rows;
  int count = 0;
  for (const RenderedEntry &e : module.entries)
    for (auto [suffix, ports] : {std::pair{"in", &e.inputs}, std::pair{"out", &e.outputs}}) {
      std::string type = e.name + "_" + suffix;
      std::vector<std::string> offsets, sizes;
      for (const RenderedPort &p : *ports)
        if (hasValues(p)) {
          offsets.push_back(formatv("offsetof({0}, {1})", type, p.field).str());
          sizes.push_back(formatv("sizeof((({0}*)0)->{1})", type, p.field).str());
        }
      rows += formatv("  sizeof({0}), _Alignof({0}), {1}{2}{3}{2}{4},\n", type, offsets.size(),
                      offsets.empty() ? "" : ", ", join(offsets), join(sizes))
                  .str();
      ++count;
    }
  std::string s = formatv(R"C(/* The typed structs as this compiler lays them out, for the host's layout
 * check: the number of structs, then per struct (in the manifest's order)
 * sizeof, _Alignof, the number of fields with values, their offsets, then
 * their sizes in bytes. */
static const uint32_t scaly_shim_layout_table[] = {{
  {0},
{1}};
)C",
                          count, rows)
                      .str();
  s += formatv("__attribute__((export_name(\"{0}\"))) {1} {{ return scaly_shim_layout_table; }\n",
               decl.name, decl.signature());
  return {decl, s};
}

std::vector<ShimExport> shimExports(const RenderedModule &module) {
  std::vector<ShimExport> out;
  for (auto [k, e] : llvm::enumerate(module.entries))
    for (ShimExport &x : EntryShim(module.name, e, k).all())
      out.push_back(std::move(x));
  out.push_back(layoutExport(module));
  return out;
}

} // namespace

const char *codegen::kindName(WasmExportKind kind) {
  switch (kind) {
  case WasmExportKind::Pointers:
    return "pointers";
  case WasmExportKind::Struct:
    return "struct";
  case WasmExportKind::Scalar:
    return "scalar";
  case WasmExportKind::Table:
    return "table";
  case WasmExportKind::Layout:
    return "layout";
  }
  return "";
}

std::string WasmExport::signature() const {
  std::vector<std::string> list;
  for (auto &[type, pname] : params)
    list.push_back(type + " " + pname);
  return result + " " + name + "(" + (list.empty() ? "void" : join(list)) + ")";
}

std::vector<WasmExport> codegen::wasmExportList(const RenderedModule &module) {
  std::vector<WasmExport> out;
  for (ShimExport &x : shimExports(module))
    out.push_back(std::move(x.decl));
  return out;
}

std::string codegen::noScalarExportReason(const RenderedEntry &entry) {
  if (entry.outputs.empty())
    return "it has no output";
  for (auto [kind, ports] : {std::pair{"input", &entry.inputs}, std::pair{"output", &entry.outputs}})
    for (const RenderedPort &p : *ports)
      if (!p.shape.empty()) {
        std::vector<std::string> dims;
        for (int64_t d : p.shape)
          dims.push_back(std::to_string(d));
        return formatv("{0} '{1}' has shape ({2}{3}), not a scalar", kind, p.name, join(dims),
                       dims.size() == 1 ? "," : "")
            .str();
      }
  return "";
}

std::string codegen::wasmNameProblem(const RenderedModule &module) {
  // Export names are <module>__<entry>[__<kind>]: with no "__" inside either
  // name, and no module name ending in "_", two modules' names cannot meet.
  llvm::StringRef m = module.name;
  if (m.contains("__") || m.ends_with("_"))
    return "the module name '" + module.name +
           "' contains '__' or ends with '_'; WebAssembly export names are <module>__<entry>, "
           "so choose a module name without them";
  for (const RenderedEntry &e : module.entries)
    if (llvm::StringRef(e.name).contains("__"))
      return "entry '" + e.name + "' contains '__'; WebAssembly export names are " +
             module.name + "__<entry>[__struct|__scalar], so rename the function";
  return "";
}

std::string codegen::renderWasmShim(const RenderedModule &module) {
  const std::string &m = module.name;
  std::string s = formatv("/* WebAssembly exports of the Scaly module {0} (generated; docs/wasm.md).\n"
                          " * Every global symbol of this object is named {0}__*: the entries\n"
                          " * below get internal linkage, so archives of different modules link\n"
                          " * into one instance. */\n#include <stddef.h>\n#include <stdint.h>\n\n",
                          m)
                      .str();
  s += kErrorImport;
  // A static declaration before the source makes its entries internal.
  for (const RenderedEntry &e : module.entries)
    for (const c::FunctionSignature &sig : module.functions)
      if (sig.name == e.name)
        s += formatv("static {0} {1}({2});\n", sig.result, sig.name,
                     sig.params.empty() ? "void" : join(sig.params))
                 .str();
  s += formatv("#include \"{0}.c\"\n\n", m).str();
  s += errorHelpers();
  std::string entry;
  for (const ShimExport &x : shimExports(module)) {
    if (x.decl.entry != entry && !x.decl.entry.empty()) {
      entry = x.decl.entry;
      const RenderedEntry &e =
          *llvm::find_if(module.entries, [&](const RenderedEntry &r) { return r.name == entry; });
      s += formatv("\n/* {0}: {1} input(s), {2} output(s). */\n", entry, e.inputs.size(),
                   e.outputs.size());
    } else if (x.decl.entry.empty()) {
      s += "\n";
    }
    s += x.definition;
  }
  return s;
}

std::string codegen::renderWasmHeader(const RenderedModule &module) {
  std::string guard = "SCALY_" + llvm::StringRef(module.name).upper() + "_WASM_H";
  std::string s = formatv(R"C(/* The WebAssembly exports of the Scaly module {0} (generated; docs/wasm.md):
 * what a host's C code links against in lib{0}.a. Call these names; the
 * entries of {0}.h are internal to the archive. */
#ifndef {1}
#define {1}

#include "{0}.h"

#ifdef __cplusplus
extern "C" {{
#endif

)C",
                          module.name, guard)
                      .str();
  for (const WasmExport &x : wasmExportList(module))
    s += x.signature() + ";\n";
  return s + "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
}
