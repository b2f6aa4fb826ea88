//===- WasmShim.cpp - plain-name WebAssembly exports of a C module --------===//
//
// The shim is printed from the RenderedModule alone: the entries' ports,
// struct fields and sparse tables, and the signatures the emitter printed.
// Every export returns only after a successful call: a non-success status
// goes to the host's `scaly.error` import, then traps. The work is done in a
// noinline helper so that the exported function itself holds no shadow-stack
// frame when it traps (a trap skips the epilogue that would give the frame
// back, and the instance must stay usable after it).
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/WasmShim.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace scaly;
using namespace scaly::codegen;
using llvm::formatv;

namespace {

/// The C type an entry's pointers point to (unsigned char stands for the
/// bytes of a void* workspace).
std::string workElement(const RenderedEntry &e) {
  return e.pointerType == "void" ? "unsigned char" : e.pointerType;
}

bool hasValues(const RenderedPort &p) {
  for (int64_t d : p.shape)
    if (d == 0)
      return false;
  return true;
}

std::string paramList(const c::FunctionSignature &sig) {
  std::string s;
  for (const std::string &p : sig.params)
    s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "void" : s;
}

const char *kPrologue = R"C(#include <stddef.h>
#include <stdint.h>

/* The host's error import: it receives the message of a failed call (UTF-8,
 * `length` bytes); the shim then traps, and the host raises. */
__attribute__((import_module("scaly"), import_name("error")))
void scaly_wasm_error(int32_t status, const char* message, int32_t length);

)C";

