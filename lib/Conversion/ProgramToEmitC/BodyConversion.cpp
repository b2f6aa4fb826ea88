//===- BodyConversion.cpp - a procedure's body to EmitC, by DialectConversion ===//
//
// The driver of the body conversion (Patterns.h): the procedure's arguments
// are replaced by their EmitC values, its ops moved into the emitc.func, and
// applyFullConversion converts them with the patterns of Arith-, Memory-,
// Loop- and LanePatterns.cpp, built once per pass run (BodyConverter). Every op must become EmitC (or cdecl: C
// statements EmitC 19 lacks): one left over fails the conversion with
// "failed to legalize operation '<name>'".
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Program/ProgramDialect.h"
#include "scaly/Target/CEmitter.h"

#include "Lanes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

#include <utility>

using namespace mlir;
using namespace scaly;
using namespace scaly::c;
namespace pg = scaly::prog;

Type c::voidType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "void"); }
Type c::intType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "int"); }
Type c::charType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "char"); }

int64_t c::emittedElementBytes(Type t) {
  return isa<emitc::OpaqueType>(t) ? 1 : pg::elementBytes(t);
}

Type c::convertElement(Type t) { return isa<NoneType>(t) ? voidType(t.getContext()) : t; }

Type c::convertPtr(Type t) {
  if (auto p = dyn_cast<pg::PtrType>(t))
    return emitc::PointerType::get(convertElement(p.getElementType()));
  return t;
}

Type c::laneValueType(LaneSupport &lanes, Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return emitc::OpaqueType::get(t.getContext(),
                                  lanes.valueType(v.getElementType(), v.getNumElements()));
  return t;
}

namespace {

/// Runs a pattern, then gives a value the lowering named (`scaly.name` on
/// the op computing it) to the EmitC op now computing it, which the C
/// printer declares as a named variable where it is computed instead of
/// inlining it at its use (a register block's elements are all read before
/// its stores). Wraps every pattern, upstream's too, so none has to know.
class NamedResult : public RewritePattern {
public:
  explicit NamedResult(std::unique_ptr<RewritePattern> inner)
      : RewritePattern(inner->getRootKind()->getStringRef(), inner->getBenefit(),
                       inner->getContext()),
        inner(std::move(inner)) {
    // Every pattern here (ours and upstream's) has a root op.
  }

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (failed(inner->matchAndRewrite(op, rewriter)))
      return failure();
    // (On an scf.for the name is the counter's, which its pattern moves.)
    // (A discardable attribute: looked up without the op's inherent ones.)
    auto name = dyn_cast_or_null<StringAttr>(op->getDiscardableAttr(c::kNameAttr));
    if (!name || op->getNumResults() != 1 || isa<scf::ForOp>(op))
      return success();
    auto &conversion = static_cast<ConversionPatternRewriter &>(rewriter);
    // Only an op this pattern made next to `op`, not a value from outside
    // (a carried variable, a broadcast scalar).
    if (Value v = conversion.getRemappedValue(op->getResult(0)))
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == op->getBlock() && !def->hasAttr(c::kNameAttr))
        def->setAttr(c::kNameAttr, name);
    return success();
  }

private:
  std::unique_ptr<RewritePattern> inner;
};

/// A pattern (upstream's, or Scaly's with a cheap test) applied only to the ops
/// a predicate accepts.
class Restricted : public RewritePattern {
public:
  Restricted(std::unique_ptr<RewritePattern> inner, std::function<bool(Operation *)> accepts)
      : RewritePattern(inner->getRootKind()->getStringRef(), inner->getBenefit(),
                       inner->getContext()),
        inner(std::move(inner)), accepts(std::move(accepts)) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    return accepts(op) ? inner->matchAndRewrite(op, rewriter) : failure();
  }

private:
  std::unique_ptr<RewritePattern> inner;
  std::function<bool(Operation *)> accepts;
};

/// Scalars and EmitC types as they are, `!prog.ptr<T>` as `T*` (`void*` for
/// none). Lane vectors are the lane patterns', which take no converter
/// (Patterns.h): no pattern with this converter sees one.
class ProgTypeConverter : public TypeConverter {
public:
  ProgTypeConverter() {
    addConversion([](Type t) { return t; });
    addConversion([](pg::PtrType p) -> Type { return convertPtr(p); });
  }
};

