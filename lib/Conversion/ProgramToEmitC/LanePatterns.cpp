//===- LanePatterns.cpp - lane vectors of widened loops to EmitC ----------===//
//
// All Scaly's own: upstream's ArithToEmitC converts scalars only (MLIR 19),
// and nothing upstream knows GNU C vectors. The ops of loops scaly-widen-lanes
// made wide, on `vector<L x T>`, become GNU C vector operations on the
// types and helpers of Lanes.h: + - * / as they are, compares to masks, a
// select on a mask a bitwise blend, math libmvec or lane-by-lane calls,
// loads and stores through aligned(8), may_alias types or strided helpers.
// These patterns take no TypeConverter and have benefit kLanes, so they are
// tried before the scalar ones (Patterns.h).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "scaly/Dialect/Expr/MathFunctions.h"
#include "scaly/Target/CEmitter.h"

#include "Lanes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace scaly;
using namespace scaly::c;
namespace pg = scaly::prog;

namespace {

bool isLaneOp(Operation *op) { return !isScalarOp(op); }

/// A pattern on the ops of one kind that have a lane vector operand or result.
struct LanePattern : ConversionPattern {
  LanePattern(StringRef root, MLIRContext *ctx) : ConversionPattern(root, kLanes, ctx) {}
  LaneSupport &lanes() const { return currentBody().registries.lanes; }
  Type valueType(Type t) const { return laneValueType(lanes(), t); }

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &r) const final {
    Value v = lower(op, operands, r);
    if (!v)
      return failure();
    if (op->getNumResults())
      r.replaceOp(op, v);
    else
      r.eraseOp(op);
    return success();
  }
  /// The op's EmitC value (for an op without results, any non-null value).
  virtual Value lower(Operation *op, ArrayRef<Value> operands,
                      ConversionPatternRewriter &r) const = 0;
};

/// + - * / % ^ of lane vectors: the GNU C operator on the value type.
template <typename EmitCOp>
struct Binary : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    return r.create<EmitCOp>(op->getLoc(), valueType(op->getResult(0).getType()), x[0], x[1]);
  }
};

/// & or | of two lane masks: the masks' own C type.
template <typename EmitCOp>
struct MaskBinary : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    return r.create<EmitCOp>(op->getLoc(), x[0].getType(), x[0], x[1]);
  }
};

struct Neg : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    return r.create<emitc::UnaryMinusOp>(op->getLoc(), valueType(op->getResult(0).getType()),
                                         x[0]);
  }
};

/// A compare of lane vectors: a mask of the operands' element width (GNU C).
struct Cmp : LanePattern {
  using LanePattern::LanePattern;
  static emitc::CmpPredicate predicate(Operation *op) {
    if (auto f = dyn_cast<arith::CmpFOp>(op))
      return cmpPredicate(f.getPredicate());
    return cmpPredicate(cast<arith::CmpIOp>(op).getPredicate());
  }
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    if (failed(checkCompare(op)))
      return Value();
    Type type = op->getResult(0).getType();
    if (auto v = dyn_cast<VectorType>(op->getOperand(0).getType()))
      type = emitc::OpaqueType::get(r.getContext(),
                                    lanes().maskType(v.getElementType(), v.getNumElements()));
    return r.create<emitc::CmpOp>(op->getLoc(), type, predicate(op), x[0], x[1]);
  }
};

/// Lane by lane on a mask: a bitwise blend through the mask (C has no ?:
/// on vector conditions); on a bool, C's ?: on the value type.
struct Select : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    auto v = cast<VectorType>(op->getResult(0).getType());
    if (isa<VectorType>(op->getOperand(0).getType()))
      return callOpaque(r, lanes().select(v.getElementType(), v.getNumElements()), valueType(v),
                        x, op->getLoc());
    return r.create<emitc::ConditionalOp>(op->getLoc(), valueType(v), x[0], x[1], x[2]);
  }
};

/// A conversion of lane vectors: a C cast to the op's own type.
struct Cast : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    return r.create<emitc::CastOp>(op->getLoc(), op->getResult(0).getType(), x[0]);
  }
};

/// A math function on every lane: libmvec's variant or a lane-by-lane helper.
struct Math : LanePattern {
  Math(StringRef root, MLIRContext *ctx, StringRef fn) : LanePattern(root, ctx), fn(fn) {}
  StringRef fn;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    auto v = cast<VectorType>(op->getResult(0).getType());
    std::string callee =
        lanes().math(fn, v.getElementType(), v.getNumElements(), op->getNumOperands());
    return callOpaque(r, callee, valueType(v), x, op->getLoc());
  }
};

/// A broadcast whose every use is + - * / is the scalar itself there (GNU
/// C converts a scalar operand of a vector operation to a vector); other
/// uses get a splat.
struct Broadcast : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    bool arithmeticOnly = llvm::all_of(op->getUsers(), [](Operation *user) {
      return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(user);
    });
    if (arithmeticOnly)
      return x[0];
    auto v = cast<VectorType>(op->getResult(0).getType());
    return callOpaque(r, lanes().splat(v.getElementType(), v.getNumElements()), valueType(v), x,
                      op->getLoc());
  }
};

