//===- ModuleHeader.cpp - the model's header as declarations --------------===//
//
// Builds the header's module (include/scaly/Codegen/ModuleHeader.h); the C
// printer prints it. Index tables stay the module's own DenseI32ArrayAttr
// (no copy), written as initializer lists by the printer.
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/ModuleHeader.h"
#include "scaly/Codegen/CasadiInterface.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"
#include "scaly/Target/StatusCodes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace scaly::codegen {

std::string elementCType(Type t) {
  if (isa<NoneType>(t))
    return "void";
  if (t.isInteger(1))
    return "uint8_t";
  return c::scalarCType(t);
}

IndexTable indexTable(DictionaryAttr sparse, StringRef name) {
  Attribute a = sparse.get(name);
  if (auto values = dyn_cast_or_null<DenseI32ArrayAttr>(a))
    return {values.asArrayRef(), values.size()};
  if (auto length = dyn_cast_or_null<IntegerAttr>(a))
    return {std::nullopt, length.getInt()};
  return {};
}

SmallVector<StringRef> indexTableNames(DictionaryAttr sparse) {
  SmallVector<StringRef> names;
  for (Attribute name : sparse.getAs<ArrayAttr>("tables"))
    names.push_back(cast<StringAttr>(name).getValue());
  return names;
}

size_t headerTablesSize(const std::vector<EntryPorts> &ports, const RenderOptions &options) {
  // About 8 characters a value, and a line break every 16.
  size_t values = 0;
  for (const EntryPorts &e : ports)
    for (const Port &p : e.outs)
      if (p.sparse && options.sparseTables)
        for (StringRef name : indexTableNames(p.sparse))
          values += indexTable(p.sparse, name).length;
  return values * 8 + values / 2 + 1024;
}

namespace {

/// `[0] x: double[3]` lines of the entry's doc comment.
std::string portList(const std::vector<Port> &ports) {
  std::string list;
  for (size_t i = 0; i < ports.size(); ++i) {
    std::string dims;
    for (int64_t d : ports[i].shape)
      dims += "[" + std::to_string(d) + "]";
    list += llvm::formatv("\n *   [{0}] {1}: {2}{3}", i, ports[i].name,
                          elementCType(ports[i].element), dims.empty() ? " (scalar)" : dims)
                .str();
  }
  return list;
}

/// What a sparse output's comment says of its layout.
StringRef layoutText(StringRef layout) {
  if (layout == "csc")
    return "compressed-column order. Column j holds values COLIND[j] .. COLIND[j+1]-1;\n"
           " * value k lies in row ROW[k].";
  if (layout == "csr")
    return "compressed-row order. Row i holds values ROWPTR[i] .. ROWPTR[i+1]-1;\n"
           " * value k lies in column COL[k].";
  if (layout == "coo")
    return "row-major order; value k lies at (ROW[k], COL[k]).";
  return "compressed-column order, BATCH matrices one after another, all\n"
         " * with one pattern: column j holds values COLIND[j] .. COLIND[j+1]-1 of a matrix;\n"
         " * value k lies in row ROW[k].";
}

/// Builds the header's ops at the end of one block.
struct HeaderBuilder : c::EmitCBuilder {
  const RenderOptions &o;
  bool cxx = o.lang == "cpp";
  MLIRContext *ctx = b.getContext();

  Type opaque(StringRef spelling) { return emitc::OpaqueType::get(ctx, spelling); }
  void define(StringRef name, Attribute value = {}) {
    b.create<cdecl::DefineOp>(loc, name, value);
  }
  void define(StringRef name, int64_t value) { define(name, b.getI64IntegerAttr(value)); }
  /// An op with one region, its body built by `body`; the builder stays after it.
  template <typename OpT, typename... Args>
  void region(llvm::function_ref<void()> body, Args &&...args) {
    auto op = b.create<OpT>(loc, std::forward<Args>(args)...);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&op.getBody().emplaceBlock());
    body();
  }

