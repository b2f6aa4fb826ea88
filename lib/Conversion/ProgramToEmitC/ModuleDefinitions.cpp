//===- ModuleDefinitions.cpp - tables and C helpers a module defines -----===//

#include "ModuleDefinitions.h"

#include "scaly/Target/CEmitter.h"

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

using namespace mlir;
using namespace scaly;

std::string c::Tables::use(ElementsAttr values) {
  auto type = cast<ShapedType>(values.getType());
  Type elem = type.getElementType();
  std::string body;
  int k = 0;
  for (Attribute a : values.getValues<Attribute>()) {
    body += (k % 8 == 0) ? (k ? ",\n  " : "\n  ") : ", ";
    if (auto f = dyn_cast<FloatAttr>(a))
      body += c::formatFloat(f.getValueAsDouble(), elem.isF32());
    else if (elem.isInteger(1)) // a bool is 0 or 1 (not -1, its signed value)
      body += std::to_string(cast<IntegerAttr>(a).getValue().getZExtValue());
    else if (int64_t v = cast<IntegerAttr>(a).getValue().getSExtValue(); v == INT64_MIN)
      body += "INT64_MIN"; // its digits alone do not fit a signed literal
    else
      body += std::to_string(v);
    ++k;
  }
  std::string T = c::scalarCType(elem);
  auto [it, fresh] = names.try_emplace(T + "[" + body, "");
  if (fresh) {
    it->second = "scaly_table_" + std::to_string(names.size() - 1);
    text += "static const " + T + " " + it->second + "[" + std::to_string(k) + "] = {" + body +
            "\n};\n";
  }
  return "((" + T + "*)" + it->second + ")";
}

void c::Helpers::add(const std::string &name, std::string definition) {
  items.emplace_back(name, std::move(definition));
}

std::string c::Helpers::definitions() const {
  std::string text;
  for (const auto &item : items)
    text += item.second;
  return text;
}

std::string c::Helpers::use(StringRef kind, Type elem) {
  std::string name = ("scaly_" + kind + "_" + suffix(elem)).str();
  if (seen.insert(name).second)
    add(name, define(kind, elem, name));
  return name;
}

void c::Helpers::useNoUnroll() {
  if (seen.insert("SCALY_NO_UNROLL").second)
    add("SCALY_NO_UNROLL", "#if defined(__clang__)\n"
                           "#define SCALY_NO_UNROLL _Pragma(\"clang loop unroll(disable)\")\n"
                           "#else\n"
                           "#define SCALY_NO_UNROLL\n"
                           "#endif\n\n");
}

void c::Helpers::append(const Helpers &other) {
  for (const auto &[name, definition] : other.items)
    if (seen.insert(name).second)
      add(name, definition);
}

std::string c::Helpers::suffix(Type t) {
  if (t.isF64()) return "f64";
  if (t.isF32()) return "f32";
  return t.isInteger(64) ? "i64" : "i32";
}

