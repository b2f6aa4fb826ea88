//===- WasmShim.cpp - plain-name WebAssembly exports of a C module --------===//
//
// The shim is built from the RenderedModule alone (the entries' ports,
// struct fields and sparse tables, and the signatures the emitter printed)
// as an EmitC module, which the C printer prints like the model: emitc.func
// definitions of EmitC ops, emitc.func declarations (the host's import, the
// entries made static), emitc.global statics, emitc.include, and the cdecl
// ops of comments and of the header's guard and extern "C" block. Each
// export is one emitc.func: the header declares a copy of it and the
// manifest reads its signature, so the three cannot differ.
//
// Every export returns only after a successful call: a non-success status
// goes to the host's `scaly.error` import, then traps. The work is done in a
// noinline helper so that the exported function itself holds no shadow-stack
// frame when it traps (a trap skips the epilogue that would give the frame
// back, and the instance must stay usable after it). The shim's own statics
// are named scaly_shim_*: entries cannot be named scaly_* (ReservedNames).
//
// EmitC 19 has no switch, no loop but the counted one and no conditional on
// a pointer, and an array does not decay to a pointer: the status text is a
// chain of ifs, the message is appended in a counted loop, `w ? w : work`
// is `(w != NULL) ? w : &work[0]` (docs/wasm.md, "How the shim is made").
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/WasmShim.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"
#include "scaly/Target/StatusCodes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
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

/// Bytes of the message the shim reports to the host.
constexpr int64_t kMessageBytes = 160;

using c::CParam;

/// Builds the shim's ops: c::EmitCBuilder's and the shim's own.
struct ShimBuilder : c::EmitCBuilder {
  MLIRContext *ctx = b.getContext();
  Type cInt = emitc::OpaqueType::get(ctx, "int");
  Type chars = emitc::PointerType::get(emitc::OpaqueType::get(ctx, "char"));
  /// `static char scaly_shim_message[160]`: the message reported to the host.
  Type messageType = emitc::ArrayType::get({kMessageBytes}, emitc::OpaqueType::get(ctx, "char"));

  /// Makes `op`'s region a block and `body` build into it.
  void inRegion(Operation *op, function_ref<void()> body) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&op->getRegion(0).emplaceBlock());
    body();
  }
  CParam type(StringRef cName, std::string name = "") {
    auto [t, isConst] = c::typeFromName(ctx, cName);
    return {t, isConst, std::move(name)};
  }
  Value int32(int64_t k) {
    return b.create<emitc::ConstantOp>(loc, b.getI32Type(), b.getI32IntegerAttr(k));
  }
  Value string(StringRef s) { return constant(chars, c::stringLiteral(s)); }
  /// `&a[0]`: the address of an array's first element.
  Value first(Value array) { return address(at(array, int32(0))); }
  Value message() { return global("scaly_shim_message", messageType); }
};

/// `__attribute__((export_name("name")))`.
std::string exportName(StringRef name) {
  return formatv("__attribute__((export_name(\"{0}\")))", name).str();
}

/// `static const char* scaly_shim_status_text(int status)`: each status's
/// name and meaning, else "unknown status" (one if per status: EmitC has no
/// switch, and its return belongs to the function).
emitc::FuncOp statusText(ShimBuilder &b) {
  auto body = [&](ArrayRef<BlockArgument> a) {
    Value text = b.variable(b.chars, "text", b.string("unknown status"), /*isConst=*/true);
    for (const c::StatusCode &code : c::kStatusCodes) {
      if (code.value == 0)
        continue;
      Value is = b.cmp(emitc::CmpPredicate::eq, a[0], b.constant(b.cInt, code.name));
      b.ifElse(is, [&] {
        b.assign(text, b.string(formatv("{0} ({1})", code.name, code.meaning).str()));
      });
    }
    b.ret(text);
  };
  return b.function("scaly_shim_status_text", {"static"}, {{b.cInt, false, "status"}},
                    {b.chars, true}, body);
}

