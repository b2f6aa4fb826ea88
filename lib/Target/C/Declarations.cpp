//===- Declarations.cpp - C text of the cdecl dialect's ops ---------------===//
//
// A header's declarations that EmitC 19 has no op for (the cdecl dialect,
// mlir-dialects/CDecl/CDeclOps.td): macros (object- and function-like),
// preprocessor conditionals and #error, extern "C" blocks, structs,
// typedefs, prototypes, C++ namespaces and constants, comments; and the
// lines of a loop's hints, which CEmitter.cpp puts before the loop. (The
// dialect's other statements print with the function bodies, in
// CEmitter.cpp.) Each
// op prints whole lines; a region's ops print through the C printer's
// top-level dispatch, so EmitC's own ops (emitc.func declarations,
// emitc.verbatim) may sit inside them.
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include <charconv>
#include <functional>

using namespace mlir;
using namespace scaly;

void c::writeInitializerList(ArrayRef<int32_t> values, function_ref<void(StringRef)> emit) {
  static constexpr std::string_view kFirst = " \\\n    ", kBreak = ", \\\n    ", kNext = ", ";
  // Written through a fixed buffer: a table at n = 10^5 is megabytes of
  // text, which the printer's stream receives in a few large pieces (a piece
  // a value cost more than the digits).
  static constexpr size_t kChunk = 1 << 16, kMostPerValue = 32;
  std::string buffer(kChunk, '\0');
  char *out = buffer.data();
  auto flush = [&] {
    emit(StringRef(buffer.data(), out - buffer.data()));
    out = buffer.data();
  };
  auto put = [&](std::string_view text) { out = std::copy(text.begin(), text.end(), out); };
  put("{");
  for (size_t i = 0; i < values.size(); ++i) {
    if (static_cast<size_t>(out - buffer.data()) + kMostPerValue > kChunk)
      flush();
    put(i % 16 ? kNext : i ? kBreak : kFirst);
    out = std::to_chars(out, buffer.data() + kChunk, values[i]).ptr;
  }
  put(" }");
  flush();
}

namespace {

/// `#define NAME value`, `#define NAME(a, b) body` (a body's lines
/// continued); a table as an initializer list.
void printDefine(cdecl::DefineOp define, function_ref<void(StringRef)> emit) {
  std::string s = "#define " + define.getName().str();
  if (std::optional<ArrayAttr> params = define.getParams())
    s += "(" + llvm::join(params->getAsValueRange<StringAttr>(), ", ") + ")";
  std::optional<Attribute> value = define.getValue();
  if (!value) {
    emit(s + "\n");
    return;
  }
  s += " ";
  if (auto table = dyn_cast<DenseI32ArrayAttr>(*value)) {
    emit(s);
    c::writeInitializerList(table.asArrayRef(), emit);
    emit("\n");
    return;
  }
  if (auto integer = dyn_cast<IntegerAttr>(*value)) {
    emit(s + std::to_string(integer.getInt()) + "\n");
    return;
  }
  // A body's further lines are continued; an empty first line starts it on
  // the next.
  SmallVector<StringRef> lines;
  cast<StringAttr>(*value).getValue().split(lines, '\n');
  if (lines.front().empty())
    s.pop_back();
  for (auto [i, line] : llvm::enumerate(lines))
    s += (i ? " \\\n" : "") + line.str();
  emit(s + "\n");
}

/// A struct member's line, indented: `  T name[dims]; /* comment */`.
std::string memberText(Operation &member) {
  if (auto comment = dyn_cast<cdecl::CommentOp>(member))
    return "  /* " + comment.getText().str() + " */\n";
  auto field = cast<cdecl::FieldOp>(member);
  Type type = field.getType();
  std::string dims;
  if (auto array = dyn_cast<emitc::ArrayType>(type)) {
    type = array.getElementType();
    dims = c::arrayDims(array);
  }
  std::string s = "  " + c::typeName(type, false) + " " + field.getName().str() + dims + ";";
  if (std::optional<StringRef> comment = field.getComment())
    s += " /* " + comment->str() + " */";
  return s + "\n";
}

/// The struct: C's typedef of an anonymous struct, or a C++ struct.
std::string structText(cdecl::StructOp st) {
  std::optional<int64_t> align = st.getAlignment();
  std::string alignment = !align ? ""
                          : st.getCxx()
                              ? "alignas(" + std::to_string(*align) + ") "
                              : "__attribute__((aligned(" + std::to_string(*align) + "))) ";
  std::string s = st.getCxx() ? "struct " + alignment + st.getName().str() + " {\n"
                              : "typedef struct " + alignment + "{\n";
  for (Operation &member : st.getBody().front())
    s += memberText(member);
  return s + (st.getCxx() ? "};\n" : "} " + st.getName().str() + ";\n");
}

/// `typedef T name __attribute__((...));` with the GNU attributes given.
std::string typedefText(cdecl::TypedefOp td) {
  SmallVector<std::string> attributes;
  if (std::optional<int64_t> bytes = td.getVectorSize()) {
    std::string size = std::to_string(*bytes);
    if (std::optional<StringRef> times = td.getVectorSizeTimes())
      size += " * " + times->str();
    attributes.push_back("vector_size(" + size + ")");
  }
  if (std::optional<int64_t> align = td.getAligned())
    attributes.push_back("aligned(" + std::to_string(*align) + ")");
  if (td.getMayAlias())
    attributes.push_back("may_alias");
  std::string s = "typedef " + c::typeName(td.getType(), false) + " " + td.getName().str();
  if (!attributes.empty())
    s += " __attribute__((" + llvm::join(attributes, ", ") + "))";
  return s + ";\n";
}

/// `R name(T, U);`
std::string prototypeText(cdecl::PrototypeOp proto) {
  FunctionType type = proto.getFunctionType();
  std::string result = type.getNumResults() ? c::typeName(type.getResult(0), false) : "void";
  SmallVector<std::string> params;
  for (Type t : type.getInputs())
    params.push_back(c::typeName(t, false));
  return result + " " + proto.getName().str() + "(" +
         (params.empty() ? std::string("void") : llvm::join(params, ", ")) + ");\n";
}

/// C's operator for a comparison in an #if.
StringRef comparisonSymbol(cdecl::Comparison comparison) {
  switch (comparison) {
  case cdecl::Comparison::eq: return "==";
  case cdecl::Comparison::ne: return "!=";
  case cdecl::Comparison::lt: return "<";
  case cdecl::Comparison::le: return "<=";
  case cdecl::Comparison::gt: return ">";
  case cdecl::Comparison::ge: return ">=";
  }
  llvm_unreachable("a comparison cdecl.if has no case for");
}

/// A preprocessor conditional's test: `[!]defined(NAME)` or `MACRO == N`.
std::string conditionOf(Operation *conditional) {
  if (auto defined = dyn_cast<cdecl::IfDefinedOp>(conditional))
    return (defined.getNegated() ? "!defined(" : "defined(") + defined.getName().str() + ")";
  auto compared = cast<cdecl::IfOp>(conditional);
  return compared.getMacro().str() + " " + comparisonSymbol(compared.getComparison()).str() +
         " " + std::to_string(compared.getValueAttr().getInt());
}

/// The conditional an `else` body is when it holds one and nothing else:
/// printed as its `#elif`.
Operation *elifOf(Region &otherwise) {
  if (otherwise.empty() || !llvm::hasSingleElement(otherwise.front()))
    return nullptr;
  Operation &only = otherwise.front().front();
  return isa<cdecl::IfOp, cdecl::IfDefinedOp>(only) ? &only : nullptr;
}

} // namespace

