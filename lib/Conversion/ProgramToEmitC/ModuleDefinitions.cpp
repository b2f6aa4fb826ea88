//===- ModuleDefinitions.cpp - the read-only tables a module defines ------===//

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