std::string c::Helpers::define(StringRef kind, Type elem, const std::string &name) {
  std::string T = c::scalarCType(elem), U = "u" + T;
  bool isFloat = isa<FloatType>(elem);
  std::string zero = isFloat ? (elem.isF32() ? "0.0f" : "0.0") : "0";
  std::string sig = "(const " + T + " *x, long long n, long long s)";
  if (kind == "sum" && isFloat) {
    // NumPy's pairwise summation, block by block of 8192 as its reductions
    // buffer: a contiguous sum rounds exactly as np.sum.
    std::string pw = "scaly_pairwise_" + suffix(elem);
    // The short loops stay scalar under Clang, and the eight accumulators are
    // eight variables rather than an array walked by inner loops: the same
    // additions in the same order, and about half the Clang time the helper
    // cost in the JIT (nothing left to unroll, scalarize and version).
    std::string scalar = "#if defined(__clang__)\n"
                         "#pragma clang loop vectorize(disable) unroll(disable)\n"
                         "#endif\n";
    // Accumulator k starts at x[k * s] and adds p[k * s]; four to a line.
    auto at = [](int k) { return k ? std::to_string(k) + " * s" : std::string("0"); };
    std::string first, step = "      const " + T + " *p = x + i * s;\n";
    for (int k = 0; k < 8; ++k) {
      std::string r = "r" + std::to_string(k);
      bool lineEnds = k % 4 == 3;
      first += (k % 4 ? ", " : "    " + T + " ") + r + " = x[" + at(k) + "]" +
               (lineEnds ? ";\n" : "");
      step += (k % 4 ? " " : "      ") + r + " += p[" + at(k) + "];" + (lineEnds ? "\n" : "");
    }
    std::string out;
    if (seen.insert(pw).second)
      out += "static " + T + " " + pw + sig + " {\n"
             "  if (n < 8) {\n"
             "    " + T + " r = " + zero + ";\n" + scalar +
             "    for (long long i = 0; i < n; ++i)\n"
             "      r += x[i * s];\n"
             "    return r;\n"
             "  }\n"
             "  if (n <= 128) {\n" + first +
             "    long long i;\n" + scalar +
             "    for (i = 8; i < n - n % 8; i += 8) {\n" + step +
             "    }\n"
             "    " + T + " res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7));\n" +
             scalar +
             "    for (; i < n; ++i)\n"
             "      res += x[i * s];\n"
             "    return res;\n"
             "  }\n"
             "  long long n2 = n / 2;\n"
             "  n2 -= n2 % 8;\n"
             "  return " + pw + "(x, n2, s) + " + pw + "(x + n2 * s, n - n2, s);\n"
             "}\n\n";
    return out + "static " + T + " " + name + sig + " {\n"
           "  " + T + " r = " + zero + ";\n"
           "  for (long long k = 0; k < n; k += 8192)\n"
           "    r += " + pw + "(x + k * s, n - k < 8192 ? n - k : 8192, s);\n"
           "  return r;\n"
           "}\n\n";
  }
  if (kind == "sum" || kind == "prod") {
    // Integers wrap around as NumPy's do: computed in the unsigned type.
    std::string op = kind == "sum" ? "+" : "*";
    std::string init = kind == "sum" ? zero : (isFloat ? (elem.isF32() ? "1.0f" : "1.0") : "1");
    std::string acc = isFloat ? T : U;
    std::string read = isFloat ? "x[i * s]" : "(" + U + ")x[i * s]";
    return "static " + T + " " + name + sig + " {\n"
           "  " + acc + " r = " + init + ";\n"
           "  for (long long i = 0; i < n; ++i)\n"
           "    r = r " + op + " " + read + ";\n"
           "  return (" + T + ")r;\n"
           "}\n\n";
  }
  if (kind == "max" || kind == "min") {
    // NaN propagates: once r is NaN it stays; a NaN element replaces r.
    std::string cmp = kind == "max" ? ">" : "<";
    std::string test = isFloat ? "v " + cmp + " r || v != v" : "v " + cmp + " r";
    return "static " + T + " " + name + sig + " {\n"
           "  " + T + " r = x[0];\n"
           "  for (long long i = 1; i < n; ++i) {\n"
           "    " + T + " v = x[i * s];\n"
           "    if (" + test + ")\n"
           "      r = v;\n"
           "  }\n"
           "  return r;\n"
           "}\n\n";
  }
  // matmul: row by row, the inner loop over contiguous columns.
  std::string update = isFloat ? "ci[j] += aip * bp[j];"
                               : "ci[j] = (" + T + ")((" + U + ")ci[j] + (" + U + ")aip * (" +
                                     U + ")bp[j]);";
  return "static void " + name + "(const " + T + " *__restrict a, const " + T +
         " *__restrict b, " + T + " *__restrict c,\n"
         "    long long m, long long k, long long n) {\n"
         "  for (long long i = 0; i < m; ++i) {\n"
         "    " + T + " *ci = c + i * n;\n"
         "    for (long long j = 0; j < n; ++j)\n"
         "      ci[j] = " + zero + ";\n"
         "    for (long long p = 0; p < k; ++p) {\n"
         "      const " + T + " aip = a[i * k + p];\n"
         "      const " + T + " *bp = b + p * n;\n"
         "      for (long long j = 0; j < n; ++j)\n"
         "        " + update + "\n"
         "    }\n"
         "  }\n"
         "}\n\n";
}
