//===- ProgramOps.cpp - Scaly program dialect ----------------------------===//

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace scaly::prog;

#include "scaly/Dialect/Program/ProgramDialect.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "scaly/Dialect/Program/ProgramTypes.cpp.inc"

void ProgDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "scaly/Dialect/Program/ProgramTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "scaly/Dialect/Program/ProgramOps.cpp.inc"
      >();
}

Value scaly::prog::rootOf(Value ptr) {
  while (auto off = ptr.getDefiningOp<OffsetOp>())
    ptr = off.getBase();
  return ptr;
}

int64_t scaly::prog::elementBytes(Type element) {
  if (llvm::isa<NoneType>(element) || element.isInteger(1))
    return 1;
  return (element.getIntOrFloatBitWidth() + 7) / 8;
}

//===----------------------------------------------------------------------===//
// PtrType: !prog.ptr<f64> or !prog.ptr<const f64>
//===----------------------------------------------------------------------===//

Type PtrType::parse(AsmParser &parser) {
  Type element;
  bool readonly = false;
  if (parser.parseLess())
    return {};
  if (succeeded(parser.parseOptionalKeyword("const")))
    readonly = true;
  if (parser.parseType(element) || parser.parseGreater())
    return {};
  if (!element.isF64() && !element.isF32() && !element.isInteger(32) &&
      !element.isInteger(64) && !element.isInteger(1) && !llvm::isa<NoneType>(element)) {
    parser.emitError(parser.getNameLoc(),
                     "pointer element must be f64, f32, i32, i64, i1 or none, got ")
        << element;
    return {};
  }
  return PtrType::get(parser.getContext(), element, readonly);
}

void PtrType::print(AsmPrinter &printer) const {
  printer << "<" << (getReadonly() ? "const " : "") << getElementType() << ">";
}

//===----------------------------------------------------------------------===//
// ProcOp
//===----------------------------------------------------------------------===//

ParseResult ProcOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes, ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name),
      buildFuncType, getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void ProcOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult ProcOp::verify() {
  size_t expected = getNumInputs() + getNumOutputs() + 1;
  if (getArgumentTypes().size() != expected)
    return emitOpError("takes ") << getArgumentTypes().size() << " pointers but its "
                                 << getNumInputs() << " inputs, " << getNumOutputs()
                                 << " outputs and workspace need " << expected;
  if (getArgNames().size() != expected)
    return emitOpError("needs one name per argument (") << expected << "), got "
                                                         << getArgNames().size();
  if (!getResultTypes().empty())
    return emitOpError("returns nothing: outputs are written through pointers");
  for (auto [i, t] : llvm::enumerate(getArgumentTypes())) {
    auto ptr = dyn_cast<PtrType>(t);
    if (!ptr)
      return emitOpError("argument #") << i << " must be a !prog.ptr, got " << t;
    if (i < getNumInputs() && !ptr.getReadonly())
      return emitOpError("input #") << i << " must be a read-only pointer (!prog.ptr<const T>)";
    if (i >= getNumInputs() && ptr.getReadonly())
      return emitOpError("argument #") << i << " is written and must not be const";
  }
  if (getWorkspace() < 0)
    return emitOpError("workspace size must not be negative");
  return success();
}

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

LogicalResult OffsetOp::verify() {
  // The result may add const (an output read back as a callee's input) but
  // never drop it.
  auto base = cast<PtrType>(getBase().getType()), result = cast<PtrType>(getResult().getType());
  if (base.getElementType() != result.getElementType() ||
      (base.getReadonly() && !result.getReadonly()))
    return emitOpError("result type ") << result << " must be the base type " << base
                                       << " or its const version";
  return success();
}

LogicalResult LoadOp::verify() {
  auto ptr = cast<PtrType>(getPtr().getType());
  if (ptr.getElementType() != getElementTypeOrSelf(getResult().getType()))
    return emitOpError("loads ") << getResult().getType() << " through " << ptr;
  if (getStride() != 1 && !isa<VectorType>(getResult().getType()))
    return emitOpError("a stride needs a lane vector result, got ") << getResult().getType();
  if (isa<NoneType>(ptr.getElementType()))
    return emitOpError("cannot load through a void pointer");
  if (getOffset() < 0)
    return emitOpError("offset must not be negative, got ") << getOffset();
  return success();
}

void LoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(), SideEffects::DefaultResource::get());
}