  /// A field's element type: C's spelling, std:: qualified in C++.
  Type fieldElement(Type element) {
    std::string type = elementCType(element);
    if (cxx && type.find("int") != std::string::npos && type.back() == 't')
      return opaque("std::" + type);
    return opaque(type);
  }

  /// One field per port: `double zs[20];`, `double s;` for a scalar, a
  /// comment for a port without values (ISO C has no zero-length arrays).
  void structOf(StringRef name, const std::vector<Port> &ports,
                const std::vector<std::string> &fields) {
    auto st = b.create<cdecl::StructOp>(loc, name, b.getI64IntegerAttr(16), cxx);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&st.getBody().emplaceBlock());
    bool anyField = false;
    for (auto [p, field] : llvm::zip(ports, fields)) {
      if (llvm::is_contained(p.shape, 0)) {
        comment(field + ": no values");
        continue;
      }
      Type type = fieldElement(p.element);
      if (!p.shape.empty())
        type = emitc::ArrayType::get(p.shape, type);
      b.create<cdecl::FieldOp>(loc, field, type, StringAttr());
      anyField = true;
    }
    if (!anyField)
      b.create<cdecl::FieldOp>(loc, "unused_", opaque("char"),
                               b.getStringAttr("no values at all"));
  }

  /// `int name(const T** arg, T** res, int* iw, T* w, int mem);`, declared
  /// `extern "C"` inside a C++ namespace, after the render's entry specifier.
  void entryDeclaration(StringRef name, StringRef pointee) {
    SmallVector<StringRef, 1> specifiers;
    if (cxx)
      specifiers.push_back("extern \"C\"");
    if (!o.entrySpecifier.empty())
      specifiers.push_back(o.entrySpecifier);
    function(name, specifiers, c::entryParams(emitc::PointerType::get(opaque(pointee))),
             {opaque("int")});
  }

  /// Each sparse output of an entry: a comment on its layout, its sizes, and
  /// with sparse tables its index tables as macros (usable as array
  /// initializers; no unused-variable warnings where they are not).
  void sparseTables(StringRef entry, const std::vector<Port> &outs,
                    const std::vector<std::string> &outNames) {
    for (auto [k, p] : llvm::enumerate(outs)) {
      if (!p.sparse)
        continue;
      int64_t nrow = p.sparse.getAs<IntegerAttr>("nrow").getInt();
      int64_t ncol = p.sparse.getAs<IntegerAttr>("ncol").getInt();
      int64_t batch = p.sparse.getAs<IntegerAttr>("batch").getInt();
      int64_t nnz = p.shape.empty() ? 0 : p.shape.back(); // values of one matrix
      comment(llvm::formatv("res[{0}] {1} is sparse: {2}{3} x {4} matri{5} with {6} stored values "
                            "{7}in\n * {8}{9}",
                            k, p.name, batch ? std::to_string(batch) + " " : "a ", nrow, ncol,
                            batch ? "ces" : "x", nnz, batch ? "each " : "",
                            layoutText(p.sparse.getAs<StringAttr>("layout").getValue()),
                            o.sparseTables ? "" : "\n * (The index tables are left out of this "
                                                  "header.)")
                  .str());
      std::string prefix = (entry + "_" + outNames[k]).str();
      define(prefix + "_NROW", nrow);
      define(prefix + "_NCOL", ncol);
      define(prefix + "_NNZ", nnz);
      if (batch)
        define(prefix + "_BATCH", batch);
      for (StringRef table : indexTableNames(p.sparse)) {
        // renderCModule checked that the module carries the values when
        // tables are written.
        auto values = dyn_cast_or_null<DenseI32ArrayAttr>(p.sparse.get(table));
        if (o.sparseTables && values && !values.empty())
          define(prefix + "_" + table.upper(), values);
      }
      blankLine();
    }
  }

  /// One entry's part: SZ_* sizes, typed structs and its declaration; in C,
  /// or for lang="cpp" in C++ inside a namespace named after the entry.
  void entrySection(prog::ProcOp entry, const EntryPorts &ports, const RenderedEntry &rendered) {
    std::string name = entry.getSymName().str();
    Type wElem = cast<prog::PtrType>(entry.getWorkspaceArg().getType()).getElementType();
    int64_t wElemBytes = prog::elementBytes(wElem);
    int64_t szW = (entry.getWorkspace() + wElemBytes - 1) / wElemBytes;
    std::vector<std::string> inNames, outNames;
    for (const RenderedPort &p : rendered.inputs)
      inNames.push_back(p.field);
    for (const RenderedPort &p : rendered.outputs)
      outNames.push_back(p.field);
    std::string doc = "Inputs (arg[i]):" + portList(ports.ins) + "\n * Outputs (res[i]):" +
                      portList(ports.outs) +
                      "\n * SZ_W counts elements of w's type (bytes when it is void*)."
                      "\n * The entry returns 0 on success, else a SCALY_ERR_* status code.";
    int64_t sizes[] = {entry.getNumInputs(), entry.getNumOutputs(), 0, szW};
    StringRef sizeNames[] = {"SZ_ARG", "SZ_RES", "SZ_IW", "SZ_W"};
    if (cxx) {
      region<cdecl::NamespaceOp>(
          [&] {
            blankLine();
            for (auto [size, sizeName] : llvm::zip(sizes, sizeNames))
              b.create<cdecl::ConstexprOp>(loc, sizeName, opaque("int"), size);
            blankLine();
            comment(doc);
            structOf("In", ports.ins, inNames);
            blankLine();
            structOf("Out", ports.outs, outNames);
            blankLine();
            entryDeclaration(name, elementCType(wElem));
            blankLine();
          },
          name);
      blankLine();
      sparseTables(name, ports.outs, outNames);
      return;
    }
    for (auto [size, sizeName] : llvm::zip(sizes, sizeNames))
      define(name + "_" + sizeName.str(), size);
    blankLine();
    comment(doc);
    structOf(name + "_in", ports.ins, inNames);
    blankLine();
    structOf(name + "_out", ports.outs, outNames);
    blankLine();
    sparseTables(name, ports.outs, outNames);
    region<cdecl::ExternCOp>([&] {
      blankLine();
      entryDeclaration(name, elementCType(wElem));
      blankLine();
    });
    blankLine();
  }
};

} // namespace

