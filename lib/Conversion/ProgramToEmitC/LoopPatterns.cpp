//===- LoopPatterns.cpp - scf.for, scf.if and scf.while to EmitC ----------===//
//
// scf.if converts with upstream's SCFToEmitC (an emitc.if; the program
// dialect's branches have no results). scf.for and scf.while are Scaly's
// own patterns, each with its reason below. A branch with results, a while
// loop carrying values or a loop whose bounds are not constants is refused
// with the reason (the program dialect's control flow keeps its values in
// memory, as C statements do, and its loops are counted).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Program/CountedLoop.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"

#include "HelperFunctions.h"
#include "Lanes.h"
#include "Loops.h"
#include "mlir/Conversion/SCFToEmitC/SCFToEmitC.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace scaly;
using namespace scaly::c;
namespace pg = scaly::prog;

namespace {

/// Whether Clang should leave `o` rolled: an innermost loop that carries
/// no value and calls no procedure (an elementwise loop). Unrolling a long
/// one after vectorizing it made up a third of the JIT's compile of a
/// 1000-element chain and bought no speed (bench/scale.py). The rule
/// ignores the trip count, so a model's C does not change with its sizes
/// beyond their numbers; loop nests, reductions, loops calling a step
/// procedure (the seed's rollout) and the helpers are left to Clang.
bool keepRolled(scf::ForOp o) {
  if (o.getNumRegionIterArgs())
    return false;
  auto inner = o.getBody()->walk([](Operation *op) {
    return isa<scf::ForOp, pg::CallOp>(op) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return !inner.wasInterrupted();
}

/// Own: an emitc.for whose carried values are C variables declared before
/// it, read in the body and after it, and assigned at the end of the body
/// as one parallel assignment (Loops.h; the yield's pattern below). Upstream
/// SCFToEmitC assigns its result variables in turn, which breaks a yield
/// that swaps two values, and gives every carried value a variable, also
/// one nothing reads (C warns "set but not used"). Without carried values
/// its emitc.for would still not print Scaly's loop: it knows neither the
/// counter's name (`scaly.name`), nor the no-unroll mark, nor a widened
/// loop's SCALY_LANES step, and it reads bounds from constants the loop
/// does not own. No TypeConverter: carried lane vectors may be read through
/// their memory type (Patterns.h); declareCarried casts them.
struct ForLowering : OpConversionPattern<scf::ForOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(scf::ForOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    BodyState &state = currentBody();
    std::optional<pg::CountedBounds> bounds = pg::countedBounds(o);
    if (!bounds)
      return o.emitOpError("with bounds that are not constants has no C translation here");
    if (bounds->step < 1)
      return o.emitOpError("with step ") << bounds->step << " has no C translation here";
    LaneSupport &lanes = state.registries.lanes;
    SmallVector<bool> live = liveCarried(o);
    SmallVector<Type> types;
    SmallVector<Value> inits;
    for (auto [k, init] : llvm::enumerate(a.getInitArgs())) {
      types.push_back(laneValueType(lanes, o.getInitArgs()[k].getType()));
      inits.push_back(live[k] ? init : Value());
    }
    SmallVector<Value> vars = declareCarried(r, loc, types, inits);
    // A widened loop steps by the lane width (SCALY_LANES with lanes=auto).
    Value step = indexConstant(r, bounds->step, loc);
    if (o->hasAttr("scaly.lanes") && lanes.isAuto())
      step = r.create<emitc::LiteralOp>(loc, r.getI64Type(), lanes.widthText(bounds->step));
    auto loop = r.create<emitc::ForOp>(loc, indexConstant(r, bounds->lower, loc),
                                       indexConstant(r, bounds->upper, loc), step);
    if (auto name = o->getAttrOfType<StringAttr>(pg::kLoopNameAttr))
      loop->setAttr(c::kNameAttr, name);
    if (keepRolled(o))
      c::hintLoopByMacro(r, loop, state.registries.helpers.useNoUnroll());
    // A carried value without a variable is read only by ops nothing needs
    // (the printer drops them): they read its init value instead.
    // (The loop's results are the same values: a result without variable
    // has no use.)
    SmallVector<Value> args{loop.getInductionVar()};
    for (auto [var, init] : llvm::zip(vars, a.getInitArgs()))
      args.push_back(var ? var : init);
    r.inlineBlockBefore(o.getBody(), loop.getBody()->getTerminator(), args);
    if (!vars.empty())
      state.carried[loop] = std::move(vars);
    r.replaceOp(o, ArrayRef<Value>(args).drop_front());
    return success();
  }
};

/// The end of an iteration of a converted scf.for: its variables take the
/// yielded values at once (Loops.h). (The yields of scf.if are upstream's
/// pattern's.)
struct YieldLowering : OpConversionPattern<scf::YieldOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(scf::YieldOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    auto loop = dyn_cast<emitc::ForOp>(o->getParentOp());
    if (!loop)
      return failure();
    BodyState &state = currentBody();
    auto vars = state.carried.find(loop);
    if (vars != state.carried.end()) {
      SmallVector<Value> next(a.getResults());
      assignCarried(r, o.getLoc(), vars->second, next, loop.getBody());
    }
    r.eraseOp(o);
    return success();
  }
};

/// Own: EmitC (MLIR 19) has no while loop and no break, and SCFToEmitC
/// converts scf.for and scf.if only. A cdecl.loop, printed `for (;;) {
/// before; if (!c) break; after }`.
struct WhileLowering : OpConversionPattern<scf::WhileOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult matchAndRewrite(scf::WhileOp o, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    if (o.getNumOperands() || o.getNumResults())
      return o.emitOpError("carrying values has no C translation here; the program "
                           "dialect's while loops keep their state in memory");
    Location loc = o.getLoc();
    auto loop = r.create<cdecl::LoopOp>(loc);
    Block *body = r.createBlock(&loop.getBody());
    scf::ConditionOp condition = o.getConditionOp();
    // The condition's op is converted after this one: the emitc op reads
    // the arith value, replaced by its EmitC value when the conversion ends.
    Value c = condition.getCondition();
    r.inlineBlockBefore(&o.getBefore().front(), body, body->end());
    r.eraseOp(condition);
    r.setInsertionPointToEnd(body);
    Value stop = r.create<emitc::LogicalNotOp>(loc, r.getI1Type(), c);
    auto exit = r.create<emitc::IfOp>(loc, stop, /*addThenBlock=*/true, /*addElseBlock=*/false);
    emitc::IfOp::ensureTerminator(exit.getThenRegion(), r, loc);
    {
      OpBuilder::InsertionGuard guard(r);
      r.setInsertionPoint(exit.getThenRegion().front().getTerminator());
      r.create<cdecl::BreakOp>(loc);
    }
    Operation *yield = o.getAfter().front().getTerminator();
    r.inlineBlockBefore(&o.getAfter().front(), body, body->end());
    r.eraseOp(yield);
    r.eraseOp(o);
    return success();
  }
};