/// The error helper: the message names the entry and the status.
std::string failHelper(llvm::StringRef m) {
  return formatv(R"C(static char scaly_shim_message[160];

static const char* scaly_shim_status_text(int status) {{
  switch (status) {{
  case SCALY_ERR_NULL_ABI: return "SCALY_ERR_NULL_ABI (arg or res is null)";
  case SCALY_ERR_NULL_WORK: return "SCALY_ERR_NULL_WORK (the workspace w is null)";
  case SCALY_ERR_NULL_RESULT: return "SCALY_ERR_NULL_RESULT (an output pointer is null)";
  case SCALY_ERR_NULL_INPUT: return "SCALY_ERR_NULL_INPUT (an input pointer is null)";
  default: return "unknown status";
  }
}

static int32_t scaly_shim_append(int32_t n, const char* text) {{
  for (; *text && n < (int32_t)sizeof scaly_shim_message; ++text)
    scaly_shim_message[n++] = *text;
  return n;
}

/* Report "<entry>: <status>" to the host, then trap. No local lives in
 * memory, so the trap leaves the shadow stack as it found it. */
__attribute__((noinline, cold, noreturn)) static void scaly_shim_fail(const char* entry, int status) {{
  int32_t n = scaly_shim_append(0, entry);
  n = scaly_shim_append(n, ": ");
  n = scaly_shim_append(n, scaly_shim_status_text(status));
  scaly_wasm_error(status, scaly_shim_message, n);
  __builtin_trap();
}

)C",
                 m)
      .str();
}

/// `arg` or `res` array initializer pointing into struct `s` (or at scalars
/// named a0, a1, ...).
std::string pointerArray(const std::vector<RenderedPort> &ports, llvm::StringRef elem,
                         bool isConst, llvm::StringRef structVar, llvm::StringRef scalarPrefix) {
  std::string s;
  for (auto [k, p] : llvm::enumerate(ports)) {
    std::string target = !hasValues(p)       ? "NULL"
                         : structVar.empty() ? formatv("&{0}{1}", scalarPrefix, k).str()
                                             : formatv("&{0}->{1}", structVar, p.field).str();
    if (target != "NULL")
      target = formatv("({0}{1}*){2}", isConst ? "const " : "", elem, target).str();
    s += (s.empty() ? "" : ", ") + target;
  }
  return s.empty() ? "NULL" : s;
}

/// The exports of one entry: pointers, struct, scalar (all-scalar entries)
/// and one per sparse index table.
std::vector<WasmExport> entryExportList(llvm::StringRef m, const RenderedEntry &e) {
  WasmExports names = wasmExports(m, e);
  std::string T = e.pointerType, n = e.name;
  std::vector<WasmExport> out;
  out.push_back({n, "pointers", "", names.pointers, "void",
                 {{"const " + T + "**", "arg"}, {T + "**", "res"}, {"int*", "iw"}, {T + "*", "w"},
                  {"int", "mem"}}});
  out.push_back({n, "struct", "", names.structs, "void",
                 {{n + "_out*", "out"}, {"const " + n + "_in*", "in"}}});
  if (allScalar(e)) {
    bool one = e.outputs.size() == 1;
    WasmExport x{n, "scalar", "", names.scalar, one ? e.outputs[0].cType : "void", {}};
    if (!one)
      x.params.push_back({n + "_out*", "out"});
    for (auto [k, p] : llvm::enumerate(e.inputs))
      x.params.push_back({p.cType, "a" + std::to_string(k)});
    out.push_back(std::move(x));
  }
  for (const RenderedPort &p : e.outputs)
    for (auto &[table, length] : p.tables) {
      std::string what = p.field + "_" + llvm::StringRef(table).lower();
      out.push_back({n, "table", what, (m + "__" + n + "__" + what).str(), "const int32_t*", {}});
    }
  return out;
}

const WasmExport &exportOf(const std::vector<WasmExport> &exports, llvm::StringRef kind,
                           llvm::StringRef detail = "") {
  for (const WasmExport &x : exports)
    if (x.kind == kind && x.detail == detail)
      return x;
  llvm_unreachable("every export the shim prints is listed");
}

/// The exports of one entry, and the statics they use.
std::string entryExports(llvm::StringRef m, const RenderedEntry &e, size_t index) {
  // The shim's own statics are scaly_shim_e<index>_*: entries cannot be named
  // scaly_*, and indices keep entries `a` and `a_struct` apart.
  std::string id = "scaly_shim_e" + std::to_string(index);
  WasmExports names = wasmExports(m, e);
  std::vector<WasmExport> exports = entryExportList(m, e);
  std::string T = e.pointerType;
  std::string n = e.name;
  std::string s = formatv("/* {0}: {1} input(s), {2} output(s). */\n", n, e.inputs.size(),
                          e.outputs.size());
  std::string work = "NULL";
  if (e.workspaceBytes > 0) {
    s += formatv("static _Alignas(64) {0} {1}_work[{2}_SZ_W];\n", workElement(e), id, n);
    work = id + "_work";
  }
  size_t nIn = std::max<size_t>(e.inputs.size(), 1), nOut = std::max<size_t>(e.outputs.size(), 1);

  // The five-argument ABI on the host's buffers; a null w uses the shim's.
  s += formatv(R"C(__attribute__((noinline)) static int {0}_call(const {2}** arg, {2}** res, int* iw, {2}* w, int mem) {{
  return {1}(arg, res, iw, {3}, mem);
}
__attribute__((export_name("{4}"))) {5} {{
  int status = {0}_call(arg, res, iw, w, mem);
  if (status != SCALY_SUCCESS) scaly_shim_fail("{1}", status);
}
)C",
               id, n, T, work == "NULL" ? std::string("w") : "w ? w : " + work, names.pointers,
               exportOf(exports, "pointers").signature())
           .str();

  // Typed structs by address: the inputs' copy, the outputs written in place.
  std::string inArray = pointerArray(e.inputs, T, true, "in", "");
  std::string outArray = pointerArray(e.outputs, T, false, "out", "");
  std::string unused; // a struct without values is not read
  if (inArray.find("in->") == std::string::npos)
    unused += "  (void)in;\n";
  if (outArray.find("out->") == std::string::npos)
    unused += "  (void)out;\n";
  s += formatv(R"C(__attribute__((noinline)) static int {0}_struct_call({1}_out* out, const {1}_in* in) {{
  const {2}* arg[{3}] = {{{4}};
  {2}* res[{5}] = {{{6}};
{9}  return {1}(arg, res, NULL, {7}, 0);
}
__attribute__((export_name("{8}"))) {10} {{
  int status = {0}_struct_call(out, in);
  if (status != SCALY_SUCCESS) scaly_shim_fail("{1}", status);
}
)C",
               id, n, T, nIn, inArray, nOut, outArray, work, names.structs, unused,
               exportOf(exports, "struct").signature())
           .str();

  if (allScalar(e)) {
    // Scalars by value; one result is returned (kept in a static, so the
    // export holds no stack frame), several are written through `out`.
    std::string params, args, inner;
    for (auto [k, p] : llvm::enumerate(e.inputs)) {
      params += formatv(", {0} a{1}", p.cType, k).str();
      args += formatv(", a{0}", k).str();
    }
    bool one = e.outputs.size() == 1;
    std::string resArray =
        one ? formatv("({0}*)&{1}_result", T, id).str()
            : pointerArray(e.outputs, T, false, "out", "");
    if (one)
      s += formatv("static {0} {1}_result;\n", e.outputs[0].cType, id);
    std::string outParam = one ? "" : formatv("{0}_out* out", n).str();
    std::string innerParams = outParam + (outParam.empty() && !params.empty() ? params.substr(2) : params);
    std::string innerArgs = (one ? "" : "out") + (one && !args.empty() ? args.substr(2) : args);
    s += formatv(R"C(__attribute__((noinline)) static int {0}_scalar_call({2}) {{
  const {3}* arg[{4}] = {{{5}};
  {3}* res[{6}] = {{{7}};
  return {1}(arg, res, NULL, {8}, 0);
}
)C",
                 id, n, innerParams.empty() ? "void" : innerParams, T, nIn,
                 pointerArray(e.inputs, T, true, "", "a"), nOut, resArray, work)
             .str();
    s += formatv(R"C(__attribute__((export_name("{0}"))) {1} {{
  int status = {3}_scalar_call({5});
  if (status != SCALY_SUCCESS) scaly_shim_fail("{4}", status);
{6}}
)C",
                 names.scalar, exportOf(exports, "scalar").signature(), "", id, n, innerArgs,
                 one ? "  return " + id + "_result;\n" : "")
             .str();
  }

  // The sparse outputs' index tables, as module variables with exported
  // addresses.
  for (const RenderedPort &p : e.outputs)
    for (auto &[table, length] : p.tables) {
      std::string lower = llvm::StringRef(table).lower();
      s += formatv(R"C(static const int32_t {7}_{2}_{3}[{4}] = {1}_{2}_{5};
__attribute__((export_name("{0}__{1}__{2}_{3}"))) {6} {{ return {7}_{2}_{3}; }
)C",
                   m, n, p.field, lower, length, table,
                   exportOf(exports, "table", (p.field + "_" + lower)).signature(), id)
               .str();
    }
  return s + "\n";
}

/// sizeof, _Alignof and offsetof of every typed struct, as the wasm32
/// compiler lays them out: {count, then per struct: size, align, fields,
/// offset of each field with values}.
std::string layoutTable(llvm::StringRef m, const RenderedModule &module) {
  std::string rows;
  int count = 0;
  for (const RenderedEntry &e : module.entries)
    for (auto [suffix, ports] : {std::pair{"in", &e.inputs}, std::pair{"out", &e.outputs}}) {
      std::string type = e.name + "_" + suffix;
      std::string offsets;
      int fields = 0;
      for (const RenderedPort &p : *ports)
        if (hasValues(p)) {
          offsets += formatv(", offsetof({0}, {1})", type, p.field).str();
          ++fields;
        }
      rows += formatv("  sizeof({0}), _Alignof({0}), {1}{2},\n", type, fields, offsets).str();
      ++count;
    }
  return formatv(R"C(/* The typed structs as this compiler lays them out, for the host's layout
 * check: the number of structs, then per struct (in the manifest's order)
 * sizeof, _Alignof, the number of fields with values and their offsets. */
static const uint32_t scaly_shim_layout_table[] = {{
  {1},
{2}};
__attribute__((export_name("{0}__scaly_layout"))) const uint32_t* {0}__scaly_layout(void) {{ return scaly_shim_layout_table; }
)C",
                 m, count, rows)
      .str();
}

} // namespace

std::string WasmExport::signature() const {
  std::string list;
  for (auto &[type, name] : params)
    list += (list.empty() ? "" : ", ") + type + " " + name;
  return result + " " + name + "(" + (list.empty() ? "void" : list) + ")";
}

std::vector<WasmExport> codegen::wasmExportList(const RenderedModule &module) {
  std::vector<WasmExport> out;
  for (const RenderedEntry &e : module.entries)
    for (WasmExport &x : entryExportList(module.name, e))
      out.push_back(std::move(x));
  out.push_back({"", "layout", "", module.name + "__scaly_layout", "const uint32_t*", {}});
  return out;
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

WasmExports codegen::wasmExports(llvm::StringRef module, const RenderedEntry &entry) {
  std::string base = (module + "__" + entry.name).str();
  return {base, base + "__struct", allScalar(entry) ? base + "__scalar" : ""};
}

bool codegen::allScalar(const RenderedEntry &entry) {
  if (entry.outputs.empty())
    return false;
  for (const auto *ports : {&entry.inputs, &entry.outputs})
    for (const RenderedPort &p : *ports)
      if (!p.shape.empty())
        return false;
  return true;
}

std::string codegen::renderWasmShim(const RenderedModule &module) {
  const std::string &m = module.name;
  std::string s = formatv("/* WebAssembly exports of the Scaly module {0} (generated; docs/wasm.md).\n"
                          " * Every global symbol of this object is named {0}__*: the entries\n"
                          " * below get internal linkage, so archives of different modules link\n"
                          " * into one instance. */\n",
                          m)
                      .str();
  s += kPrologue;
  for (const RenderedEntry &e : module.entries)
    for (const c::FunctionSignature &sig : module.functions)
      if (sig.name == e.name)
        s += formatv("static {0} {1}({2});\n", sig.result, sig.name, paramList(sig)).str();
  s += formatv("#include \"{0}.c\"\n\n", m).str();
  s += failHelper(m);
  for (auto [k, e] : llvm::enumerate(module.entries))
    s += entryExports(m, e, k);
  s += layoutTable(m, module);
  return s;
}