OwningOpRef<ModuleOp> headerModule(StringRef moduleName, ArrayRef<prog::ProcOp> procs,
                                   const std::vector<EntryPorts> &ports,
                                   ArrayRef<RenderedEntry> rendered, StringRef recipe,
                                   const RenderOptions &options, ModuleOp casadi) {
  MLIRContext *ctx = prog::ProcOp(procs.front()).getContext();
  OwningOpRef<ModuleOp> header = c::newCModule(ctx);
  Location loc = header->getLoc();
  OpBuilder b = OpBuilder::atBlockEnd(header->getBody());
  HeaderBuilder h{{b, loc}, options};
  bool cxx = h.cxx;
  h.comment((recipe + "\n").str());
  std::string guard = "SCALY_" + moduleName.upper() + (cxx ? "_HPP" : "_H");
  h.region<cdecl::IfNotDefinedOp>(
      [&] {
        h.define(guard);
        h.blankLine();
        static constexpr StringLiteral kC[] = {"stddef.h", "stdint.h"},
                                       kCxx[] = {"cstddef", "cstdint"};
        for (StringRef include : cxx ? ArrayRef(kCxx) : ArrayRef(kC))
          b.create<cdecl::IncludeOp>(loc, include, /*is_standard_include=*/true);
        h.blankLine();
        // The entry's status codes, for callers (the source defines the same).
        h.region<cdecl::IfNotDefinedOp>([&] { c::defineStatusCodes(b, loc); }, "SCALY_SUCCESS");
        h.blankLine();
        for (auto [proc, e, r] : llvm::zip(procs, ports, rendered))
          h.entrySection(proc, e, r);
        if (casadi)
          appendCasadiDeclarations(b, casadi);
      },
      guard);
  return header;
}

} // namespace scaly::codegen
