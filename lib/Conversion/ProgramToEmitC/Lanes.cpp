//===- Lanes.cpp - C for the lane vectors of widened loops ----------------===//
//
// What the translation registers as it goes (names and the parts of their
// definitions), built as cdecl ops once every procedure is translated:
// typedefs with GNU vector attributes, #if/#elif chains, #error guards,
// libmvec prototypes and function-like macros (cdecl.define with params).
//
//===----------------------------------------------------------------------===//

#include "Lanes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Target/CEmitter.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <functional>

using namespace mlir;
using namespace scaly;

namespace {

std::string scalarName(Type elem) { return elem.isF32() ? "float" : "double"; }

int elementBytes(Type elem) { return elem.isF32() ? 4 : 8; }

/// C's lines as one macro body: the printer continues each with ` \`.
std::string lines(std::initializer_list<std::string> each) { return llvm::join(each, "\n"); }

} // namespace

std::string c::LaneSupport::suffix(Type elem, int64_t width) const {
  return (elem.isF32() ? "f32x" : "f64x") + (autoWidth ? std::string("N") : std::to_string(width));
}

std::string c::LaneSupport::widthText(int64_t width) const {
  return autoWidth ? "SCALY_LANES" : std::to_string(width);
}

void c::LaneSupport::addTypedef(const std::string &name, Type scalar, int64_t bytes,
                                int64_t width, bool memory) {
  typedefs.try_emplace(name, Typedef{scalar, bytes, width, memory});
}

std::string c::LaneSupport::valueType(Type elem, int64_t width) {
  std::string name = "scaly_" + suffix(elem, width);
  addTypedef(name, elem, elementBytes(elem), width, /*memory=*/false);
  return name;
}

std::string c::LaneSupport::memoryType(Type elem, int64_t width) {
  std::string name = scalarName(elem) + (autoWidth ? "N" : std::to_string(width));
  addTypedef(name, elem, elementBytes(elem), width, /*memory=*/true);
  return name;
}

// The helpers are macros over GNU statement expressions rather than
// functions: a function taking or returning a vector wider than the
// baseline's registers has an ABI that depends on -march (GCC and Clang warn,
// -Wpsabi), and a macro is always expanded in place.

std::string c::LaneSupport::stridedLoad(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_load_" + V.substr(6);
  if (seen.count(name))
    return name;
  add(helpers, name,
      Helper{{name,
              {"p", "s"},
              lines({"__extension__({", "  const " + T + " *scaly_p_ = (p);",
                     "  long long scaly_s_ = (s);", "  " + V + " scaly_r_ = {0};",
                     "  for (int scaly_k_ = 0; scaly_k_ < " + widthText(width) + "; ++scaly_k_)",
                     "    scaly_r_[scaly_k_] = scaly_p_[scaly_k_ * scaly_s_];",
                     "  scaly_r_; })"})},
             {}});
  return name;
}

std::string c::LaneSupport::stridedStore(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_store_" + V.substr(6);
  if (seen.count(name))
    return name;
  add(helpers, name,
      Helper{{name,
              {"p", "s", "v"},
              lines({"do {", "  " + T + " *scaly_p_ = (p);", "  long long scaly_s_ = (s);",
                     "  " + V + " scaly_v_ = (v);",
                     "  for (int scaly_k_ = 0; scaly_k_ < " + widthText(width) + "; ++scaly_k_)",
                     "    scaly_p_[scaly_k_ * scaly_s_] = scaly_v_[scaly_k_];", "} while (0)"})},
             {}});
  return name;
}

std::string c::LaneSupport::splat(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_splat_" + V.substr(6);
  if (seen.count(name))
    return name;
  add(helpers, name,
      Helper{{name,
              {"x"},
              lines({"__extension__({", "  " + T + " scaly_x_ = (x);",
                     "  " + V + " scaly_r_ = {0};",
                     "  for (int scaly_k_ = 0; scaly_k_ < " + widthText(width) + "; ++scaly_k_)",
                     "    scaly_r_[scaly_k_] = scaly_x_;", "  scaly_r_; })"})},
             {}});
  return name;
}

std::string c::LaneSupport::maskType(Type elem, int64_t width) {
  std::string name = std::string(elem.isF32() ? "scaly_m32x" : "scaly_m64x") +
                     (autoWidth ? std::string("N") : std::to_string(width));
  Type scalar = emitc::OpaqueType::get(elem.getContext(), elem.isF32() ? "int" : "long long");
  addTypedef(name, scalar, elementBytes(elem), width, /*memory=*/false);
  return name;
}