/// `static int32_t scaly_shim_append(int32_t n, const char* text)`: copies
/// `text` after the message's first `n` bytes, as far as it has room, and
/// returns the new length (a counted loop: EmitC has no other). `end == n +
/// k` while every byte before text[k] was copied, so no byte past the
/// terminator is read.
emitc::FuncOp append(ShimBuilder &b) {
  Type i32 = b.b.getI32Type();
  auto body = [&](ArrayRef<BlockArgument> a) {
    Value n = a[0], text = a[1];
    Value end = b.variable(i32, "end", n);
    c::buildLoop(b.b, b.loc, b.index(0), b.index(kMessageBytes), b.index(1), "k", [&](Value k) {
      Value position = b.b.create<emitc::AddOp>(b.loc, b.idx, n, k);
      Value copying = b.cmp(emitc::CmpPredicate::eq, end, position);
      Value room = b.cmp(emitc::CmpPredicate::lt, end, b.int32(kMessageBytes));
      b.ifElse(b.b.create<emitc::LogicalAndOp>(b.loc, b.i1, copying, room), [&] {
        Value ch = b.at(text, k);
        b.ifElse(b.cmp(emitc::CmpPredicate::ne, ch, b.constant(ch.getType(), "0")), [&] {
          b.assign(b.at(b.message(), end), b.at(text, k));
          b.assign(end, b.add(end, b.int32(1)));
        });
      });
    });
    b.ret(end);
  };
  return b.function("scaly_shim_append", {"static"}, {{i32, false, "n"}, {b.chars, true, "text"}},
                    {i32}, body);
}

/// The declaration of the host's error import.
void errorImport(ShimBuilder &b) {
  Type i32 = b.b.getI32Type();
  b.comment("The host's error import: it receives the message of a failed call (UTF-8,\n"
            " * `length` bytes); the shim then traps, and the host raises.");
  b.function("scaly_wasm_error",
             {"__attribute__((import_module(\"scaly\"), import_name(\"error\")))"},
             {{i32, false, "status"}, {b.chars, true, "message"}, {i32, false, "length"}}, {});
}

/// The message buffer and the helpers that report "<entry>: <status>" to the
/// host, then trap; returns `scaly_shim_fail(entry, status)`.
emitc::FuncOp errorHelpers(ShimBuilder &b) {
  b.staticVariable("scaly_shim_message", b.messageType, false);
  b.blankLine();
  emitc::FuncOp status = statusText(b);
  b.blankLine();
  emitc::FuncOp add = append(b);
  b.blankLine();
  b.comment("Report \"<entry>: <status>\" to the host, then trap. No local lives in\n"
            " * memory, so the trap leaves the shadow stack as it found it.");
  auto body = [&](ArrayRef<BlockArgument> a) {
    // Each call is printed in the statement right after it (the printer
    // inlines a call used once), so the appends keep their order.
    Value n = b.variable(b.b.getI32Type(), "n", b.call(add, {b.int32(0), a[0]}));
    b.assign(n, b.call(add, {n, b.string(": ")}));
    b.assign(n, b.call(add, {n, b.call(status, {a[1]})}));
    b.callOpaque({}, "scaly_wasm_error", {a[1], b.message(), n});
    b.callOpaque({}, "__builtin_trap", {});
    b.ret();
  };
  return b.function("scaly_shim_fail", {"__attribute__((noinline, cold, noreturn))", "static"},
                    {{b.chars, true, "entry"}, {b.cInt, false, "status"}}, {}, body);
}

/// One export's function and what the manifest says of it.
struct ShimExport {
  WasmExportKind kind;
  std::string entry, detail;
  emitc::FuncOp fn;
};

/// What every export of one entry shares.
struct EntryShim {
  ShimBuilder &b;
  std::string module;
  const RenderedEntry &e;
  emitc::FuncOp fail;
  /// Prefix of this entry's statics: scaly_shim_e<index> (indices keep
  /// entries `a` and `a_struct` apart).
  std::string id;
  Type T = b.type(e.pointerType).type; // double, float or void
  Type TP = emitc::PointerType::get(T);
  std::vector<ShimExport> exports = {};

