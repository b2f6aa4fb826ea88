//===- CTypes.cpp - C names of types, float literals, vector typedefs -----===//
//
// The spellings the C printer and the program-to-emitc translation share:
// scalar C types, type names (pointers, const elements, opaque types, array
// declarators), float literals that read back exactly, the module's vector
// typedefs, and which glibc release vectorized a libm function.
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"
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

std::pair<Type, bool> c::typeFromName(MLIRContext *ctx, StringRef name) {
  bool isConst = name.consume_front("const ");
  size_t stars = name.size() - name.rtrim('*').size();
  name = name.rtrim('*');
  Builder b(ctx);
  Type t = llvm::StringSwitch<Type>(name)
               .Case("double", b.getF64Type())
               .Case("float", b.getF32Type())
               .Case("int64_t", b.getI64Type())
               .Case("int32_t", b.getI32Type())
               .Case("uint64_t", b.getIntegerType(64, /*isSigned=*/false))
               .Case("uint32_t", b.getIntegerType(32, /*isSigned=*/false))
               .Default(emitc::OpaqueType::get(ctx, name));
  for (size_t k = 0; k < stars; ++k)
    t = emitc::PointerType::get(t);
  return {t, isConst};
}

int c::glibcVectorMathSince(StringRef fn) {
  const expr::MathFunctionInfo *f = expr::mathFunction(fn);
  return f ? f->glibcVectorSince : 0;
}

/// `double4`, or `double4_aligned` for the naturally aligned one.
static std::string vectorTypeName(StringRef scalar, int width, bool natural) {
  return scalar.str() + std::to_string(width) + (natural ? "_aligned" : "");
}

std::string c::VectorTypes::use(Type elem, int width) {
  std::string scalar = scalarCType(elem);
  used.insert({scalar, width, false});
  return vectorTypeName(scalar, width, false);
}

std::string c::VectorTypes::useAligned(Type elem, int width) {
  std::string scalar = scalarCType(elem);
  used.insert({scalar, width, true});
  return vectorTypeName(scalar, width, true);
}

void c::VectorTypes::define(OpBuilder &b, Location loc) const {
  for (auto &[scalar, width, natural] : used) {
    bool isDouble = scalar == "double";
    int64_t bytes = isDouble ? 8 : 4;
    Type elem = isDouble ? Type(b.getF64Type()) : Type(b.getF32Type());
    // The natural one is aligned to the whole vector; the others to one
    // element, so stores never assume more than the caller's buffer has.
    b.create<cdecl::TypedefOp>(loc, vectorTypeName(scalar, width, natural), elem, b.getI64IntegerAttr(bytes * width),
                               /*vector_size_times=*/StringAttr(), natural ? IntegerAttr() : b.getI64IntegerAttr(bytes),
                               /*may_alias=*/true);
  }
}

std::string c::stringLiteral(StringRef text) {
  std::string s = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\')
      s += '\\';
    if (ch < 0x20 || ch == 0x7f) {
      char octal[5];
      snprintf(octal, sizeof octal, "\\%03o", unsigned(ch));
      s += octal;
    } else {
      s += static_cast<char>(ch);
    }
  }
  return s + "\"";
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
