//===- ExprOps.cpp - Scaly expression dialect ----------------------------===//
//
// Dialect registration, verifiers and folders of the expression dialect (the
// solver calls' are in SolverOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Expr/ShapeRules.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace mlir;
using namespace scaly::expr;

#include "scaly/Dialect/Expr/ExprDialect.cpp.inc"
#include "scaly/Dialect/Expr/ExprInterfaces.cpp.inc"
#include "scaly/Dialect/Expr/ExprEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "scaly/Dialect/Expr/ExprAttrs.cpp.inc"

void ExprDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "scaly/Dialect/Expr/ExprOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "scaly/Dialect/Expr/ExprAttrs.cpp.inc"
      >();
}

Operation *ExprDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

int64_t scaly::expr::numElements(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.getNumElements();
  return 1;
}

bool scaly::expr::hasCountableElements(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return true;
  int64_t count = 1;
  for (int64_t d : shaped.getShape())
    if (llvm::MulOverflow(count, d, count))
      return false;
  return true;
}

RankedTensorType scaly::expr::withLeadingAxis(Type type, int64_t count) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape{count};
  shape.append(t.getShape().begin(), t.getShape().end());
  return RankedTensorType::get(shape, t.getElementType());
}

SmallVector<FuncOp> scaly::expr::entryFunctions(ModuleOp module) {
  auto funcs = llvm::to_vector(module.getOps<FuncOp>());
  SmallVector<FuncOp> entries;
  for (FuncOp f : funcs)
    if (f.getEntry())
      entries.push_back(f);
  if (entries.empty() && !funcs.empty())
    entries.push_back(funcs.front());
  return entries;
}

std::string scaly::expr::cMathName(StringRef fn, Type elementType) {
  const MathFunctionInfo *f = mathFunction(fn);
  std::string name = f ? f->cName : fn.str();
  if (elementType.isF32())
    name += "f";
  return name;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorOf(Type type) { return cast<RankedTensorType>(type); }

/// The value of a constant splat (float or integer), if `attr` is one.
static std::optional<double> splatValue(Attribute attr) {
  if (auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr); dense && dense.isSplat())
    return dense.getSplatValue<APFloat>().convertToDouble();
  if (auto dense = dyn_cast_or_null<DenseIntElementsAttr>(attr); dense && dense.isSplat() &&
                                                                 dense.getElementType().getIntOrFloatBitWidth() > 1)
    return static_cast<double>(dense.getSplatValue<APInt>().getSExtValue());
  return std::nullopt;
}

/// Whether `attr` is a splat of -0.0 (floats) or 0 (integers): the additive
/// identity. +0.0 is not one for floats: -0.0 + 0.0 is +0.0.
static bool isAdditiveIdentity(Attribute attr) {
  if (auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr))
    return dense.isSplat() && dense.getSplatValue<APFloat>().isNegZero();
  return splatValue(attr) == 0.0;
}

/// Whether `attr` is a splat of +0.0 or 0: x - 0 is x (and -0.0 - 0.0 is -0.0).
static bool isSubtractiveIdentity(Attribute attr) {
  if (auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr))
    return dense.isSplat() && dense.getSplatValue<APFloat>().isPosZero();
  return splatValue(attr) == 0.0;
}

/// Elementwise fold of float constants; nullptr when either is not one.
static Attribute foldFloats(ArrayRef<Attribute> operands, Type resultType,
                            llvm::function_ref<double(ArrayRef<double>)> fn) {
  SmallVector<DenseFPElementsAttr> dense;
  for (Attribute a : operands) {
    auto d = dyn_cast_or_null<DenseFPElementsAttr>(a);
    if (!d)
      return nullptr;
    dense.push_back(d);
  }
  auto type = tensorOf(resultType);
  int64_t n = type.getNumElements();
  bool isF32 = type.getElementType().isF32();
  SmallVector<APFloat> out;
  SmallVector<double> args(dense.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < dense.size(); ++k) {
      auto v = dense[k].isSplat() ? dense[k].getSplatValue<APFloat>()
                                  : dense[k].getValues<APFloat>()[i];
      args[k] = v.convertToDouble();
    }
    double r = fn(args);
    out.push_back(isF32 ? APFloat(static_cast<float>(r)) : APFloat(r));
  }
  return DenseElementsAttr::get(type, out);
}

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                          std::string &) { return builder.getFunctionType(argTypes, results); };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name),
      buildFuncType, getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &p) {
  function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                           getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                           getResAttrsAttrName());
}