/// Refuses an scf.if with results, which upstream's pattern (restricted to
/// branches without results) would give variables the program dialect
/// never needs: its branches store what they compute.
struct IfWithResults : OpConversionPattern<scf::IfOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(scf::IfOp o, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    if (!o.getNumResults())
      return failure();
    return o.emitOpError("with results has no C translation here; the program "
                         "dialect's branches store what they compute");
  }
};

/// Refuses an scf.parallel: the loops of the lowering's nests are generated
/// by scaly-parallel-to-loops (after the loop passes that transform the
/// nests), not converted here.
struct UngeneratedNest : OpConversionPattern<scf::ParallelOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(scf::ParallelOp o, OpAdaptor,
                                ConversionPatternRewriter &) const override {
    return o.emitOpError("is a loop nest whose loops are not generated yet: run "
                         "scaly-parallel-to-loops (after scaly-accumulate-rows, "
                         "scaly-tile-copies and scaly-sum-in-blocks) before "
                         "scaly-program-to-emitc");
  }
};

} // namespace

void c::populateLoopPatterns(RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  RewritePatternSet upstream(ctx);
  populateSCFToEmitCConversionPatterns(upstream);
  addRestricted(upstream, patterns,
                [](Operation *op) { return isa<scf::IfOp>(op) && !op->getNumResults(); });
  patterns.add<ForLowering, YieldLowering>(ctx);
  patterns.add<WhileLowering, IfWithResults, UngeneratedNest>(ctx, kOverride);
}
