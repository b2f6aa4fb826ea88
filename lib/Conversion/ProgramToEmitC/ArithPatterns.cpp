//===- ArithPatterns.cpp - scalar arith and math to EmitC -----------------===//
//
// Scalar arith ops convert with upstream's ArithToEmitC where it prints the
// C Scaly has always printed: constants, + - * / % (float, and integer
// with NumPy's wrap-around: `(int64_t)((uint64_t)a + (uint64_t)b)`, plain
// for index arithmetic marked nsw), negation, signed compares, select on a
// bool, bitwise ops on bools, sitofp, extsi. Where it does not, Scaly's own
// pattern (benefit kOverride, tried first) says why next to it. Math ops
// become libm calls (MLIR 19 has no MathToEmitC). Lane vectors are
// LanePatterns.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "mlir/Conversion/ArithToEmitC/ArithToEmitC.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace scaly;
using namespace scaly::c;

emitc::CmpPredicate c::cmpPredicate(arith::CmpFPredicate p) {
  switch (p) {
  case arith::CmpFPredicate::OLT: return emitc::CmpPredicate::lt;
  case arith::CmpFPredicate::OLE: return emitc::CmpPredicate::le;
  case arith::CmpFPredicate::OGT: return emitc::CmpPredicate::gt;
  case arith::CmpFPredicate::OGE: return emitc::CmpPredicate::ge;
  case arith::CmpFPredicate::OEQ: return emitc::CmpPredicate::eq;
  default: return emitc::CmpPredicate::ne;
  }
}

emitc::CmpPredicate c::cmpPredicate(arith::CmpIPredicate p) {
  switch (p) {
  case arith::CmpIPredicate::slt:
  case arith::CmpIPredicate::ult: return emitc::CmpPredicate::lt;
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule: return emitc::CmpPredicate::le;
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt: return emitc::CmpPredicate::gt;
  case arith::CmpIPredicate::sge:
  case arith::CmpIPredicate::uge: return emitc::CmpPredicate::ge;
  case arith::CmpIPredicate::eq: return emitc::CmpPredicate::eq;
  default: return emitc::CmpPredicate::ne;
  }
}

namespace {

/// An arith.cmpi with an unsigned predicate: CmpIUnsignedLowering's, and
/// upstream's must not take the ones it refuses.
bool isUnsignedCompare(Operation *op) {
  auto cmp = dyn_cast<arith::CmpIOp>(op);
  if (!cmp)
    return false;
  using P = arith::CmpIPredicate;
  P p = cmp.getPredicate();
  return p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
}

/// Own: upstream tests both operands for NaN around the compare
/// (`a == a && b == b && a < b`, `a != a || b != b || a != b`), which C's
/// relational operators already do: ordered compares are false and `!=` is
/// true with a NaN operand. The other predicates have no single C operator
/// and are refused (checkCompare).
struct CmpFLowering : OpConversionPattern<arith::CmpFOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::CmpFOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    if (failed(checkCompare(o)))
      return failure();
    r.replaceOpWithNewOp<emitc::CmpOp>(o, o.getType(), cmpPredicate(o.getPredicate()), a.getLhs(),
                                       a.getRhs());
    return success();
  }
};

/// Own, for the unsigned predicates only: upstream compares through the
/// unsigned type of the same width, `ui1` for the bools the lowering
/// compares unsigned, which has no C type; C compares bools (0, 1) as they
/// are. On wider integers (int32_t, int64_t: C compares them signed) an
/// unsigned predicate is refused (checkCompare).
struct CmpIUnsignedLowering : OpConversionPattern<arith::CmpIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::CmpIOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    if (!isUnsignedCompare(o)) // signed and equality: upstream's
      return failure();
    if (failed(checkCompare(o)))
      return failure();
    r.replaceOpWithNewOp<emitc::CmpOp>(o, o.getType(), cmpPredicate(o.getPredicate()), a.getLhs(),
                                       a.getRhs());
    return success();
  }
};