LogicalResult FuncOp::verify() {
  if (getArgNames().size() != getArgumentTypes().size())
    return emitOpError("has ") << getArgumentTypes().size() << " inputs but "
                               << getArgNames().size() << " arg_names";
  if (getResNames().size() != getResultTypes().size())
    return emitOpError("has ") << getResultTypes().size() << " outputs but "
                               << getResNames().size() << " res_names";
  for (Type t : getArgumentTypes())
    if (!isa<RankedTensorType>(t) || !cast<RankedTensorType>(t).hasStaticShape())
      return emitOpError("inputs must be statically shaped tensors, got ") << t;
  return success();
}

LogicalResult ReturnOp::verify() {
  auto func = (*this)->getParentOfType<FuncOp>();
  if (getOperandTypes() != func.getResultTypes())
    return emitOpError("returns types that differ from the signature of @")
           << func.getSymName();
  return success();
}

//===----------------------------------------------------------------------===//
// Calls, maps and loops
//===----------------------------------------------------------------------===//

static FailureOr<FuncOp> lookupCallee(Operation *op, SymbolTableCollection &table,
                                      FlatSymbolRefAttr callee) {
  auto fn = table.lookupNearestSymbolFrom<FuncOp>(op, callee);
  if (!fn)
    return op->emitOpError("calls '") << callee.getValue() << "', which is not an expr.func";
  return fn;
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = lookupCallee(*this, table, getCalleeAttr());
  if (failed(fn))
    return failure();
  if (getOperandTypes() != fn->getArgumentTypes())
    return emitOpError("operand types do not match the inputs of @") << getCallee();
  if (getResultTypes() != fn->getResultTypes())
    return emitOpError("result types do not match the outputs of @") << getCallee();
  return success();
}

/// Shared by expr.jvp and expr.vjp: the operands are the callee's inputs
/// followed by one extra value per flagged port in `extra` (of the types in
/// `ports`), and the results are the values of `outs` flagged in `picked`.
template <typename OpT>
static LogicalResult verifyDerivativeUse(OpT op, FuncOp fn, ArrayRef<Type> ports,
                                         ArrayRef<bool> extra, const char *extraWhat,
                                         ArrayRef<Type> outs, ArrayRef<bool> picked) {
  auto ins = fn.getArgumentTypes();
  SmallVector<Type> operands(ins.begin(), ins.end());
  for (auto [t, on] : llvm::zip(ports, extra))
    if (on)
      operands.push_back(t);
  if (SmallVector<Type>(op.getOperandTypes()) != operands)
    return op.emitOpError("operands must be the inputs of @")
           << op.getCallee() << " then one " << extraWhat << " per flagged port";
  SmallVector<Type> results;
  for (auto [t, on] : llvm::zip(outs, picked))
    if (on)
      results.push_back(t);
  if (SmallVector<Type>(op.getResultTypes()) != results)
    return op.emitOpError("result types do not match the derivative of @") << op.getCallee();
  for (auto [t, on] : llvm::zip(ports, extra))
    if (on && !isa<FloatType>(getElementTypeOrSelf(t)))
      return op.emitOpError("a ") << extraWhat << " port of @" << op.getCallee()
                                  << " has non-float type " << t;
  return success();
}

LogicalResult JvpOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = lookupCallee(*this, table, getCalleeAttr());
  if (failed(fn))
    return failure();
  if (getWrt().size() != fn->getArgumentTypes().size())
    return emitOpError("wrt has ") << getWrt().size() << " flags but @" << getCallee()
                                   << " takes " << fn->getArgumentTypes().size() << " inputs";
  SmallVector<bool> all(fn->getResultTypes().size(), true);
  return verifyDerivativeUse(*this, *fn, fn->getArgumentTypes(), getWrt(), "tangent",
                             fn->getResultTypes(), all);
}

