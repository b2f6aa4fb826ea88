//===- Lanes.cpp - C for the lane vectors of widened loops ----------------===//

#include "Lanes.h"

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Target/CEmitter.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace scaly;

namespace {

std::string scalarName(Type elem) { return elem.isF32() ? "float" : "double"; }

int elementBytes(Type elem) { return elem.isF32() ? 4 : 8; }

} // namespace

std::string c::LaneSupport::suffix(Type elem, int64_t width) const {
  return (elem.isF32() ? "f32x" : "f64x") + (autoWidth ? std::string("N") : std::to_string(width));
}

std::string c::LaneSupport::widthText(int64_t width) const {
  return autoWidth ? "SCALY_LANES" : std::to_string(width);
}

std::string c::LaneSupport::vectorBytes(Type elem, int64_t width) const {
  int one = elementBytes(elem);
  return autoWidth ? llvm::formatv("{0} * SCALY_LANES", one).str() : std::to_string(one * width);
}

std::string c::LaneSupport::valueType(Type elem, int64_t width) {
  std::string name = "scaly_" + suffix(elem, width);
  typedefs.try_emplace(name, llvm::formatv("typedef {0} {1} __attribute__((vector_size({2})));",
                                           scalarName(elem), name, vectorBytes(elem, width))
                                 .str());
  return name;
}

std::string c::LaneSupport::memoryType(Type elem, int64_t width) {
  std::string T = scalarName(elem);
  std::string name = T + (autoWidth ? "N" : std::to_string(width));
  typedefs.try_emplace(name, llvm::formatv("typedef {0} {1} __attribute__((vector_size({2}), "
                                           "aligned({3}), may_alias));",
                                           T, name, vectorBytes(elem, width), elementBytes(elem))
                                 .str());
  return name;
}

// The helpers are macros over GNU statement expressions rather than
// functions: a function taking or returning a vector wider than the
// baseline's registers has an ABI that depends on -march (GCC and Clang warn,
// -Wpsabi), and a macro is always expanded in place.

std::string c::LaneSupport::stridedLoad(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_load_" + V.substr(6);
  if (!seen.count(name))
    add(helpers, name,
        llvm::formatv("#define {1}(p, s) __extension__({{ \\\n"
                             "  const {2} *scaly_p_ = (p); \\\n"
                             "  long long scaly_s_ = (s); \\\n"
                             "  {0} scaly_r_ = {{0}; \\\n"
                             "  for (int scaly_k_ = 0; scaly_k_ < {3}; ++scaly_k_) \\\n"
                             "    scaly_r_[scaly_k_] = scaly_p_[scaly_k_ * scaly_s_]; \\\n"
                             "  scaly_r_; })\n\n",
                             V, name, T, widthText(width))
                   .str());
  return name;
}

std::string c::LaneSupport::stridedStore(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_store_" + V.substr(6);
  if (!seen.count(name))
    add(helpers, name,
        llvm::formatv("#define {0}(p, s, v) do {{ \\\n"
                             "  {1} *scaly_p_ = (p); \\\n"
                             "  long long scaly_s_ = (s); \\\n"
                             "  {2} scaly_v_ = (v); \\\n"
                             "  for (int scaly_k_ = 0; scaly_k_ < {3}; ++scaly_k_) \\\n"
                             "    scaly_p_[scaly_k_ * scaly_s_] = scaly_v_[scaly_k_]; \\\n"
                             "} while (0)\n\n",
                             name, T, V, widthText(width))
                   .str());
  return name;
}

std::string c::LaneSupport::splat(Type elem, int64_t width) {
  std::string V = valueType(elem, width), T = scalarName(elem);
  std::string name = "scaly_splat_" + V.substr(6);
  if (!seen.count(name))
    add(helpers, name,
        llvm::formatv("#define {1}(x) __extension__({{ \\\n"
                             "  {2} scaly_x_ = (x); \\\n"
                             "  {0} scaly_r_ = {{0}; \\\n"
                             "  for (int scaly_k_ = 0; scaly_k_ < {3}; ++scaly_k_) \\\n"
                             "    scaly_r_[scaly_k_] = scaly_x_; \\\n"
                             "  scaly_r_; })\n\n",
                             V, name, T, widthText(width))
                   .str());
  return name;
}

std::string c::LaneSupport::maskType(Type elem, int64_t width) {
  std::string name = std::string(elem.isF32() ? "scaly_m32x" : "scaly_m64x") +
                     (autoWidth ? std::string("N") : std::to_string(width));
  typedefs.try_emplace(name, llvm::formatv("typedef {0} {1} __attribute__((vector_size({2})));",
                                           elem.isF32() ? "int" : "long long", name,
                                           vectorBytes(elem, width))
                                 .str());
  return name;
}