/// Own, for a constant only the bounds or the step of scf.for loops read:
/// nothing, as the loops' pattern (LoopPatterns.cpp) prints their bounds as
/// numbers of their own. Upstream's emitc.constant would be left unread.
struct LoopBoundLowering : OpConversionPattern<arith::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::ConstantOp o, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    Value v = o.getResult();
    bool onlyBounds = !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
      auto loop = dyn_cast<scf::ForOp>(use.getOwner());
      return loop && use.getOperandNumber() < loop.getNumControlOperands();
    });
    if (!onlyBounds)
      return failure();
    r.eraseOp(o);
    return success();
  }
};

/// Own: upstream prints a plain cast, and (int)x is undefined in C for NaN
/// and out-of-range x. Those give the integer type's minimum instead (what
/// x86 and NumPy give): (x >= -2^(n-1) && x < 2^(n-1)) ? (intN_t)x : INTN_MIN.
struct FPToSILowering : OpConversionPattern<arith::FPToSIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::FPToSIOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    Type from = o.getIn().getType(), to = o.getType();
    unsigned bits = to.getIntOrFloatBitWidth();
    double bound = std::ldexp(1.0, static_cast<int>(bits) - 1);
    Value x = a.getIn();
    auto fconst = [&](double v) -> Value {
      return r.create<emitc::ConstantOp>(loc, from, r.getFloatAttr(from, v));
    };
    Type i1 = r.getI1Type();
    Value lo = r.create<emitc::CmpOp>(loc, i1, emitc::CmpPredicate::ge, x, fconst(-bound));
    Value hi = r.create<emitc::CmpOp>(loc, i1, emitc::CmpPredicate::lt, x, fconst(bound));
    Value inRange = r.create<emitc::LogicalAndOp>(loc, i1, lo, hi);
    Value converted = r.create<emitc::CastOp>(loc, to, x);
    Value minimum = r.create<emitc::LiteralOp>(loc, to, bits == 64 ? "INT64_MIN" : "INT32_MIN");
    r.replaceOpWithNewOp<emitc::ConditionalOp>(o, to, inRange, converted, minimum);
    return success();
  }
};

/// Own: one C cast. MLIR 19 has no pattern for extf and truncf; upstream's
/// uitofp and extui cast through the unsigned type (`ui1` for the bools
/// they convert here: no C type), its trunci through two unsigned types,
/// where C's one cast gives the same value.
template <typename Op>
struct CastLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op o, typename Op::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<emitc::CastOp>(o, o.getType(), a.getIn());
    return success();
  }
};

/// `x ^ true` on bools, the canonical form of "not".
bool isNot(Operation *op) {
  auto o = dyn_cast<arith::XOrIOp>(op);
  if (!o || !o.getType().isInteger(1))
    return false;
  auto c = o.getRhs().getDefiningOp<arith::ConstantOp>();
  auto i = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
  return i && i.getValue().isAllOnes();
}

/// Own, for `x ^ true` on bools (isNot): `!x`, where upstream prints
/// `x ^ true`.
struct NotLowering : OpConversionPattern<arith::XOrIOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(arith::XOrIOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<emitc::LogicalNotOp>(o, o.getType(), a.getLhs());
    return success();
  }
};

/// Own, for integers wider than a bool (bools: upstream's): upstream
/// computes bitwise ops in the unsigned type between two casts, which C's
/// & | ^ do not need.
template <typename Op, typename EmitCOp>
struct BitwiseLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  LogicalResult matchAndRewrite(Op o, typename Op::Adaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<EmitCOp>(o, o.getType(), a.getLhs(), a.getRhs());
    return success();
  }
};

/// Own (MLIR 19 has no MathToEmitC): a math function's upstream op
/// (MathFunctions.td) as a call of libm's function for its type (`sinf`
/// for float).
struct LibmLowering : ConversionPattern {
  LibmLowering(TypeConverter &converter, MLIRContext *ctx, const expr::MathFunctionInfo &f)
      : ConversionPattern(converter, f.upstreamOp, kOverride, ctx), fn(f.name) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &r) const override {
    Type t = op->getResult(0).getType();
    r.replaceOp(op, callOpaque(r, expr::cMathName(fn, t), t, operands, op->getLoc()));
    return success();
  }
  StringRef fn;
};


} // namespace