std::string c::LaneSupport::select(Type elem, int64_t width) {
  std::string V = valueType(elem, width), M = maskType(elem, width);
  std::string name = "scaly_select_" + V.substr(6);
  if (seen.count(name))
    return name;
  // The body starts on the line after the parameters.
  add(helpers, name,
      Helper{{name,
              {"m", "a", "b"},
              lines({"", "  ((" + V + ")(((m) & (" + M + ")(a)) | (~(m) & (" + M + ")(b))))"})},
             {}});
  return name;
}

std::string c::LaneSupport::mvecSymbol(StringRef fn, Type elem, int64_t width, unsigned arity,
                                       std::string &isaMacro) {
  if (!c::glibcVectorMathSince(fn))
    return "";
  // x86-64's vector function ABI: b = SSE (xmm), d = AVX2 (ymm), e = AVX-512 (zmm).
  int64_t bytes = width * elementBytes(elem);
  char isa = bytes == 16 ? 'b' : bytes == 32 ? 'd' : bytes == 64 ? 'e' : 0;
  if (!isa)
    return "";
  isaMacro = isa == 'b' ? "__SSE2__" : isa == 'd' ? "__AVX2__" : "__AVX512F__";
  return llvm::formatv("_ZGV{0}N{1}{2}_{3}{4}", isa, width, arity == 2 ? "vv" : "v", fn,
                       elem.isF32() ? "f" : "")
      .str();
}

c::LaneSupport::Macro c::LaneSupport::laneByLane(const std::string &name, StringRef scalarFn,
                                                 const std::string &V, int64_t width,
                                                 unsigned arity) const {
  std::vector<std::string> params{"x"};
  std::string body = "__extension__({\n  " + V + " scaly_x_ = (x);\n";
  if (arity == 2) {
    params.push_back("y");
    body += "  " + V + " scaly_y_ = (y);\n";
  }
  body += lines({"  " + V + " scaly_r_ = scaly_x_;",
                 "  for (int scaly_k_ = 0; scaly_k_ < " + widthText(width) + "; ++scaly_k_)",
                 "    scaly_r_[scaly_k_] = " + scalarFn.str() + "(scaly_x_[scaly_k_]" +
                     (arity == 2 ? ", scaly_y_[scaly_k_]" : "") + ");",
                 "  scaly_r_; })"});
  return {name, params, body};
}

std::string c::LaneSupport::math(StringRef fn, Type elem, int64_t width, unsigned arity) {
  std::string V = valueType(elem, width);
  std::string scalar = expr::cMathName(fn, elem);
  std::string macro;
  if (glibc && !autoWidth) {
    std::string symbol = mvecSymbol(fn, elem, width, arity, macro);
    if (!symbol.empty()) {
      if (!seen.count(symbol)) {
        add(declarations, symbol, VectorFunction{symbol, V, arity});
        guards.insert({macro, llvm::formatv("vector_libm=glibc width {0} requires {1} and -lmvec",
                                            width, macro)
                                  .str()});
      }
      return symbol;
    }
  }
  std::string name = "scaly_" + scalar + "_" + V.substr(6);
  if (seen.count(name))
    return name;
  Helper helper{laneByLane(name, scalar, V, width, arity), {}};
  if (glibc && autoWidth && c::glibcVectorMathSince(fn)) {
    // lanes=auto: the preprocessor's width picks libmvec's variant; a width
    // without one (two floats) goes lane by lane.
    guards.insert({"__x86_64__", "vector_libm=glibc width auto requires __x86_64__ and -lmvec"});
    for (int64_t w : {8, 4, 2})
      if (std::string sym = mvecSymbol(fn, elem, w, arity, macro); !sym.empty())
        helper.byWidth.push_back({w, VectorFunction{sym, V, arity}});
  }
  add(helpers, name, std::move(helper));
  return name;
}