  std::string exportName(StringRef suffix = "") const {
    return module + "__" + e.name + suffix.str();
  }
  std::string workName() const { return id + "_work"; }
  Type structType(StringRef suffix) const {
    return emitc::PointerType::get(emitc::OpaqueType::get(b.ctx, e.name + suffix.str()));
  }

  /// The exported function `name(params)`: calls `helper` with its own
  /// arguments, reports a failure, then `tail` (which returns).
  void exported(WasmExportKind kind, StringRef name, ArrayRef<CParam> params, CParam result,
                emitc::FuncOp helper, function_ref<void()> tail = nullptr) {
    auto body = [&](ArrayRef<BlockArgument> a) {
      Value status = b.named(b.call(helper, ValueRange(a)), "status");
      Value failed = b.cmp(emitc::CmpPredicate::ne, status, b.constant(b.cInt, "SCALY_SUCCESS"));
      b.ifElse(failed, [&] { b.call(fail, {b.string(e.name), status}); });
      if (tail)
        tail();
      else
        b.ret();
    };
    exports.push_back(
        {kind, e.name, "", b.function(name, {::exportName(name)}, params, result, body)});
  }

  /// A noinline static helper `name(params)` returning the entry's status.
  emitc::FuncOp helper(StringRef suffix, ArrayRef<CParam> params,
                       function_ref<void(ArrayRef<BlockArgument>)> body) {
    return b.function(id + suffix.str(), {"__attribute__((noinline))", "static"}, params, {b.cInt},
                      body);
  }

  /// The `arg` or `res` pointers of `ports` (const ones for `arg`): each
  /// port's value at `address(k)`, NULL for a port without values.
  Value pointers(const std::vector<RenderedPort> &ports, bool isConst, StringRef name,
                 function_ref<Value(size_t)> address) {
    SmallVector<Value> items;
    for (auto [k, p] : llvm::enumerate(ports))
      items.push_back(hasValues(p) ? b.castTo(TP, address(k), isConst) : b.null(TP));
    if (items.empty())
      items.push_back(b.null(TP));
    return b.arrayOf(TP, items, name, isConst);
  }

  /// `&var->field` of port `k` of `ports`.
  Value fieldOf(Value var, const std::vector<RenderedPort> &ports, size_t k) {
    const RenderedPort &p = ports[k];
    Type t = b.type(p.cType).type;
    if (!p.shape.empty())
      t = emitc::ArrayType::get(p.shape, t);
    return b.address(b.member(var, p.field, t));
  }

  /// `return <entry>(arg, res, NULL, <work or NULL>, 0);`
  void callEntry(Value args, Value results) {
    Value iw = b.null(emitc::PointerType::get(b.cInt));
    Value work = e.workspaceBytes > 0 ? workspace() : b.null(TP);
    b.ret(b.callOpaque(b.cInt, e.name, {args, results, iw, work, b.constant(b.cInt, "0")}));
  }

  /// The shim's workspace: <entry>_SZ_W elements of w's type (bytes when it
  /// is void*), 64-byte aligned.
  Type workType() const {
    Type elem = e.pointerType == "void" ? emitc::OpaqueType::get(b.ctx, "unsigned char") : T;
    int64_t bytes = e.pointerType == "double" ? 8 : e.pointerType == "float" ? 4 : 1;
    return emitc::ArrayType::get({e.workspaceBytes / bytes}, elem);
  }
  Value workspace() { return b.global(workName(), workType()); }

  void pointersExport() {
    SmallVector<CParam, 5> params = c::entryParams(TP);
    if (e.workspaceBytes > 0)
      b.staticVariable(workName(), workType(), false, "", 64);
    auto body = [&](ArrayRef<BlockArgument> a) {
      Value w = a[3];
      if (e.workspaceBytes > 0) { // a null w uses the shim's own workspace
        Value own = b.first(workspace());
        if (own.getType() != TP)
          own = b.castTo(TP, own);
        w = b.select(TP, b.notNull(w), w, own);
      }
      b.ret(b.callOpaque(b.cInt, e.name, {a[0], a[1], a[2], w, a[4]}));
    };
    exported(WasmExportKind::Pointers, exportName(), params, {}, helper("_call", params, body));
  }