/// EmitC and cdecl ops legal, the program dialect's, arith, math, scf and
/// vector illegal, each op by name: the target looks an op's name up first
/// and its dialect's namespace (a string hash) only when the name is not
/// there, for every op the conversion meets and every op a pattern creates.
void markOpsByName(MLIRContext *ctx, ConversionTarget &target) {
  for (RegisteredOperationName name : ctx->getRegisteredOperations()) {
    StringRef dialect = name.getDialectNamespace();
    if (dialect == emitc::EmitCDialect::getDialectNamespace() ||
        dialect == cdecl::CDeclDialect::getDialectNamespace())
      target.setOpAction(name, ConversionTarget::LegalizationAction::Legal);
    else if (llvm::is_contained({pg::ProgDialect::getDialectNamespace(),
                                 arith::ArithDialect::getDialectNamespace(),
                                 math::MathDialect::getDialectNamespace(),
                                 scf::SCFDialect::getDialectNamespace(),
                                 vector::VectorDialect::getDialectNamespace()},
                                dialect))
      target.setOpAction(name, ConversionTarget::LegalizationAction::Illegal);
  }
}

} // namespace

void c::addRestricted(RewritePatternSet &from, RewritePatternSet &to,
                      std::function<bool(Operation *)> accepts) {
  for (std::unique_ptr<RewritePattern> &p : from.getNativePatterns())
    to.add(std::make_unique<Restricted>(std::move(p), accepts));
  from.clear();
}

bool c::isScalarOp(Operation *op) {
  auto isVector = llvm::IsaPred<VectorType>;
  return llvm::none_of(op->getOperandTypes(), isVector) &&
         llvm::none_of(op->getResultTypes(), isVector);
}

namespace {
/// The body this thread converts (BodyConverter::convert sets it).
thread_local BodyState *current = nullptr;

/// Whether an op of `body` computes a lane vector (every op on lane vectors
/// reads one some op computed).
bool hasLaneVectors(Block &body) {
  return llvm::any_of(body.without_terminator(), [](Operation &top) {
    return top
        .walk([](Operation *op) {
          return llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  });
}

/// Every pattern wrapped so that it moves `scaly.name` (NamedResult).
FrozenRewritePatternSet named(MLIRContext *ctx, RewritePatternSet &&raw) {
  RewritePatternSet patterns(ctx);
  for (std::unique_ptr<RewritePattern> &p : raw.getNativePatterns())
    patterns.add(std::make_unique<NamedResult>(std::move(p)));
  return FrozenRewritePatternSet(std::move(patterns));
}
} // namespace

BodyState &c::currentBody() {
  assert(current && "a pattern of the body conversion outside BodyConverter::convert");
  return *current;
}

/// The converter, target and patterns: those of bodies with lane vectors
/// and, without their tests for lanes, those of bodies without.
struct BodyConverter::Impl {
  explicit Impl(MLIRContext *ctx) : target(*ctx) {
    markOpsByName(ctx, target);
    for (bool lanes : {false, true}) {
      RewritePatternSet raw(ctx);
      populateArithPatterns(converter, lanes, raw);
      populateMemoryPatterns(converter, raw);
      populateLoopPatterns(raw);
      if (lanes)
        populateLanePatterns(raw);
      (lanes ? withLanes : scalar) = named(ctx, std::move(raw));
    }
  }
  ProgTypeConverter converter;
  ConversionTarget target;
  FrozenRewritePatternSet scalar, withLanes;
};

BodyConverter::BodyConverter(MLIRContext *ctx, bool c99) : ctx(ctx), c99(c99) {}
BodyConverter::~BodyConverter() = default;

std::unique_ptr<BodyConverter::Impl> BodyConverter::acquire() const {
  {
    std::lock_guard<std::mutex> lock(freeMutex);
    if (!free.empty()) {
      std::unique_ptr<Impl> impl = std::move(free.back());
      free.pop_back();
      return impl;
    }
  }
  return std::make_unique<Impl>(ctx);
}

void BodyConverter::release(std::unique_ptr<Impl> impl) const {
  std::lock_guard<std::mutex> lock(freeMutex);
  free.push_back(std::move(impl));
}

LogicalResult BodyConverter::convert(OpBuilder &b, ValueRange args,
                                     const BodyRegistries &registries, Block &body) const {
  BodyState state(registries, c99);
  // The arguments' uses read the EmitC values directly: nothing converts
  // them, and the patterns read their operands through the adaptors.
  for (auto [arg, value] : llvm::zip(body.getArguments(), args)) {
    state.argTypes[value] = arg.getType();
    arg.replaceAllUsesWith(value);
  }
  std::unique_ptr<Impl> impl = acquire();
  const FrozenRewritePatternSet &patterns = hasLaneVectors(body) ? impl->withLanes : impl->scalar;
  Block *dest = b.getInsertionBlock();
  auto first = body.begin(), last = std::prev(body.end());
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(first, last))
    ops.push_back(&op);
  dest->getOperations().splice(b.getInsertionPoint(), body.getOperations(), first, last);
  if (ops.empty()) {
    release(std::move(impl));
    return success();
  }
  // The previous state back afterwards (a conversion inside a conversion
  // on this thread would otherwise leave it null).
  BodyState *outer = std::exchange(current, &state);
  LogicalResult converted = applyFullConversion(ops, impl->target, patterns);
  current = outer;
  release(std::move(impl));
  return converted;
}