LogicalResult VjpOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = lookupCallee(*this, table, getCalleeAttr());
  if (failed(fn))
    return failure();
  if (getWrt().size() != fn->getArgumentTypes().size() ||
      getOf().size() != fn->getResultTypes().size())
    return emitOpError("needs one wrt flag per input (") << fn->getArgumentTypes().size()
           << ") and one of flag per result (" << fn->getResultTypes().size() << ")";
  return verifyDerivativeUse(*this, *fn, fn->getResultTypes(), getOf(), "cotangent",
                             fn->getArgumentTypes(), getWrt());
}


LogicalResult MapOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = lookupCallee(*this, table, getCalleeAttr());
  if (failed(fn))
    return failure();
  if (getCount() < 1)
    return emitOpError("count must be at least 1, got ") << getCount();
  if (getNumOperands() != fn->getArgumentTypes().size())
    return emitOpError("has ") << getNumOperands() << " operands but @" << getCallee()
                               << " takes " << fn->getArgumentTypes().size();
  if (getMapped() && getMapped()->size() != getNumOperands())
    return emitOpError("mapped has ") << getMapped()->size() << " flags for "
                                      << getNumOperands() << " operands";
  for (auto [i, pair] : llvm::enumerate(llvm::zip(getOperandTypes(), fn->getArgumentTypes()))) {
    Type expected = isMapped(i) ? Type(withLeadingAxis(std::get<1>(pair), getCount()))
                                : std::get<1>(pair);
    if (std::get<0>(pair) != expected)
      return emitOpError("operand #") << i << " must be " << expected << ", got "
                                      << std::get<0>(pair);
  }
  if (getNumResults() != fn->getResultTypes().size())
    return emitOpError("has ") << getNumResults() << " results but @" << getCallee()
                               << " returns " << fn->getResultTypes().size();
  for (auto [got, res] : llvm::zip(getResultTypes(), fn->getResultTypes()))
    if (got != withLeadingAxis(res, getCount()))
      return emitOpError("result type ") << got << " should be "
                                         << withLeadingAxis(res, getCount());
  return success();
}

LogicalResult ScanOp::verifySymbolUses(SymbolTableCollection &table) {
  auto fn = lookupCallee(*this, table, getCalleeAttr());
  if (failed(fn))
    return failure();
  if (getCount() < 1)
    return emitOpError("count must be at least 1, got ") << getCount();
  auto ins = fn->getArgumentTypes(), outs = fn->getResultTypes();
  if (getNumOperands() != ins.size() || ins.empty())
    return emitOpError("has ") << getNumOperands() << " operands but @" << getCallee()
                               << " takes " << ins.size() << " (the state first)";
  if (outs.empty() || outs[0] != ins[0])
    return emitOpError("@") << getCallee() << "'s first output must have the type of its "
                               "first input (the state)";
  if (getMapped() && getMapped()->size() != getNumOperands())
    return emitOpError("mapped has ") << getMapped()->size() << " flags for "
                                      << getNumOperands() << " operands";
  for (unsigned i = 0; i < ins.size(); ++i) {
    Type expected = isMapped(i) ? Type(withLeadingAxis(ins[i], getCount())) : ins[i];
    if (getOperand(i).getType() != expected)
      return emitOpError("operand #") << i << " must be " << expected << ", got "
                                      << getOperand(i).getType();
  }
  if (getNumResults() != outs.size())
    return emitOpError("has ") << getNumResults() << " results but @" << getCallee()
                               << " returns " << outs.size();
  for (unsigned k = 0; k < outs.size(); ++k) {
    Type expected = k == 0 ? outs[0] : Type(withLeadingAxis(outs[k], getCount()));
    if (getResult(k).getType() != expected)
      return emitOpError("result #") << k << " should be " << expected;
  }
  return success();
}

SmallVector<Region *> LoopOp::getLoopRegions() { return {&getBody()}; }