  void structExport() {
    CParam params[] = {{structType("_out"), false, "out"}, {structType("_in"), true, "in"}};
    auto body = [&](ArrayRef<BlockArgument> a) {
      Value out = a[0], in = a[1];
      // A struct without values is not read.
      if (!llvm::any_of(e.inputs, hasValues))
        b.discard(in);
      if (!llvm::any_of(e.outputs, hasValues))
        b.discard(out);
      Value args =
          pointers(e.inputs, true, "arg", [&](size_t k) { return fieldOf(in, e.inputs, k); });
      Value results =
          pointers(e.outputs, false, "res", [&](size_t k) { return fieldOf(out, e.outputs, k); });
      callEntry(args, results);
    };
    exported(WasmExportKind::Struct, exportName("__struct"), params, {},
             helper("_struct_call", params, body));
  }

  /// Scalars by value; one result is returned (kept in a static, so the
  /// export holds no stack frame), several are written through `out`.
  void scalarExport() {
    bool one = e.outputs.size() == 1;
    std::vector<CParam> params;
    if (!one)
      params.push_back({structType("_out"), false, "out"});
    for (auto [k, p] : llvm::enumerate(e.inputs))
      params.push_back(b.type(p.cType, "a" + std::to_string(k)));
    std::string resultName = id + "_result";
    CParam result = one ? b.type(e.outputs[0].cType) : CParam{};
    if (one)
      b.staticVariable(resultName, result.type, false);
    auto body = [&](ArrayRef<BlockArgument> a) {
      ArrayRef<BlockArgument> ins = a.drop_front(one ? 0 : 1);
      Value args = pointers(e.inputs, true, "arg", [&](size_t k) { return b.address(ins[k]); });
      Value results;
      if (one)
        results =
            b.arrayOf(TP, {b.castTo(TP, b.address(b.global(resultName, result.type)))}, "res");
      else
        results = pointers(e.outputs, false, "res",
                           [&](size_t k) { return fieldOf(a[0], e.outputs, k); });
      callEntry(args, results);
    };
    exported(WasmExportKind::Scalar, exportName("__scalar"), params, result,
             helper("_scalar_call", params, body), [&] {
               if (one)
                 b.ret(b.global(resultName, result.type));
               else
                 b.ret();
             });
  }

  /// The sparse outputs' index tables, as module variables with exported
  /// addresses.
  void tableExports() {
    Type i32 = b.b.getI32Type();
    for (const RenderedPort &p : e.outputs)
      for (auto &[table, length] : p.tables) {
        std::string what = p.field + "_" + StringRef(table).lower();
        std::string var = id + "_" + what;
        Type type = emitc::ArrayType::get({length}, i32);
        b.staticVariable(var, type, true, e.name + "_" + p.field + "_" + table);
        std::string name = exportName("__" + what);
        auto body = [&](ArrayRef<BlockArgument>) { b.ret(b.first(b.global(var, type))); };
        emitc::FuncOp fn =
            b.function(name, {::exportName(name)}, {}, {emitc::PointerType::get(i32), true}, body);
        exports.push_back({WasmExportKind::Table, e.name, what, fn});
      }
  }

  std::vector<ShimExport> all() {
    b.blankLine();
    b.comment(formatv("{0}: {1} input(s), {2} output(s).", e.name, e.inputs.size(),
                      e.outputs.size())
                  .str());
    pointersExport();
    structExport();
    if (noScalarExportReason(e).empty())
      scalarExport();
    tableExports();
    return std::move(exports);
  }
};