LogicalResult c::checkCompare(Operation *op) {
  if (auto f = dyn_cast<arith::CmpFOp>(op)) {
    // C's < <= > >= == are false on NaN (ordered) and != true (unordered).
    using P = arith::CmpFPredicate;
    P p = f.getPredicate();
    if (p != P::OLT && p != P::OLE && p != P::OGT && p != P::OGE && p != P::OEQ && p != P::UNE)
      return f.emitOpError("predicate '")
             << arith::stringifyCmpFPredicate(p)
             << "' has no C operator (program-to-emitc prints olt, ole, ogt, oge, oeq and une)";
    return success();
  }
  // C compares int32_t/int64_t signed; unsigned predicates only on bools.
  auto i = cast<arith::CmpIOp>(op);
  if (isUnsignedCompare(i) && !getElementTypeOrSelf(i.getLhs().getType()).isInteger(1))
    return i.emitOpError("unsigned predicate '")
           << arith::stringifyCmpIPredicate(i.getPredicate())
           << "' on a signed C integer (program-to-emitc takes it on i1 only)";
  return success();
}

void c::populateArithPatterns(TypeConverter &converter, bool lanes,
                               RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  // With lane vectors in the body, a scalar pattern first checks that its op
  // has none (LanePatterns.cpp converts those).
  auto scalar = [lanes](Operation *op) { return !lanes || isScalarOp(op); };
  RewritePatternSet upstream(ctx);
  populateArithToEmitCPatterns(converter, upstream);
  // Upstream's patterns for the ops the lowering builds; its others (shifts,
  // min/max of integers, ...) print EmitC the C printer does not take
  // (emitc.expression), and such an op is refused by name instead.
  addRestricted(upstream, patterns, [scalar](Operation *op) {
    return isa<arith::ConstantOp, arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
               arith::NegFOp, arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivSIOp,
               arith::RemSIOp, arith::CmpIOp, arith::SelectOp, arith::SIToFPOp, arith::ExtSIOp,
               arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op) &&
           scalar(op) && !isUnsignedCompare(op);
  });
  // Each own pattern with the test of the ops it takes, made before the
  // framework looks up the pattern's operands (it does for every pattern it
  // tries).
  auto own = [&](auto pattern, std::function<bool(Operation *)> takes = nullptr) {
    RewritePatternSet one(ctx);
    one.add(std::move(pattern));
    addRestricted(one, patterns, [scalar, takes](Operation *op) {
      return scalar(op) && (!takes || takes(op));
    });
  };
  auto wide = [](Operation *op) { return !op->getResult(0).getType().isInteger(1); };
  own(std::make_unique<LoopBoundLowering>(converter, ctx, kOverride));
  own(std::make_unique<CmpFLowering>(converter, ctx, kOverride));
  own(std::make_unique<CmpIUnsignedLowering>(converter, ctx, kOverride), isUnsignedCompare);
  own(std::make_unique<FPToSILowering>(converter, ctx, kOverride));
  own(std::make_unique<CastLowering<arith::ExtFOp>>(converter, ctx, kOverride));
  own(std::make_unique<CastLowering<arith::TruncFOp>>(converter, ctx, kOverride));
  own(std::make_unique<CastLowering<arith::UIToFPOp>>(converter, ctx, kOverride));
  own(std::make_unique<CastLowering<arith::ExtUIOp>>(converter, ctx, kOverride));
  own(std::make_unique<CastLowering<arith::TruncIOp>>(converter, ctx, kOverride));
  own(std::make_unique<NotLowering>(converter, ctx, kOverride), isNot);
  own(std::make_unique<BitwiseLowering<arith::AndIOp, emitc::BitwiseAndOp>>(converter, ctx,
                                                                            kOverride),
      wide);
  own(std::make_unique<BitwiseLowering<arith::OrIOp, emitc::BitwiseOrOp>>(converter, ctx,
                                                                          kOverride),
      wide);
  own(std::make_unique<BitwiseLowering<arith::XOrIOp, emitc::BitwiseXorOp>>(converter, ctx,
                                                                            kOverride),
      wide);
  for (const expr::MathFunctionInfo &f : expr::mathFunctions())
    own(std::make_unique<LibmLowering>(converter, ctx, f));
}
