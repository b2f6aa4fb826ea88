//===- Plans.cpp - the rules behind the planning passes' marks --------------===//
//
// scaly-plan-fusion, scaly-plan-loop-orders and scaly-plan-placement mark
// ops (scaly.fused, scaly.loop_order and expr.copy_plan, expr.place) for
// scaly-lower-to-program.
// The rules they follow are here, in the dialect, so that the lowering reads
// the same ones: whether a value is computed where it is read, whether a
// reduction's rows can be accumulated, which values may need memory. So are
// the #expr.place attribute's syntax and the verifiers of the plans
// (expr.place, expr.next, expr.scalarize_limit; expr.copy_plan's is in
// CopyPlan.cpp).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/DialectImplementation.h"

using namespace mlir;
using namespace scaly::expr;

bool scaly::expr::isFusible(Operation *op) {
  return isElementwise(op) ||
         isa<BroadcastOp, TransposeOp, SliceOp, ReshapeOp, ConcatOp, GatherOp>(op);
}

bool scaly::expr::isComputedWhereRead(Operation *op) {
  return op->hasAttr(kFusedAttr) || isa<FusedOp>(op) || isa_and_nonnull<FusedOp>(op->getParentOp());
}

bool scaly::expr::computedInPlace(Value v, int64_t limit) {
  Operation *def = v.getDefiningOp();
  if (!def || numElements(v.getType()) <= limit)
    return false;
  if (isComputedWhereRead(def))
    return true;
  if (auto r = dyn_cast<ReshapeOp>(def))
    return computedInPlace(r.getOperand(), limit);
  if (auto c = dyn_cast<ConstantOp>(def))
    return cast<DenseElementsAttr>(c.getValue()).isSplat();
  return false;
}

bool scaly::expr::accumulatesRows(ReduceOp o, int64_t limit) {
  ArrayRef<int64_t> axes = o.getAxes();
  if (axes.size() != 1 || numElements(o.getOperand().getType()) <= limit ||
      numElements(o.getType()) <= limit)
    return false;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(o.getOperand().getType()).getShape();
  int64_t axis = axes[0], rank = static_cast<int64_t>(shape.size());
  if (axis == rank - 1 || shape[axis] < 2)
    return false;
  int64_t run = 1;
  for (int64_t n : shape.drop_front(axis + 1))
    run *= n;
  return run >= 2;
}

bool scaly::expr::sumsInBlocks(ReduceOp o) {
  Type operand = o.getOperand().getType();
  return o.getKind() == ReduceKind::sum && numElements(o.getType()) == 1 &&
         cast<RankedTensorType>(o.getType()).getRank() == 0 &&
         isa<FloatType>(cast<RankedTensorType>(operand).getElementType()) &&
         numElements(operand) > kSumBlock;
}

bool scaly::expr::reducesTrailingAxes(ReduceOp o) {
  ArrayRef<int64_t> axes = o.getAxes();
  int64_t rank = cast<RankedTensorType>(o.getOperand().getType()).getRank();
  for (size_t i = 0; i < axes.size(); ++i)
    if (axes[i] != rank - static_cast<int64_t>(axes.size() - i))
      return false;
  return true;
}

bool scaly::expr::mayNeedMemory(OpResult r, int64_t limit) {
  Operation *def = r.getOwner();
  if (isa<CallOp, LoopOp, QpSolveOp, NlpSolveOp>(def))
    return true;
  // A sum of all elements is one scalar, whatever the limit.
  if (isa<SumOp>(def))
    return false;
  if (numElements(r.getType()) > limit)
    return true;
  // A product with a large operand is a prog.matmul: it writes memory.
  if (auto mm = dyn_cast<MatmulOp>(def))
    return numElements(mm.getLhs().getType()) > limit || numElements(mm.getRhs().getType()) > limit;
  return false;
}

//===----------------------------------------------------------------------===//
// #expr.place and the expr.place array of an op
//===----------------------------------------------------------------------===//

PlaceAttr scaly::expr::placeOf(Value v) {
  auto r = dyn_cast<OpResult>(v);
  if (!r)
    return {};
  auto plans = r.getOwner()->getAttrOfType<ArrayAttr>(kPlaceAttr);
  if (!plans || plans.size() <= r.getResultNumber())
    return {};
  return dyn_cast<PlaceAttr>(plans[r.getResultNumber()]);
}

std::optional<int64_t> scaly::expr::scalarizeLimitOf(FuncOp func) {
  auto limit = func->getAttrOfType<IntegerAttr>(kScalarizeLimitAttr);
  if (!limit)
    return std::nullopt;
  return limit.getInt();
}