LogicalResult c::printDeclaration(Operation *op, function_ref<void(StringRef)> emit,
                                  function_ref<LogicalResult(Operation &)> nested) {
  auto body = [&](Region &region) {
    for (Operation &inner : region.front())
      if (failed(nested(inner)))
        return failure();
    return success();
  };
  // #if (or #elif) COND, the then body, the else body (an #elif when it is
  // one conditional), #endif.
  std::function<LogicalResult(Operation *, StringRef)> conditional =
      [&](Operation *op, StringRef keyword) -> LogicalResult {
    emit(keyword.str() + " " + conditionOf(op) + "\n");
    LogicalResult ok = body(op->getRegion(0));
    Region &otherwise = op->getRegion(1);
    if (failed(ok) || otherwise.empty()) {
      emit("#endif\n");
      return ok;
    }
    if (Operation *elif = elifOf(otherwise))
      return conditional(elif, "#elif");
    emit("#else\n");
    ok = body(otherwise);
    emit("#endif\n");
    return ok;
  };
  // A region op's lines: what opens it, its body, what closes it.
  auto enclosed = [&](const std::string &open, Region &region, const std::string &close) {
    emit(open);
    LogicalResult ok = body(region);
    emit(close);
    return ok;
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](cdecl::CommentOp comment) {
        emit("/* " + comment.getText().str() + " */\n");
        return success();
      })
      .Case([&](cdecl::DefineOp define) {
        printDefine(define, emit);
        return success();
      })
      .Case([&](cdecl::IncludeOp include) {
        emit(include.getIsStandardInclude() ? "#include <" + include.getInclude().str() + ">\n"
                                            : "#include \"" + include.getInclude().str() + "\"\n");
        return success();
      })
      .Case([&](cdecl::IfNotDefinedOp conditional) {
        return enclosed("#ifndef " + conditional.getName().str() + "\n", conditional.getBody(),
                        "#endif\n");
      })
      .Case<cdecl::IfDefinedOp, cdecl::IfOp>(
          [&](Operation *op) { return conditional(op, "#if"); })
      // A loop's hints (in a function, held for the loop's statement).
      .Case([&](cdecl::PragmaOp pragma) {
        emit("#pragma " + pragma.getDirective().str() + " " +
             llvm::join(pragma.getOptions().getAsValueRange<StringAttr>(), " ") + "\n");
        return success();
      })
      .Case([&](cdecl::MacroLineOp macro) {
        emit(macro.getName().str() + "\n");
        return success();
      })
      .Case([&](cdecl::ErrorOp error) {
        emit("#error \"" + error.getMessage().str() + "\"\n");
        return success();
      })
      .Case([&](cdecl::TypedefOp td) {
        emit(typedefText(td));
        return success();
      })
      .Case([&](cdecl::PrototypeOp proto) {
        emit(prototypeText(proto));
        return success();
      })
      .Case([&](cdecl::ExternCOp block) {
        return enclosed("#ifdef __cplusplus\nextern \"C\" {\n#endif\n", block.getBody(),
                        "#ifdef __cplusplus\n}\n#endif\n");
      })
      .Case([&](cdecl::NamespaceOp ns) {
        std::string name = ns.getName().str();
        return enclosed("namespace " + name + " {\n", ns.getBody(),
                        "} // namespace " + name + "\n");
      })
      .Case([&](cdecl::ConstexprOp constant) {
        emit("constexpr " + c::typeName(constant.getType(), false) + " " +
             constant.getName().str() + " = " + std::to_string(constant.getValueAttr().getInt()) + ";\n");
        return success();
      })
      .Case([&](cdecl::StructOp st) {
        emit(structText(st));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("is no declaration the C printer knows");
      });
}