LogicalResult LoopOp::verify() {
  Block &body = getBody().front();
  unsigned carried = getNumCarried();
  if (body.getNumArguments() != getNumOperands())
    return emitOpError("body takes ") << body.getNumArguments() << " slices but the loop has "
                                      << getNumOperands() << " operands";
  if (carried > getNumOperands() || carried > getNumResults())
    return emitOpError("carries ") << carried << " values but has " << getNumOperands()
                                   << " operands and " << getNumResults() << " results";
  for (unsigned i = 0; i < carried; ++i)
    if (getOperand(i).getType() != body.getArgument(i).getType() ||
        getResult(i).getType() != getOperand(i).getType())
      return emitOpError("carried value #") << i << " must keep its type";
  for (auto [operand, arg] : llvm::zip(getOperands().drop_front(carried),
                                       body.getArguments().drop_front(carried))) {
    auto t = tensorOf(operand.getType());
    if (t.getRank() < 1 || t.getDimSize(0) != getCount())
      return emitOpError("operand of type ") << t << " has no leading axis of length " << getCount();
    if (withLeadingAxis(arg.getType(), getCount()) != t)
      return emitOpError("body argument ") << arg.getType() << " is not a slice of " << t;
  }
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != getNumResults())
    return emitOpError("yields ") << yield.getNumOperands() << " values for " << getNumResults()
                                  << " results";
  for (unsigned i = 0; i < carried; ++i)
    if (yield.getOperand(i).getType() != getResult(i).getType())
      return emitOpError("yields a next value #") << i << " of another type";
  for (auto [y, r] : llvm::zip(llvm::drop_begin(yield.getOperandTypes(), carried),
                               llvm::drop_begin(getResultTypes(), carried)))
    if (withLeadingAxis(y, getCount()) != r)
      return emitOpError("yielded slice ") << y << " does not stack to " << r;
  return success();
}

Value FusedOp::getRoot() { return cast<YieldOp>(getBody().front().getTerminator()).getOperand(0); }

LogicalResult FusedOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 0)
    return emitOpError("body takes no arguments (it reads outer values directly)");
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1 || yield.getOperand(0).getType() != getType())
    return emitOpError("body must yield one value of the result's type ") << getType();
  if (yield.getOperand(0).getParentBlock() != &body)
    return emitOpError("body must yield a value it computes, not one from outside it");
  for (Operation &op : body.without_terminator())
    if (!isFusible(&op))
      return emitOpError("body may hold only elementwise ops, views, concatenations and "
                         "gathers, found '")
             << op.getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                           ValueRange, DictionaryAttr attributes,
                                           OpaqueProperties properties, RegionRange,
                                           SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  Attribute value = props ? props->value : attributes.get("value");
  auto elements = dyn_cast_or_null<ElementsAttr>(value);
  if (!elements)
    return failure();
  inferred.push_back(elements.getType());
  return success();
}

LogicalResult ConstantOp::verify() {
  auto type = dyn_cast<RankedTensorType>(getValue().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("value must be a statically shaped tensor");
  // Lowering and the tracer read the elements: dense integers or floats only
  // (no sparse or resource-backed data).
  if (!isa<DenseIntOrFPElementsAttr>(getValue()))
    return emitOpError("value must be dense integer or float elements");
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult AddOp::fold(FoldAdaptor a) {
  if (isAdditiveIdentity(a.getRhs()))
    return getLhs();
  if (isAdditiveIdentity(a.getLhs()))
    return getRhs();
  return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                    [](ArrayRef<double> v) { return v[0] + v[1]; });
}

OpFoldResult SubOp::fold(FoldAdaptor a) {
  if (isSubtractiveIdentity(a.getRhs()))
    return getLhs();
  return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                    [](ArrayRef<double> v) { return v[0] - v[1]; });
}