/// sizeof, _Alignof and offsetof of every typed struct, as the wasm32
/// compiler lays them out: {count, then per struct: size, align, fields,
/// the offset of each field with values, then the size of each}.
ShimExport layoutExport(ShimBuilder &b, const RenderedModule &module) {
  std::string rows;
  int64_t count = 0, length = 1;
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
      length += 3 + 2 * offsets.size();
    }
  b.blankLine();
  b.comment("The typed structs as this compiler lays them out, for the host's layout\n"
            " * check: the number of structs, then per struct (in the manifest's order)\n"
            " * sizeof, _Alignof, the number of fields with values, their offsets, then\n"
            " * their sizes in bytes.");
  Type u32 = b.b.getIntegerType(32, /*isSigned=*/false);
  Type type = emitc::ArrayType::get({length}, u32);
  b.staticVariable("scaly_shim_layout_table", type, true,
                   formatv("{{\n  {0},\n{1}}", count, rows).str());
  std::string name = module.name + "__scaly_layout";
  emitc::FuncOp fn = b.function(
      name, {exportName(name)}, {}, {emitc::PointerType::get(u32), true},
      [&](ArrayRef<BlockArgument>) { b.ret(b.first(b.global("scaly_shim_layout_table", type))); });
  return {WasmExportKind::Layout, "", "", fn};
}

/// A static declaration of each entry, before the source is included,
/// makes the entries internal.
void staticEntries(ShimBuilder &b, const RenderedModule &module) {
  for (const RenderedEntry &e : module.entries)
    for (const c::FunctionSignature &sig : module.functions)
      if (sig.name == e.name) {
        std::vector<CParam> params;
        for (const std::string &p : sig.params)
          params.push_back(b.type(p));
        b.function(sig.name, {"static"}, params, b.type(sig.result));
      }
}

/// The shim module of `module` and its exports, in the order it defines them.
std::vector<ShimExport> buildShim(ShimBuilder &b, const RenderedModule &module) {
  const std::string &m = module.name;
  b.comment(formatv("WebAssembly exports of the Scaly module {0} (generated; docs/wasm.md).\n"
                    " * Every global symbol of this object is named {0}__*: the entries\n"
                    " * below get internal linkage, so archives of different modules link\n"
                    " * into one instance.",
                    m)
                .str());
  b.b.create<emitc::IncludeOp>(b.loc, "stddef.h", /*isStandardInclude=*/true);
  b.b.create<emitc::IncludeOp>(b.loc, "stdint.h", /*isStandardInclude=*/true);
  b.blankLine();
  errorImport(b);
  b.blankLine();
  staticEntries(b, module);
  b.b.create<emitc::IncludeOp>(b.loc, m + ".c", /*isStandardInclude=*/false);
  b.blankLine();
  emitc::FuncOp fail = errorHelpers(b);
  b.blankLine();
  std::vector<ShimExport> out;
  for (auto [k, e] : llvm::enumerate(module.entries))
    for (ShimExport &x : EntryShim{b, m, e, fail, "scaly_shim_e" + std::to_string(k)}.all())
      out.push_back(std::move(x));
  out.push_back(layoutExport(b, module));
  return out;
}

/// <module>_wasm.h: a declaration (a copy without specifiers) of each export.
void buildHeader(ShimBuilder &b, const RenderedModule &module, ArrayRef<ShimExport> exports) {
  std::string guard = "SCALY_" + StringRef(module.name).upper() + "_WASM_H";
  b.comment(formatv("The WebAssembly exports of the Scaly module {0} (generated; docs/wasm.md):\n"
                    " * what a host's C code links against in lib{0}.a. Call these names; the\n"
                    " * entries of {0}.h are internal to the archive.",
                    module.name)
                .str());
  b.inRegion(b.b.create<cdecl::IfNotDefinedOp>(b.loc, guard), [&] {
    b.b.create<cdecl::DefineOp>(b.loc, guard, Attribute());
    b.blankLine();
    b.b.create<cdecl::IncludeOp>(b.loc, module.name + ".h", /*isStandardInclude=*/false);
    b.blankLine();
    b.inRegion(b.b.create<cdecl::ExternCOp>(b.loc), [&] {
      b.blankLine();
      for (const ShimExport &x : exports) {
        auto decl = cast<emitc::FuncOp>(b.b.insert(x.fn->cloneWithoutRegions()));
        decl.removeSpecifiersAttr();
        decl.setPrivate();
      }
      b.blankLine();
    });
    b.blankLine();
  });
}