LogicalResult StoreOp::verify() {
  auto ptr = cast<PtrType>(getPtr().getType());
  if (ptr.getReadonly())
    return emitOpError("cannot store through read-only pointer ") << ptr;
  if (getValues().empty())
    return emitOpError("needs at least one value");
  Type first = getValues().front().getType();
  for (Type t : getValues().getTypes()) {
    if (getElementTypeOrSelf(t) != ptr.getElementType())
      return emitOpError("stores ") << t << " through " << ptr;
    if (isa<VectorType>(t) != isa<VectorType>(first) || (isa<VectorType>(t) && t != first))
      return emitOpError("stores lane vectors of one type or scalars, not a mix of ")
             << first << " and " << t;
  }
  if (getStride() != 1 && !isa<VectorType>(first))
    return emitOpError("a stride needs lane vector values");
  if (getOffset() < 0)
    return emitOpError("offset must not be negative, got ") << getOffset();
  if (getElementAligned() && !getStreaming())
    return emitOpError("element_aligned qualifies a streaming store only");
  if (getStreaming()) {
    // Consecutive float scalars; aligned, whole 32-byte vectors: what a
    // nontemporal vector store writes.
    // Element-aligned: one GNU C vector of them, whose length must be a
    // power of two (2 to 16; a single float would need an integer store to
    // stay nontemporal without SSE4A).
    auto elem = dyn_cast<FloatType>(first);
    int64_t count = static_cast<int64_t>(getValues().size());
    int64_t bytes = count * (elem ? elem.getWidth() / 8 : 0);
    bool vectorCount = count >= 2 && count <= 16 && (count & (count - 1)) == 0;
    if (!elem || getStride() != 1 || (getElementAligned() ? !vectorCount : bytes % 32 != 0))
      return emitOpError(getElementAligned()
                             ? "an element-aligned streaming store stores 2, 4, 8 or 16 "
                               "consecutive float scalars, not "
                             : "streaming stores whole 32-byte vectors of consecutive float "
                               "scalars, not ")
             << count << " x " << first << " with stride " << getStride();
  }
  return success();
}

LogicalResult IsAlignedOp::verify() {
  int64_t bytes = getBytes();
  if (bytes <= 0 || (bytes & (bytes - 1)) != 0)
    return emitOpError("alignment must be a positive power of two, got ") << bytes;
  return success();
}

void StoreOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Write::get(), &getPtrMutable(), SideEffects::DefaultResource::get());
}

LogicalResult WindowOp::verify() {
  auto w = cast<PtrType>(getWorkspace().getType());
  if (w.getReadonly() || cast<PtrType>(getResult().getType()).getReadonly())
    return emitOpError("must be a writable window of a writable workspace");
  if (getSize() < 1)
    return emitOpError("size must be positive, got ") << getSize();
  if (getOffset() < -1 || (getOffset() >= 0 && getOffset() % 64 != 0))
    return emitOpError("offset must be -1 (unplanned) or a multiple of 64 bytes, got ")
           << getOffset();
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &table) {
  auto proc = table.lookupNearestSymbolFrom<ProcOp>(*this, getCalleeAttr());
  if (!proc)
    return emitOpError("calls '") << getCallee() << "', which is not a prog.proc";
  if (getOperandTypes() != proc.getArgumentTypes())
    return emitOpError("operand types do not match the arguments of @") << getCallee();
  if (proc.getEntry())
    return emitOpError("cannot call the entry procedure @") << getCallee();
  return success();
}

static bool isExternType(Type t) {
  return isa<PtrType>(t) || t.isF64() || t.isF32() || t.isInteger(32) || t.isInteger(64) ||
         t.isInteger(1);
}

LogicalResult ExternOp::verify() {
  FunctionType type = getFunctionType();
  if (type.getNumResults() > 1)
    return emitOpError("an external C function returns at most one value, got ")
           << type.getNumResults();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!isExternType(t))
      return emitOpError("type ") << t << " has no C form (expected f64, f32, i32, i64, i1 or "
                                           "!prog.ptr)";
  for (Type t : type.getResults())
    if (isa<PtrType>(t))
      return emitOpError("cannot return a pointer");
  return success();
}

LogicalResult CallExternOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = table.lookupNearestSymbolFrom<ExternOp>(*this, getCalleeAttr());
  if (!fn)
    return emitOpError("calls '") << getCallee() << "', which is not declared with prog.extern";
  FunctionType type = fn.getFunctionType();
  if (TypeRange(getOperandTypes()) != TypeRange(type.getInputs()) ||
      TypeRange(getResultTypes()) != TypeRange(type.getResults()))
    return emitOpError("types do not match the declaration of @") << getCallee() << ": "
                                                                  << type;
  return success();
}

LogicalResult ReduceOp::verify() {
  StringRef kind = getKind();
  if (kind != "sum" && kind != "prod" && kind != "max" && kind != "min")
    return emitOpError("kind must be sum, prod, max or min, got '") << kind << "'";
  if (getCount() < 0)
    return emitOpError("count must be >= 0");
  if (cast<PtrType>(getPtr().getType()).getElementType() != getType())
    return emitOpError("result type must be the pointer's element type");
  if (getType().isInteger(1))
    return emitOpError("cannot reduce bools");
  return success();
}

LogicalResult MatmulOp::verify() {
  Type elem = cast<PtrType>(getOut().getType()).getElementType();
  if (cast<PtrType>(getOut().getType()).getReadonly())
    return emitOpError("output must be writable");
  for (Value v : {getLhs(), getRhs()})
    if (cast<PtrType>(v.getType()).getElementType() != elem)
      return emitOpError("operands and output must have one element type");
  if (getM() < 0 || getK() < 0 || getN() < 0)
    return emitOpError("sizes must be >= 0");
  return success();
}

#define GET_OP_CLASSES
#include "scaly/Dialect/Program/ProgramOps.cpp.inc"

LogicalResult TableOp::verify() {
  auto elems = cast<ShapedType>(getValues().getType()).getElementType();
  if (elems != getType().getElementType())
    return emitOpError("table of ") << elems << " values must point to " << elems;
  return success();
}