namespace {
/// A negated right operand folds into the inverse op: x + (-y) -> x - y
/// (OpT AddOp, InverseT SubOp) and x - (-y) -> x + y.
template <typename OpT, typename InverseT>
struct FoldNegatedRhs : OpRewritePattern<OpT> {
  using OpRewritePattern<OpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpT op, PatternRewriter &rewriter) const override {
    auto neg = op.getRhs().template getDefiningOp<NegOp>();
    if (!neg)
      return failure();
    rewriter.replaceOpWithNewOp<InverseT>(op, op.getLhs(), neg.getOperand());
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldNegatedRhs<AddOp, SubOp>>(context);
}

void SubOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldNegatedRhs<SubOp, AddOp>>(context);
}

OpFoldResult MulOp::fold(FoldAdaptor a) {
  if (splatValue(a.getRhs()) == 1.0)
    return getLhs();
  if (splatValue(a.getLhs()) == 1.0)
    return getRhs();
  if (getExactZeros())
    return foldFloats({a.getLhs(), a.getRhs()}, getType(), [](ArrayRef<double> v) {
      return v[0] == 0.0 || v[1] == 0.0 ? 0.0 : v[0] * v[1];
    });
  return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                    [](ArrayRef<double> v) { return v[0] * v[1]; });
}

OpFoldResult DivOp::fold(FoldAdaptor a) {
  if (splatValue(a.getRhs()) == 1.0)
    return getLhs();
  if (getExactZeros())
    return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                      [](ArrayRef<double> v) { return v[0] == 0.0 ? 0.0 : v[0] / v[1]; });
  return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                    [](ArrayRef<double> v) { return v[0] / v[1]; });
}

OpFoldResult NegOp::fold(FoldAdaptor a) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return foldFloats({a.getOperand()}, getType(), [](ArrayRef<double> v) { return -v[0]; });
}

OpFoldResult MathOp::fold(FoldAdaptor a) {
  const MathFunctionInfo &f = mathFunction(1, static_cast<int>(getFn()));
  return foldFloats({a.getOperand()}, getType(),
                    [&f](ArrayRef<double> v) { return f.apply(v[0], 0.0); });
}

OpFoldResult Math2Op::fold(FoldAdaptor a) {
  const MathFunctionInfo &f = mathFunction(2, static_cast<int>(getFn()));
  return foldFloats({a.getLhs(), a.getRhs()}, getType(),
                    [&f](ArrayRef<double> v) { return f.apply(v[0], v[1]); });
}

// Shapes of cmp, select and cast are checked by the Elementwise trait.

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

static shape::Shape shapeOf(Type t) { return shape::Shape(tensorOf(t).getShape()); }

LogicalResult BroadcastOp::verify() {
  if (!shape::broadcastsTo(shapeOf(getOperand().getType()), shapeOf(getType())))
    return emitOpError("cannot broadcast ") << getOperand().getType() << " to " << getType()
                                            << ": operand axes must equal the result's trailing "
                                               "axes or be 1";
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor a) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getOperand()); dense && dense.isSplat())
    return DenseElementsAttr::get(tensorOf(getType()), dense.getSplatValue<Attribute>());
  return nullptr;
}

LogicalResult TransposeOp::verify() {
  std::string error;
  shape::Shape out = shape::transpose(shapeOf(getOperand().getType()),
                                      shape::Shape(getPermutation()), error);
  if (!error.empty())
    return emitOpError(error);
  if (out != shapeOf(getType()))
    return emitOpError("result shape must be ") << shape::str(out);
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity &= perm[i] == static_cast<int64_t>(i);
  if (identity)
    return getOperand();
  // transpose(transpose(x, p), q) is transpose(x, p o q).
  if (auto inner = getOperand().getDefiningOp<TransposeOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t q : perm)
      composed.push_back(inner.getPermutation()[q]);
    getOperandMutable().assign(inner.getOperand());
    setPermutation(composed);
    return getResult();
  }
  return nullptr;
}

LogicalResult SliceOp::verify() {
  std::string error;
  shape::Shape sizes = shapeOf(getType());
  shape::slice(shapeOf(getOperand().getType()), shape::Shape(getStarts()),
               shape::Shape(getSteps()), sizes, error);
  if (!error.empty())
    return emitOpError(error);
  return success();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getOperand().getType() != getType())
    return nullptr;
  for (auto [start, step] : llvm::zip(getStarts(), getSteps()))
    if (start != 0 || step != 1)
      return nullptr;
  return getOperand();
}