/// scaly_alloc.c: `scaly_alloc(bytes)`, 64-byte aligned memory of `bytes`
/// rounded up to 64 (NULL when rounding up would wrap around), and
/// `scaly_free(p)`. A host with a malloc of its own links the archive
/// instead and uses its own.
void buildAlloc(ShimBuilder &b) {
  b.comment("Allocation exports of a standalone Scaly WebAssembly module (generated).");
  b.b.create<emitc::IncludeOp>(b.loc, "stdint.h", /*isStandardInclude=*/true);
  b.b.create<emitc::IncludeOp>(b.loc, "stdlib.h", /*isStandardInclude=*/true);
  b.blankLine();
  Type u32 = b.b.getIntegerType(32, /*isSigned=*/false);
  Type voidPtr = emitc::PointerType::get(emitc::OpaqueType::get(b.ctx, "void"));
  Type sizeT = emitc::OpaqueType::get(b.ctx, "size_t");
  b.function("scaly_alloc", {exportName("scaly_alloc")}, {{u32, false, "bytes"}}, {voidPtr, false},
             [&](ArrayRef<BlockArgument> a) {
               Value bytes = a[0];
               auto u = [&](StringRef text) { return b.constant(u32, text); };
               // NULL when rounding up would wrap around.
               Value limit = b.sub(u("UINT32_MAX"), u("63u"));
               Value tooMany = b.cmp(emitc::CmpPredicate::gt, bytes, limit);
               b.b.create<cdecl::ReturnIfOp>(b.loc, ValueRange{tooMany}, b.null(voidPtr));
               Value lines = b.b.create<emitc::DivOp>(b.loc, u32, b.add(bytes, u("63u")), u("64u"));
               b.ret(b.callOpaque(voidPtr, "aligned_alloc",
                                  {b.constant(sizeT, "64"), b.mul(lines, u("64u"))}));
             });
  b.blankLine();
  b.function("scaly_free", {exportName("scaly_free")}, {{voidPtr, false, "p"}}, {},
             [&](ArrayRef<BlockArgument> a) {
               b.callOpaque(Type(), "free", {a[0]});
               b.ret();
             });
}

WasmExport record(ShimExport x) {
  c::FunctionSignature sig = c::functionSignature(x.fn);
  WasmExport decl{x.entry, x.kind, x.detail, sig.name, sig.result, {}};
  for (auto [k, type] : llvm::enumerate(sig.params))
    decl.params.push_back({type, x.fn.getArgAttrOfType<StringAttr>(k, c::kNameAttr).str()});
  return decl;
}

} // namespace

WasmShim codegen::buildWasmShim(MLIRContext *ctx, const RenderedModule &module) {
  WasmShim out{c::newCModule(ctx), c::newCModule(ctx), c::newCModule(ctx), {}};
  Location loc = out.shim->getLoc();
  OpBuilder ob(ctx);
  ob.setInsertionPointToEnd(out.shim->getBody());
  ShimBuilder b{{ob, loc}};
  std::vector<ShimExport> exports = buildShim(b, module);
  ob.setInsertionPointToEnd(out.header->getBody());
  buildHeader(b, module, exports);
  ob.setInsertionPointToEnd(out.alloc->getBody());
  buildAlloc(b);
  for (const ShimExport &x : exports)
    out.exports.push_back(record(x));
  return out;
}

WasmShimText codegen::renderWasm(const RenderedModule &module) {
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  WasmShim shim = buildWasmShim(&ctx, module);
  WasmShimText out;
  StringRef problem = "the WebAssembly shim is invalid EmitC or has no C form";
  out.shim = printBuiltC(*shim.shim, problem, out.error);
  out.header = printBuiltC(*shim.header, problem, out.error);
  out.alloc = printBuiltC(*shim.alloc, problem, out.error);
  out.exports = std::move(shim.exports);
  return out;
}

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
  MLIRContext ctx(MLIRContext::Threading::DISABLED);
  return buildWasmShim(&ctx, module).exports;
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

std::string codegen::renderWasmShim(const RenderedModule &module, std::string &error) {
  WasmShimText text = renderWasm(module);
  error = text.error;
  return text.shim;
}