namespace {

/// `V symbol(V[, V]);`
void declare(OpBuilder &b, Location loc, StringRef symbol, StringRef vector, unsigned arity) {
  Type v = emitc::OpaqueType::get(b.getContext(), vector);
  SmallVector<Type> params(arity, v);
  b.create<cdecl::PrototypeOp>(loc, symbol, b.getFunctionType(params, {v}));
}

void defineMacro(OpBuilder &b, Location loc, StringRef name, ArrayRef<std::string> params,
                 StringRef body) {
  SmallVector<StringRef> names(params.begin(), params.end());
  b.create<cdecl::DefineOp>(loc, name, b.getStringAttr(body), b.getStrArrayAttr(names));
}

/// Builds `op`'s then body with `then`, and its else body with `otherwise`
/// when given.
template <typename ConditionalOp>
void conditional(OpBuilder &b, ConditionalOp op, function_ref<void()> then,
                 function_ref<void()> otherwise = nullptr) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&op.getThenBody().emplaceBlock());
  then();
  if (otherwise) {
    b.setInsertionPointToStart(&op.getElseBody().emplaceBlock());
    otherwise();
  }
}

/// SCALY_LANES: 8 with AVX-512, 4 with AVX2, else 2.
void defineLaneWidth(OpBuilder &b, Location loc) {
  auto lanes = [&](int64_t n) {
    b.create<cdecl::DefineOp>(loc, "SCALY_LANES", b.getI64IntegerAttr(n));
  };
  conditional(b, b.create<cdecl::IfDefinedOp>(loc, "__AVX512F__"), [&] { lanes(8); }, [&] {
    conditional(b, b.create<cdecl::IfDefinedOp>(loc, "__AVX2__"), [&] { lanes(4); },
                [&] { lanes(2); });
  });
}

} // namespace

void c::LaneSupport::defineTypedefs(OpBuilder &b, Location loc) const {
  for (const auto &[name, t] : typedefs) {
    // With lanes=auto: one lane's bytes times SCALY_LANES.
    IntegerAttr size = b.getI64IntegerAttr(autoWidth ? t.elementBytes : t.elementBytes * t.width);
    StringAttr times = autoWidth ? b.getStringAttr("SCALY_LANES") : StringAttr();
    // Loads and stores go through a type aligned to one element that may
    // alias the buffer's elements.
    b.create<cdecl::TypedefOp>(loc, name, t.scalar, size, times,
                               t.memory ? b.getI64IntegerAttr(t.elementBytes) : IntegerAttr(),
                               /*may_alias=*/t.memory);
  }
}

void c::LaneSupport::defineHelper(OpBuilder &b, Location loc, const Helper &helper) {
  const Macro &m = helper.macro;
  // #if SCALY_LANES == 8 ... #elif SCALY_LANES == 4 ... #else lane by lane
  std::string args = llvm::join(m.params, ", ");
  std::function<void(size_t)> fromWidth = [&](size_t i) {
    if (i == helper.byWidth.size())
      return defineMacro(b, loc, m.name, m.params, m.body);
    const auto &[width, fn] = helper.byWidth[i];
    conditional(
        b, b.create<cdecl::IfOp>(loc, "SCALY_LANES", cdecl::Comparison::eq, width),
        [&, &fn = fn] {
          declare(b, loc, fn.symbol, fn.vectorType, fn.arity);
          defineMacro(b, loc, m.name, m.params, fn.symbol + "(" + args + ")");
        },
        [&] { fromWidth(i + 1); });
  };
  fromWidth(0);
}

void c::LaneSupport::define(OpBuilder &b, Location loc) const {
  if (empty())
    return;
  if (autoWidth)
    defineLaneWidth(b, loc);
  defineTypedefs(b, loc);
  for (const auto &[macro, message] : guards)
    conditional(b, b.create<cdecl::IfDefinedOp>(loc, macro, /*negated=*/true),
                [&, &message = message] { b.create<cdecl::ErrorOp>(loc, message); });
  for (const auto &[name, fn] : declarations)
    declare(b, loc, fn.symbol, fn.vectorType, fn.arity);
  for (const auto &[name, helper] : helpers) {
    b.create<emitc::VerbatimOp>(loc, ""); // a blank line before each
    defineHelper(b, loc, helper);
  }
}

void c::LaneSupport::merge(const LaneSupport &other) {
  for (const auto &[name, type] : other.typedefs)
    typedefs.try_emplace(name, type);
  guards.insert(other.guards.begin(), other.guards.end());
  for (const auto &[name, fn] : other.declarations)
    add(declarations, name, fn);
  for (const auto &[name, helper] : other.helpers)
    add(helpers, name, helper);
}
