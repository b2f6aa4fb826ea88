//===- CTypes.cpp - C names of types, float literals, vector typedefs -----===//
//
// The spellings the C printer and the program-to-emitc translation share:
// scalar C types, type names (pointers, const elements, opaque types, array
// declarators), float literals that read back exactly, the module's vector
// typedefs, and which glibc release vectorized a libm function.
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace scaly;

std::string c::scalarCType(Type t) {
  if (t.isUnsignedInteger(64)) return "uint64_t";
  if (t.isUnsignedInteger(32)) return "uint32_t";
  if (t.isF64()) return "double";
  if (t.isF32()) return "float";
  if (t.isInteger(64)) return "int64_t";
  if (t.isInteger(32)) return "int32_t";
  if (t.isInteger(1)) return "int";
  if (t.isIndex()) return "long long";
  if (auto o = dyn_cast<emitc::OpaqueType>(t)) return o.getValue().str();
  return "";
}

int c::glibcVectorMathSince(StringRef fn) {
  const expr::MathFunctionInfo *f = expr::mathFunction(fn);
  return f ? f->glibcVectorSince : 0;
}

std::string c::VectorTypes::use(Type elem, int width) {
  std::string scalar = scalarCType(elem);
  used.insert({scalar, width});
  return scalar + std::to_string(width);
}

std::string c::VectorTypes::typedefs() const {
  std::string out;
  for (auto &[scalar, width] : used) {
    int bytes = scalar == "double" ? 8 : 4;
    out += llvm::formatv("typedef {0} {0}{1} __attribute__((vector_size({2}), aligned({3}), "
                         "may_alias));\n",
                         scalar, width, bytes * width, bytes)
               .str();
  }
  return out;
}

std::string scaly::c::formatFloat(double v, bool isF32) {
  if (std::isnan(v)) return "NAN";
  if (std::isinf(v)) return v > 0 ? "INFINITY" : "(-INFINITY)";
  char buf[64];
  snprintf(buf, sizeof buf, isF32 ? "%.9g" : "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  if (isF32)
    s += "f";
  return v < 0 ? "(" + s + ")" : s;
}

std::string c::typeName(Type t, bool isConst) {
  if (auto p = dyn_cast<emitc::PointerType>(t)) {
    // Bool buffers hold one byte per value.
    Type pointee = p.getPointee();
    if (pointee.isInteger(1))
      return std::string(isConst ? "const " : "") + "uint8_t*";
    return typeName(pointee, isConst) + "*";
  }
  std::string s = c::scalarCType(t);
  return isConst ? "const " + s : s;
}

bool c::isVoid(Type t) {
  auto o = dyn_cast<emitc::OpaqueType>(t);
  return o && o.getValue() == "void";
}

std::string c::arrayDims(emitc::ArrayType array) {
  std::string dims;
  for (int64_t d : array.getShape())
    dims += "[" + std::to_string(d) + "]";
  return dims;
}
