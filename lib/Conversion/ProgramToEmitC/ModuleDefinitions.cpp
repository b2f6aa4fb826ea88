//===- ModuleDefinitions.cpp - the read-only tables a module defines ------===//

#include "ModuleDefinitions.h"

#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace scaly;

std::string c::Tables::key(ElementsAttr values) {
  Type elem = cast<ShapedType>(values.getType()).getElementType();
  return c::scalarCType(elem) + "[" + c::elementsInitializer(values);
}

void c::Tables::use(ElementsAttr values) {
  if (pointers.contains(values))
    return;
  auto [it, fresh] = names.try_emplace(key(values), "");
  if (fresh) {
    it->second = "scaly_table_" + std::to_string(names.size() - 1);
    tables.push_back({it->second, values});
  }
  Type elem = cast<ShapedType>(values.getType()).getElementType();
  pointers[values] = "((" + c::scalarCType(elem) + "*)" + it->second + ")";
}

std::string c::Tables::pointerTo(ElementsAttr values) const {
  auto it = pointers.find(values);
  assert(it != pointers.end() && "a table read that was not registered");
  return it->second;
}

void c::Tables::define(OpBuilder &b, Location loc) const {
  for (const Table &t : tables) {
    auto type = cast<ShapedType>(t.values.getType());
    int64_t count = type.getNumElements();
    Type elem = type.getElementType();
    // One dimension, as the C array (emitc.global's initial value has the
    // array's shape); elements attributes other than dense ones are C text.
    Attribute init;
    if (auto dense = dyn_cast<DenseElementsAttr>(t.values))
      init = dense.reshape(RankedTensorType::get({count}, elem));
    else
      init = emitc::OpaqueAttr::get(b.getContext(), c::elementsInitializer(t.values));
    b.create<emitc::GlobalOp>(loc, t.name, emitc::ArrayType::get({count}, elem), init,
                              /*extern_specifier=*/false, /*static_specifier=*/true,
                              /*const_specifier=*/true);
  }
}
