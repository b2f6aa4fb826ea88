//===- Declarations.cpp - C text of the cdecl dialect's ops ---------------===//
//
// A header's declarations that EmitC 19 has no op for (the cdecl dialect,
// mlir-dialects/CDecl/CDeclOps.td): macros, preprocessor conditionals,
// extern "C" blocks, structs, C++ namespaces and constants, comments. Each
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

/// `#define NAME value`, `#define NAME(a, b) body`; a table as an
/// initializer list.
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
  if (auto integer = dyn_cast<IntegerAttr>(*value))
    s += std::to_string(integer.getInt());
  else
    s += cast<StringAttr>(*value).getValue();
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

} // namespace

LogicalResult c::printDeclaration(Operation *op, function_ref<void(StringRef)> emit,
                                  function_ref<LogicalResult(Operation &)> nested) {
  auto body = [&](Region &region) {
    for (Operation &inner : region.front())
      if (failed(nested(inner)))
        return failure();
    return success();
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
      .Case([&](cdecl::IfDefinedOp conditional) {
        emit("#if defined(" + conditional.getName().str() + ")\n");
        LogicalResult ok = body(conditional.getThenBody());
        if (!conditional.getElseBody().empty()) {
          emit("#else\n");
          ok = succeeded(ok) ? body(conditional.getElseBody()) : ok;
        }
        emit("#endif\n");
        return ok;
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