std::string c::LaneSupport::select(Type elem, int64_t width) {
  std::string V = valueType(elem, width), M = maskType(elem, width);
  std::string name = "scaly_select_" + V.substr(6);
  if (!seen.count(name))
    add(helpers, name,
        llvm::formatv("#define {0}(m, a, b) \\\n"
                             "  (({1})(((m) & ({2})(a)) | (~(m) & ({2})(b))))\n\n",
                             name, V, M)
                   .str());
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

std::string c::LaneSupport::math(StringRef fn, Type elem, int64_t width, unsigned arity) {
  std::string V = valueType(elem, width);
  std::string scalar = expr::cMathName(fn, elem);
  std::string macro;
  if (glibc && !autoWidth) {
    std::string symbol = mvecSymbol(fn, elem, width, arity, macro);
    if (!symbol.empty()) {
      if (!seen.count(symbol)) {
        add(declarations, symbol, V + " " + symbol + "(" + V + (arity == 2 ? ", " + V : "") + ");\n");
        guards.insert(llvm::formatv("#if !defined({0})\n#error \"vector_libm=glibc width {1} "
                                    "requires {0} and -lmvec\"\n#endif\n",
                                    macro, width)
                          .str());
      }
      return symbol;
    }
  }
  std::string name = "scaly_" + scalar + "_" + V.substr(6);
  if (seen.count(name))
    return name;
  std::string params = arity == 2 ? "x, y" : "x";
  std::string laneByLane = llvm::formatv(
      "#define {0}({1}) __extension__({{ \\\n"
      "  {2} scaly_x_ = (x); \\\n"
      "{3}"
      "  {2} scaly_r_ = scaly_x_; \\\n"
      "  for (int scaly_k_ = 0; scaly_k_ < {4}; ++scaly_k_) \\\n"
      "    scaly_r_[scaly_k_] = {5}(scaly_x_[scaly_k_]{6}); \\\n"
      "  scaly_r_; })\n",
      name, params, V, arity == 2 ? "  " + V + " scaly_y_ = (y); \\\n" : std::string(),
      widthText(width), scalar, arity == 2 ? ", scaly_y_[scaly_k_]" : "");
  if (!(glibc && autoWidth && c::glibcVectorMathSince(fn))) {
    add(helpers, name, laneByLane + "\n");
    return name;
  }
  // lanes=auto: the preprocessor's width picks libmvec's variant; a width
  // without one (two floats) goes lane by lane.
  guards.insert("#if !defined(__x86_64__)\n#error \"vector_libm=glibc width auto requires "
                "__x86_64__ and -lmvec\"\n#endif\n");
  std::string text;
  bool first = true;
  for (int64_t w : {8, 4, 2}) {
    std::string sym = mvecSymbol(fn, elem, w, arity, macro);
    if (sym.empty())
      continue;
    text += llvm::formatv("#{0} SCALY_LANES == {1}\n{2} {3}({4});\n#define {5}({6}) {3}({6})\n",
                          first ? "if" : "elif", w, V, sym, arity == 2 ? V + ", " + V : V, name,
                          params)
                .str();
    first = false;
  }
  add(helpers, name, text + "#else\n" + laneByLane + "#endif\n\n");
  return name;
}

std::string c::LaneSupport::definitions() const {
  if (typedefs.empty())
    return "";
  std::string out;
  if (autoWidth)
    out += "#if defined(__AVX512F__)\n#define SCALY_LANES 8\n#elif defined(__AVX2__)\n"
           "#define SCALY_LANES 4\n#else\n#define SCALY_LANES 2\n#endif\n";
  for (auto &[name, line] : typedefs)
    out += line + "\n";
  for (const std::string &g : guards)
    out += g;
  for (const auto &[name, text] : declarations)
    out += text;
  if (!helpers.empty())
    out += "\n";
  for (const auto &[name, text] : helpers)
    out += text;
  // One line break at the end: the module puts its own blank lines between parts.
  while (out.size() > 1 && out.back() == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

void c::LaneSupport::add(std::vector<std::pair<std::string, std::string>> &list,
                         std::string name, std::string text) {
  if (seen.insert(name).second)
    list.emplace_back(std::move(name), std::move(text));
}

void c::LaneSupport::merge(const LaneSupport &other) {
  for (const auto &[name, line] : other.typedefs)
    typedefs.try_emplace(name, line);
  guards.insert(other.guards.begin(), other.guards.end());
  for (const auto &[name, text] : other.declarations)
    add(declarations, name, text);
  for (const auto &[name, text] : other.helpers)
    add(helpers, name, text);
}
