//===- Globals.cpp - C definitions of emitc.global --------------------------===//
//
// The definition of a file-scope variable: an emitc.global prints as
// `[extern ][static ][_Alignas(a) ]T name[n]... = init;` (the alignment from
// scaly.align). A const pointer element is
// `T* const` (the pointer is const), any other const element `const T`.
// Its initial value is an integer or float attribute, a dense elements
// attribute of an array (`{` and 8 values a line, `}`: the module's
// prog.table constants), or opaque C text (`{1, 2, 3}`: MLIR 19's elements
// attributes hold no opaque elements such as casadi_int, no strings and no
// symbol addresses).
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>

using namespace mlir;
using namespace scaly;

std::string c::elementsInitializer(ElementsAttr values) {
  Type elem = cast<ShapedType>(values.getType()).getElementType();
  std::string body;
  int64_t k = 0;
  for (Attribute a : values.getValues<Attribute>()) {
    body += (k % 8 == 0) ? (k ? ",\n  " : "\n  ") : ", ";
    if (auto f = dyn_cast<FloatAttr>(a))
      body += formatFloat(f.getValueAsDouble(), elem.isF32());
    else if (elem.isInteger(1)) // a bool is 0 or 1 (not -1, its signed value)
      body += std::to_string(cast<IntegerAttr>(a).getValue().getZExtValue());
    else if (int64_t v = cast<IntegerAttr>(a).getValue().getSExtValue(); v == INT64_MIN)
      body += "INT64_MIN"; // its digits alone do not fit a signed literal
    else
      body += std::to_string(v);
    ++k;
  }
  return "{" + body + "\n}";
}

std::string c::globalDefinition(emitc::GlobalOp g) {
  Type type = g.getType();
  std::string dims;
  if (auto array = dyn_cast<emitc::ArrayType>(type)) {
    type = array.getElementType();
    dims = c::arrayDims(array);
  }
  std::string elem = typeName(type, false);
  if (elem.empty())
    return "";
  if (g.getConstSpecifier())
    elem = isa<emitc::PointerType>(type) ? elem + " const" : "const " + elem;
  std::string s = g.getExternSpecifier() ? "extern " : "";
  if (g.getStaticSpecifier())
    s += "static ";
  if (auto align = g->getAttrOfType<IntegerAttr>(c::kAlignAttr))
    s += "_Alignas(" + std::to_string(align.getInt()) + ") ";
  else if (g->hasAttr(c::kAlignAttr))
    return "";
  s += elem + " " + g.getSymName().str() + dims;
  if (std::optional<Attribute> init = g.getInitialValue()) {
    std::string value;
    if (auto o = dyn_cast<emitc::OpaqueAttr>(*init))
      value = o.getValue().str();
    else if (auto i = dyn_cast<IntegerAttr>(*init); i && dims.empty())
      value = std::to_string(i.getValue().getSExtValue());
    else if (auto f = dyn_cast<FloatAttr>(*init); f && dims.empty())
      value = formatFloat(f.getValueAsDouble(), f.getType().isF32());
    else if (auto elements = dyn_cast<DenseElementsAttr>(*init); elements && !dims.empty())
      value = elementsInitializer(elements);
    else
      return "";
    s += " = " + value;
  }
  return s + ";";
}
