//===- Globals.cpp - C spellings of types and of emitc.global -------------===//
//
// The type names the printer writes (pointers, const elements, opaque types)
// and the definition of a file-scope variable: an emitc.global prints as
// `[extern ][static ]T name[n]... = init;`. A const pointer element is
// `T* const` (the pointer is const), any other const element `const T`.
// Its initial value is an integer or float attribute, or opaque C text
// (`{1, 2, 3}`: MLIR 19's elements attributes hold no opaque elements such
// as casadi_int, no strings and no symbol addresses).
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace scaly;

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

std::string c::globalDefinition(emitc::GlobalOp g) {
  Type type = g.getType();
  std::string dims;
  if (auto array = dyn_cast<emitc::ArrayType>(type)) {
    type = array.getElementType();
    for (int64_t d : array.getShape())
      dims += "[" + std::to_string(d) + "]";
  }
  std::string elem = typeName(type, false);
  if (elem.empty())
    return "";
  if (g.getConstSpecifier())
    elem = isa<emitc::PointerType>(type) ? elem + " const" : "const " + elem;
  std::string s = g.getExternSpecifier() ? "extern " : "";
  if (g.getStaticSpecifier())
    s += "static ";
  s += elem + " " + g.getSymName().str() + dims;
  if (std::optional<Attribute> init = g.getInitialValue()) {
    std::string value;
    if (auto o = dyn_cast<emitc::OpaqueAttr>(*init))
      value = o.getValue().str();
    else if (auto i = dyn_cast<IntegerAttr>(*init); i && dims.empty())
      value = std::to_string(i.getValue().getSExtValue());
    else if (auto f = dyn_cast<FloatAttr>(*init); f && dims.empty())
      value = formatFloat(f.getValueAsDouble(), f.getType().isF32());
    else
      return "";
    s += " = " + value;
  }
  return s + ";";
}