/// The aligned(8), may_alias type of `width` elements: one typedef with
/// the scalar stores' (double8) at a fixed width, SCALY_LANES' with auto.
Type memoryType(BodyState &state, MLIRContext *ctx, Type elem, int64_t width) {
  LaneSupport &lanes = state.registries.lanes;
  return emitc::OpaqueType::get(ctx, lanes.isAuto() ? lanes.memoryType(elem, width)
                                                    : state.registries.vectors.use(elem, width));
}

/// Lane loads: through the aligned(8), may_alias type where the lanes are
/// contiguous (read as the memory type: GNU C assigns it to the value type,
/// same elements and size, without a conversion), else a strided helper.
struct Load : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    auto o = cast<pg::LoadOp>(op);
    Location loc = o.getLoc();
    auto v = cast<VectorType>(o.getType());
    Type elem = v.getElementType();
    Value at = advance(r, x[0], o.getOffset(), loc);
    if (o.getStride() != 1)
      return callOpaque(r, lanes().stridedLoad(elem, v.getNumElements()), valueType(v),
                        ValueRange{at, indexConstant(r, o.getStride(), loc)}, loc);
    Type mem = memoryType(currentBody(), r.getContext(), elem, v.getNumElements());
    Value vp = r.create<emitc::CastOp>(loc, emitc::PointerType::get(mem), at);
    return r.create<emitc::SubscriptOp>(loc, mem, vp, ValueRange{indexConstant(r, 0, loc)});
  }
};

/// Lane stores, each value as the loads (contiguous or strided).
struct Store : LanePattern {
  using LanePattern::LanePattern;
  Value lower(Operation *op, ArrayRef<Value> x, ConversionPatternRewriter &r) const override {
    auto o = cast<pg::StoreOp>(op);
    Location loc = o.getLoc();
    Value ptr = x.back();
    for (auto [j, value] : llvm::enumerate(o.getValues())) {
      auto v = cast<VectorType>(value.getType());
      Type elem = v.getElementType();
      Value at = advance(r, ptr, o.getOffset() + static_cast<int64_t>(j), loc);
      Value stored = x[j];
      if (o.getStride() != 1) {
        r.create<emitc::CallOpaqueOp>(loc, TypeRange{},
                                      lanes().stridedStore(elem, v.getNumElements()),
                                      ValueRange{at, indexConstant(r, o.getStride(), loc), stored});
        continue;
      }
      Type mem = memoryType(currentBody(), r.getContext(), elem, v.getNumElements());
      Value vp = r.create<emitc::CastOp>(loc, emitc::PointerType::get(mem), at);
      Value slot = r.create<emitc::SubscriptOp>(loc, mem, vp, ValueRange{indexConstant(r, 0, loc)});
      if (stored.getType() != mem)
        stored = r.create<emitc::CastOp>(loc, mem, stored);
      r.create<emitc::AssignOp>(loc, slot, stored);
    }
    return ptr; // any non-null value: a store has no result
  }
};

/// Adds a P for each op name in `roots`, applied only to ops with a lane
/// vector (tested before the framework looks up the operands).
template <typename P>
void add(RewritePatternSet &patterns, std::initializer_list<StringRef> roots) {
  RewritePatternSet some(patterns.getContext());
  for (StringRef root : roots)
    some.add(std::make_unique<P>(root, patterns.getContext()));
  addRestricted(some, patterns, isLaneOp);
}

} // namespace

void c::populateLanePatterns(RewritePatternSet &patterns) {
  add<Binary<emitc::AddOp>>(patterns, {"arith.addf", "arith.addi"});
  add<Binary<emitc::SubOp>>(patterns, {"arith.subf", "arith.subi"});
  add<Binary<emitc::MulOp>>(patterns, {"arith.mulf", "arith.muli"});
  add<Binary<emitc::DivOp>>(patterns, {"arith.divf", "arith.divsi"});
  add<Binary<emitc::RemOp>>(patterns, {"arith.remsi"});
  add<Binary<emitc::BitwiseXorOp>>(patterns, {"arith.xori"});
  add<MaskBinary<emitc::BitwiseAndOp>>(patterns, {"arith.andi"});
  add<MaskBinary<emitc::BitwiseOrOp>>(patterns, {"arith.ori"});
  add<Neg>(patterns, {"arith.negf"});
  add<Cmp>(patterns, {"arith.cmpf", "arith.cmpi"});
  add<Select>(patterns, {"arith.select"});
  add<Cast>(patterns,
            {"arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp", "arith.extsi",
             "arith.extui", "arith.trunci"});
  add<Broadcast>(patterns, {"vector.broadcast"});
  add<Load>(patterns, {"prog.load"});
  add<Store>(patterns, {"prog.store"});
  RewritePatternSet math(patterns.getContext());
  for (const expr::MathFunctionInfo &f : expr::mathFunctions())
    math.add(std::make_unique<Math>(f.upstreamOp, patterns.getContext(), f.name));
  addRestricted(math, patterns, isLaneOp);
}