std::optional<int64_t> scaly::expr::contiguousStart(SliceOp slice) {
  return shape::contiguousStart(shapeOf(slice.getOperand().getType()), shapeOf(slice.getType()),
                                shape::Shape(slice.getStarts()), shape::Shape(slice.getSteps()));
}

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         ValueRange operands, DictionaryAttr,
                                         OpaqueProperties properties, RegionRange,
                                         SmallVectorImpl<Type> &inferred) {
  auto *props = properties.as<Properties *>();
  if (!props || operands.empty() || !props->axes)
    return failure();
  auto in = tensorOf(operands[0].getType());
  std::string error;
  shape::Shape out = shape::reduce(shape::Shape(in.getShape()),
                                   shape::Shape(props->axes.asArrayRef()), error);
  if (!error.empty())
    return loc ? mlir::emitError(*loc, error) : failure();
  inferred.push_back(RankedTensorType::get(out, in.getElementType()));
  return success();
}

LogicalResult ReduceOp::verify() {
  if (tensorOf(getType()).getElementType().isInteger(1))
    return emitOpError("cannot reduce bool arrays: cast them to a number first");
  // A maximum or minimum of nothing has no value (NumPy refuses it too).
  if (getKind() == ReduceKind::max || getKind() == ReduceKind::min)
    for (int64_t axis : getAxes())
      if (axis >= 0 && axis < tensorOf(getOperand().getType()).getRank() &&
          tensorOf(getOperand().getType()).getDimSize(axis) == 0)
        return emitOpError("has no identity over the zero-size axis ") << axis;
  return success();
}

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                         ValueRange operands, DictionaryAttr, OpaqueProperties,
                                         RegionRange, SmallVectorImpl<Type> &inferred) {
  if (operands.size() != 2)
    return failure();
  std::string error;
  shape::Shape out = shape::matmul(shapeOf(operands[0].getType()),
                                   shapeOf(operands[1].getType()), error);
  if (!error.empty())
    return loc ? mlir::emitError(*loc, error) : failure();
  inferred.push_back(RankedTensorType::get(out, tensorOf(operands[0].getType()).getElementType()));
  return success();
}

LogicalResult MatmulOp::verify() {
  if (tensorOf(getType()).getElementType().isInteger(1))
    return emitOpError("matrix products of bool arrays are not defined; cast them first");
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto in = tensorOf(getOperand().getType()), out = tensorOf(getType());
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("cannot reshape ") << in.getNumElements() << " elements to " << out;
  return success(); // element types: AllElementTypesMatch (ODS)
}

OpFoldResult ReshapeOp::fold(FoldAdaptor a) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getOperand()))
    return dense.reshape(tensorOf(getType()));
  return nullptr;
}

LogicalResult GatherOp::verify() {
  auto in = tensorOf(getOperand().getType()), out = tensorOf(getType());
  if (static_cast<int64_t>(getIndices().size()) != out.getNumElements())
    return emitOpError("has ") << getIndices().size() << " indices for a result of "
                               << out.getNumElements() << " elements";
  for (int64_t i : getIndices())
    if (i < 0 || i >= in.getNumElements())
      return emitOpError("index ") << i << " is outside the operand's " << in.getNumElements()
                                   << " elements";
  return success(); // element types: AllElementTypesMatch (ODS)
}

OpFoldResult GatherOp::fold(FoldAdaptor a) {
  ArrayRef<int64_t> idx = getIndices();
  bool identity = getOperand().getType() == getType();
  for (size_t i = 0; identity && i < idx.size(); ++i)
    identity = idx[i] == static_cast<int64_t>(i);
  if (identity)
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<GatherOp>()) {
    SmallVector<int64_t> composed;
    for (int64_t i : idx)
      composed.push_back(inner.getIndices()[i]);
    getOperandMutable().assign(inner.getOperand());
    setIndices(composed);
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getOperand())) {
    auto values = llvm::to_vector(dense.getValues<Attribute>());
    SmallVector<Attribute> picked;
    for (int64_t i : idx)
      picked.push_back(values[i]);
    return DenseElementsAttr::get(tensorOf(getType()), picked);
  }
  return nullptr;
}