bool scaly::expr::nextInWindow(LoopOp loop, unsigned k) {
  auto plans = loop->getAttrOfType<ArrayAttr>(kNextAttr);
  auto plan = plans && k < plans.size() ? dyn_cast<PlaceAttr>(plans[k]) : PlaceAttr();
  return plan && plan.getKind() == PlaceKind::workspace;
}

// #expr.place<output 0>, <output 0 offset 4>, <yield 1>, <workspace>, <registers>
Attribute PlaceAttr::parse(AsmParser &parser, Type) {
  StringRef keyword;
  SMLoc at = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&keyword))
    return {};
  std::optional<PlaceKind> kind = symbolizePlaceKind(keyword);
  if (!kind) {
    parser.emitError(at, "expected output, yield, workspace or registers, got '") << keyword << "'";
    return {};
  }
  int64_t index = 0, offset = 0;
  if (*kind == PlaceKind::output || *kind == PlaceKind::yield) {
    if (parser.parseInteger(index))
      return {};
    if (succeeded(parser.parseOptionalKeyword("offset")) && parser.parseInteger(offset))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PlaceAttr>(at, parser.getContext(), *kind, index, offset);
}

void PlaceAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyPlaceKind(getKind());
  if (isDestination()) {
    printer << " " << getIndex();
    if (getOffset() != 0)
      printer << " offset " << getOffset();
  }
  printer << ">";
}

LogicalResult PlaceAttr::verify(function_ref<InFlightDiagnostic()> emitError, PlaceKind kind,
                                int64_t index, int64_t offset) {
  bool destination = kind == PlaceKind::output || kind == PlaceKind::yield;
  if (destination && (index < 0 || offset < 0))
    return emitError() << "#expr.place: the " << stringifyPlaceKind(kind)
                       << " number and the offset must not be negative, got " << index
                       << " and " << offset;
  if (!destination && (index != 0 || offset != 0))
    return emitError() << "#expr.place<" << stringifyPlaceKind(kind)
                       << "> takes no number and no offset";
  return success();
}

/// expr.scalarize_limit: a count of elements on an expr.func.
static LogicalResult verifyScalarizeLimit(Operation *op, Attribute value) {
  if (!isa<FuncOp>(op))
    return op->emitError("expr.scalarize_limit belongs on an expr.func");
  auto limit = dyn_cast<IntegerAttr>(value);
  if (!limit || !limit.getType().isSignlessInteger(64) || limit.getInt() < 0)
    return op->emitError("expr.scalarize_limit must be an i64 of at least 0, got ") << value;
  return success();
}

/// expr.next: on an expr.loop, one #expr.place per carried value, each
/// `workspace` or `registers` (a next value has no output or slice of its
/// own: it replaces the carried one).
static LogicalResult verifyNextPlans(Operation *op, Attribute value) {
  auto loop = dyn_cast<LoopOp>(op);
  if (!loop)
    return op->emitError("expr.next belongs on an expr.loop");
  auto plans = dyn_cast<ArrayAttr>(value);
  auto isWindowOrScalars = [](Attribute a) {
    auto p = dyn_cast<PlaceAttr>(a);
    return p && !p.isDestination();
  };
  if (!plans || plans.size() != loop.getNumCarried() || !llvm::all_of(plans, isWindowOrScalars))
    return op->emitError("expr.next must be an array of one #expr.place<workspace> or "
                         "#expr.place<registers> per carried value (")
           << loop.getNumCarried() << ")";
  return success();
}

LogicalResult ExprDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  // Other expr.* marks (expr.mask, transient in scaly-differentiate) are
  // free-form.
  if (attr.getName() == kScalarizeLimitAttr)
    return verifyScalarizeLimit(op, attr.getValue());
  if (attr.getName() == kNextAttr)
    return verifyNextPlans(op, attr.getValue());
  if (attr.getName() == kCopyPlanAttr)
    return verifyCopyPlan(op, attr.getValue());
  if (attr.getName() != kPlaceAttr)
    return success();
  auto plans = dyn_cast<ArrayAttr>(attr.getValue());
  if (!plans || plans.size() != op->getNumResults() ||
      !llvm::all_of(plans, [](Attribute a) { return isa<PlaceAttr>(a); }))
    return op->emitError("expr.place must be an array of one #expr.place per result (")
           << op->getNumResults() << ")";
  return success();
}

LogicalResult scaly::expr::checkScalarizeLimit(Operation *op, StringRef pass, int64_t limit) {
  if (limit >= 0)
    return success();
  return op->emitError() << pass << ": scalarize-limit must be at least 0, got " << limit;
}

bool scaly::expr::needsPlacement(Operation *op) {
  return isa_and_nonnull<ExprDialect>(op->getDialect()) && op->getNumResults() > 0;
}
