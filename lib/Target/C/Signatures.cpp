//===- Signatures.cpp - C prototypes and signatures of EmitC functions ----===//
//
// One prototype for the printer's definitions, the headers' declarations
// and the signatures renders report: specifiers, result, name, parameters.
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"
#include "scaly/Target/ReservedNames.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"

using namespace mlir;
using namespace scaly;

namespace {
/// `static inline`: the function's specifiers, space-separated.
std::string specifierText(emitc::FuncOp fn) {
  std::string s;
  if (auto specs = fn.getSpecifiers())
    for (Attribute spec : *specs)
      s += (s.empty() ? "" : " ") + cast<StringAttr>(spec).getValue().str();
  return s;
}

/// The C type of parameter `i` of `fn`: const element (c::kConstAttr),
/// `__restrict` pointer (c::kRestrictAttr).
std::string paramType(emitc::FuncOp fn, unsigned i) {
  // By the function's type: a declaration has no block arguments.
  std::string type = c::typeName(fn.getArgumentTypes()[i],
                                 static_cast<bool>(fn.getArgAttr(i, c::kConstAttr)));
  return fn.getArgAttr(i, c::kRestrictAttr) ? type + " __restrict" : type;
}

/// The name `fn` gives parameter `i` (c::kNameAttr, made a safe C
/// identifier), else empty.
std::string paramName(emitc::FuncOp fn, unsigned i) {
  auto name = fn.getArgAttrOfType<StringAttr>(i, c::kNameAttr);
  return name ? c::safeIdentifier(name) : std::string();
}

/// The C type of `fn`'s result: `void`, or a const element (c::kConstAttr
/// in its result attributes).
std::string resultText(emitc::FuncOp fn) {
  auto results = fn.getFunctionType().getResults();
  if (results.empty())
    return "void";
  return c::typeName(results[0], static_cast<bool>(fn.getResultAttr(0, c::kConstAttr)));
}
} // namespace

std::string c::prototype(emitc::FuncOp fn, llvm::function_ref<std::string(unsigned)> paramName) {
  std::string s = specifierText(fn);
  s += (s.empty() ? "" : " ") + resultText(fn) + " " + fn.getSymName().str() + "(";
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    std::string name = paramName(i);
    s += (i ? ", " : "") + paramType(fn, i) + (name.empty() ? "" : " " + name);
  }
  return s + (fn.getNumArguments() ? ")" : "void)");
}

c::FunctionSignature c::functionSignature(emitc::FuncOp fn) {
  FunctionSignature sig{fn.getSymName().str(), specifierText(fn), resultText(fn), {}, {}};
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    sig.params.push_back(paramType(fn, i));
    sig.paramNames.push_back(paramName(fn, i));
  }
  return sig;
}

namespace {
void collectFunctions(Block &block, std::vector<emitc::FuncOp> &out) {
  for (Operation &op : block) {
    if (auto fn = dyn_cast<emitc::FuncOp>(op))
      out.push_back(fn);
    else if (isa_and_nonnull<cdecl::CDeclDialect>(op.getDialect()))
      for (Region &region : op.getRegions())
        for (Block &inner : region)
          collectFunctions(inner, out);
  }
}
} // namespace

std::vector<emitc::FuncOp> c::functionsIn(Block &block) {
  std::vector<emitc::FuncOp> out;
  collectFunctions(block, out);
  return out;
}

std::vector<c::FunctionSignature> c::functionSignatures(ModuleOp module) {
  std::vector<FunctionSignature> out;
  for (emitc::FuncOp fn : functionsIn(*module.getBody()))
    if (!fn.isExternal()) // an external function's declaration defines nothing
      out.push_back(functionSignature(fn));
  return out;
}

std::string c::declaration(emitc::FuncOp fn) {
  return prototype(fn, [&](unsigned i) { return paramName(fn, i); }) + ";";
}