LogicalResult ScatterOp::verify() {
  std::string error;
  ArrayRef<int64_t> at = getPositions();
  shape::scatter(shapeOf(getValues().getType()), at.data(), at.size(), shapeOf(getType()), error);
  if (!error.empty())
    return emitOpError(error.substr(sizeof("scatter: ") - 1));
  return success(); // element types: AllElementTypesMatch (ODS)
}

OpFoldResult ScatterOp::fold(FoldAdaptor a) {
  ArrayRef<int64_t> at = getPositions();
  // Every element placed where it is: the values themselves.
  bool identity = getValues().getType() == getType();
  for (size_t k = 0; identity && k < at.size(); ++k)
    identity = at[k] == static_cast<int64_t>(k);
  if (identity)
    return getValues();
  // Zeros placed among zeros (one splat, whatever the size). Other constant
  // values are not folded: a large result would become a table of every
  // element, which is what this op avoids.
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a.getValues())) {
    bool zero = dense.isSplat() || dense.empty();
    if (zero && !dense.empty()) {
      Attribute v = dense.getSplatValue<Attribute>();
      if (auto f = dyn_cast<FloatAttr>(v))
        zero = f.getValue().isZero() && !f.getValue().isNegative();
      else if (auto i = dyn_cast<IntegerAttr>(v))
        zero = i.getValue().isZero();
      else
        zero = false;
    }
    if (zero)
      return DenseElementsAttr::get(tensorOf(getType()),
                                    Builder(getContext()).getZeroAttr(tensorOf(getType()).getElementType()));
  }
  return nullptr;
}

LogicalResult ConcatOp::verify() {
  if (auto axis = getAxis()) {
    std::vector<shape::Shape> parts;
    for (Type t : getOperandTypes()) {
      parts.push_back(shapeOf(t));
      if (tensorOf(t).getElementType() != tensorOf(getType()).getElementType())
        return emitOpError("operand ") << t << " has another element type than " << getType();
    }
    std::string error;
    shape::Shape out = shape::concat(parts, *axis, error);
    if (!error.empty())
      return emitOpError(error);
    if (out != shapeOf(getType()))
      return emitOpError("result shape must be ") << shape::str(out);
    return success();
  }
  int64_t total = 0;
  auto out = tensorOf(getType());
  for (Type t : getOperandTypes()) {
    total += tensorOf(t).getNumElements();
    if (tensorOf(t).getElementType() != out.getElementType())
      return emitOpError("operand ") << t << " has another element type than " << out;
  }
  if (total != out.getNumElements())
    return emitOpError("operands hold ") << total << " elements but the result " << out
                                         << " holds " << out.getNumElements();
  return success();
}

OpFoldResult ConcatOp::fold(FoldAdaptor a) {
  if (getNumOperands() == 1 && getOperand(0).getType() == getType())
    return getOperand(0);
  if (getAxis() && *getAxis() != 0)
    return nullptr; // constants joined along an inner axis: left to lowering
  SmallVector<Attribute> values;
  for (Attribute attr : a.getOperands()) {
    auto dense = dyn_cast_or_null<DenseElementsAttr>(attr);
    if (!dense)
      return nullptr;
    llvm::append_range(values, dense.getValues<Attribute>());
  }
  return DenseElementsAttr::get(tensorOf(getType()), values);
}

LogicalResult SumOp::verify() {
  auto in = tensorOf(getOperand().getType()), out = tensorOf(getType());
  if (out.getRank() != 0 || out.getElementType() != in.getElementType())
    return emitOpError("result must be a scalar of the operand's element type");
  return success();
}

#define GET_OP_CLASSES
#include "scaly/Dialect/Expr/ExprOps.cpp.inc"
