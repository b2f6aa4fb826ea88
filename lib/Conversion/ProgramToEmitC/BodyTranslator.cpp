//===- BodyTranslator.cpp - program-dialect procedure bodies to EmitC ------===//
//
// The ops of a procedure's body, one by one, as EmitC: scalar arith and math
// ops become EmitC expressions and libm calls (MLIR 19 has no math-to-emitc),
// loads and stores subscripts and assignments, scf.for a C for loop (with
// variables for carried values, Loops.h), lane vectors GNU C vectors
// (Lanes.h), reductions and products calls of the module's helpers
// (HelperFunctions.h), scf.if / scf.while C statements.
//
//===----------------------------------------------------------------------===//

#include "BodyTranslator.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Expr/ExprDialect.h"
#include "scaly/Dialect/Expr/MathFunctions.h"
#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "Lanes.h"
#include "Loops.h"
#include "HelperFunctions.h"
#include "ModuleDefinitions.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace scaly;
using namespace scaly::c;
namespace pg = scaly::prog;

/// C's `void`, `int` (the ABI's iw, mem and status) and `char` (byte offsets).
Type c::voidType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "void"); }
Type c::intType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "int"); }
Type c::charType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "char"); }

/// Bytes of one element as C stores it (void, an opaque type here, counts 1).
int64_t c::emittedElementBytes(Type t) {
  return isa<emitc::OpaqueType>(t) ? 1 : pg::elementBytes(t);
}

Type c::convertElement(Type t) { return isa<NoneType>(t) ? voidType(t.getContext()) : t; }

Type c::convertPtr(Type t) {
  if (auto p = dyn_cast<pg::PtrType>(t))
    return emitc::PointerType::get(convertElement(p.getElementType()));
  return t;
}

namespace {

/// Translates the ops of one procedure body into EmitC.
class BodyTranslator {
public:
  BodyTranslator(OpBuilder &b, IRMapping &map, const BodyRegistries &registries, bool c99)
      : b(b), map(map), vectors(registries.vectors), helpers(registries.helpers),
        tables(registries.tables), lanes(registries.lanes), c99(c99) {}

  LogicalResult translate(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (failed(translateOp(&op)))
        return failure();
      // A value the lowering named (`scaly.name` on the op computing it) is
      // printed as a named variable where it is computed, not inlined at its
      // use: a register block's elements are all read before its stores. (On
      // an scf.for the name is the counter's.)
      if (auto name = op.getAttrOfType<StringAttr>(c::kNameAttr);
          name && op.getNumResults() == 1 && !isa<scf::ForOp>(op))
        if (Value v = map.lookupOrNull(op.getResult(0)))
          if (Operation *def = v.getDefiningOp(); def && def->getBlock() == b.getInsertionBlock() &&
                                                  !def->hasAttr(c::kNameAttr))
            def->setAttr(c::kNameAttr, name);
    }
    return success();
  }

private:
  OpBuilder &b;
  IRMapping &map;
  c::VectorTypes &vectors;
  c::Helpers &helpers;
  c::Tables &tables;
  c::LaneSupport &lanes;
  bool c99;

  /// A lane vector's C type (an opaque EmitC type); scalars stay as they are.
  Type valueType(Type t) {
    if (auto v = dyn_cast<VectorType>(t))
      return emitc::OpaqueType::get(b.getContext(),
                                    lanes.valueType(v.getElementType(), v.getNumElements()));
    return t;
  }

  /// The aligned(8), may_alias type of `width` elements: one typedef with
  /// the scalar stores' (double8) at a fixed width, SCALY_LANES' with auto.
  std::string memoryType(Type elem, int64_t width) {
    return lanes.isAuto() ? lanes.memoryType(elem, width) : vectors.use(elem, width);
  }

  /// Lane vector loads and stores: through the aligned(8), may_alias type
  /// where the lanes are contiguous, else element by element.
  Value loadLanes(pg::LoadOp o) {
    Location loc = o.getLoc();
    auto v = cast<VectorType>(o.getType());
    Type elem = v.getElementType();
    Value at = advance(get(o.getPtr()), o.getOffset(), loc);
    if (o.getStride() != 1)
      return call(lanes.stridedLoad(elem, v.getNumElements()), valueType(v),
                  ValueRange{at, index(o.getStride(), loc)}, loc);
    auto mem = emitc::OpaqueType::get(b.getContext(), memoryType(elem, v.getNumElements()));
    Value vp = b.create<emitc::CastOp>(loc, emitc::PointerType::get(mem), at);
    // Read as the memory type: GNU C assigns it to the value type (same
    // elements and size) without a conversion.
    return b.create<emitc::SubscriptOp>(loc, mem, vp, ValueRange{index(0, loc)});
  }

  void storeLanes(pg::StoreOp o) {
    Location loc = o.getLoc();
    for (auto [j, value] : llvm::enumerate(o.getValues())) {
      auto v = cast<VectorType>(value.getType());
      Type elem = v.getElementType();
      Value at = advance(get(o.getPtr()), o.getOffset() + static_cast<int64_t>(j), loc);
      if (o.getStride() != 1) {
        b.create<emitc::CallOpaqueOp>(loc, TypeRange{},
                                      lanes.stridedStore(elem, v.getNumElements()),
                                      ValueRange{at, index(o.getStride(), loc), get(value)});
        continue;
      }
      auto mem = emitc::OpaqueType::get(b.getContext(), memoryType(elem, v.getNumElements()));
      Value vp = b.create<emitc::CastOp>(loc, emitc::PointerType::get(mem), at);
      Value slot = b.create<emitc::SubscriptOp>(loc, mem, vp, ValueRange{index(0, loc)});
      Value stored = get(value);
      if (stored.getType() != mem)
        stored = b.create<emitc::CastOp>(loc, mem, stored);
      b.create<emitc::AssignOp>(loc, slot, stored);
    }
  }

  /// A broadcast whose every use is + - * / is the scalar itself there (GNU
  /// C converts a scalar operand of a vector operation to a vector); other
  /// uses get a splat.
  Value broadcast(vector::BroadcastOp o) {
    bool arithmeticOnly = llvm::all_of(o->getUsers(), [](Operation *user) {
      return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(user);
    });
    if (arithmeticOnly)
      return get(o.getSource());
    auto v = cast<VectorType>(o.getType());
    return call(lanes.splat(v.getElementType(), v.getNumElements()), valueType(v),
                ValueRange{get(o.getSource())}, o.getLoc());
  }

  Value lit(Type t, StringRef text, Location loc) {
    return b.create<emitc::LiteralOp>(loc, t, text);
  }
  Value index(int64_t k, Location loc) {
    return b.create<emitc::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(k));
  }
  Value get(Value v) { return map.lookup(v); }
  Value call(StringRef fn, Type t, ValueRange args, Location loc) {
    return b.create<emitc::CallOpaqueOp>(loc, TypeRange{t}, fn, args).getResult(0);
  }

  /// `ptr + k` as an EmitC expression (ptr itself when k == 0).
  Value advance(Value ptr, int64_t k, Location loc) {
    if (k == 0)
      return ptr;
    return b.create<emitc::AddOp>(loc, ptr.getType(), ptr, index(k, loc));
  }

  /// Stores of several floats go through may_alias vector types aligned to
  /// one element, in chunks of 8, 4 and 2; integers, bools and a value left
  /// over are plain stores.
  void store(ValueRange values, Value ptr, int64_t offset, Location loc) {
    Type elem = cast<emitc::PointerType>(ptr.getType()).getPointee();
    size_t i = 0, n = values.size();
    bool useVectors = isa<FloatType>(elem) && !c99; // C99 has no vector extensions
    while (i < n) {
      size_t width = 1;
      for (size_t w : {8, 4, 2})
        if (useVectors && n - i >= w) {
          width = w;
          break;
        }
      Value at = advance(ptr, offset + static_cast<int64_t>(i), loc);
      if (width == 1) {
        Value slot = b.create<emitc::SubscriptOp>(loc, elem, at, ValueRange{index(0, loc)});
        b.create<emitc::AssignOp>(loc, slot, get(values[i]));
      } else {
        emitc::OpaqueType vecType = vectorType(elem, width);
        Value vp = b.create<emitc::CastOp>(loc, emitc::PointerType::get(vecType), at);
        Value slot = b.create<emitc::SubscriptOp>(loc, vecType, vp, ValueRange{index(0, loc)});
        b.create<emitc::AssignOp>(loc, slot, vectorOf(vecType, values.slice(i, width), loc));
      }
      i += width;
    }
  }

  /// The module's aligned(8), may_alias vector type of `width` `elem`s.
  emitc::OpaqueType vectorType(Type elem, int64_t width) {
    return emitc::OpaqueType::get(b.getContext(), vectors.use(elem, static_cast<int>(width)));
  }

  /// `(T<n>){v0, ..., vn-1}`: the values as one vector of type `vecType`.
  Value vectorOf(emitc::OpaqueType vecType, ValueRange values, Location loc) {
    SmallVector<Value> lanes;
    for (Value v : values)
      lanes.push_back(get(v));
    return call(vecType.getValue(), vecType, lanes, loc);
  }

  /// A streaming store: SCALY_STREAM_STORE((T4_aligned*)(p + k), (T4){...})
  /// per 32 bytes of values (the verifier checked they are whole vectors);
  /// element-aligned, SCALY_STREAM_STORE((Tn*)(p + k), (Tn){...}) of all n
  /// values through the element-aligned vector type.
  void streamStore(ValueRange values, Value ptr, int64_t offset, bool elementAligned,
                   Location loc) {
    Type elem = cast<emitc::PointerType>(ptr.getType()).getPointee();
    helpers.useStreamStore();
    if (elementAligned && values.size() == 1) {
      b.create<emitc::CallOpaqueOp>(loc, TypeRange{}, "SCALY_STREAM_STORE",
                                    ValueRange{advance(ptr, offset, loc), get(values[0])});
      return;
    }
    if (elementAligned) {
      emitc::OpaqueType vecType = vectorType(elem, values.size());
      Value at = b.create<emitc::CastOp>(loc, emitc::PointerType::get(vecType),
                                         advance(ptr, offset, loc));
      b.create<emitc::CallOpaqueOp>(loc, TypeRange{}, "SCALY_STREAM_STORE",
                                    ValueRange{at, vectorOf(vecType, values, loc)});
      return;
    }
    int64_t width = 32 / emittedElementBytes(elem);
    auto aligned = emitc::PointerType::get(
        emitc::OpaqueType::get(b.getContext(), vectors.useAligned(elem, width)));
    emitc::OpaqueType vecType = vectorType(elem, width);
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i += width) {
      Value at = b.create<emitc::CastOp>(loc, aligned, advance(ptr, offset + i, loc));
      Value vec = vectorOf(vecType, values.slice(i, width), loc);
      b.create<emitc::CallOpaqueOp>(loc, TypeRange{}, "SCALY_STREAM_STORE", ValueRange{at, vec});
    }
  }

  /// `((uintptr_t)ptr & (bytes - 1)) == 0`.
  Value isAligned(Value ptr, int64_t bytes, Location loc) {
    auto address = emitc::OpaqueType::get(b.getContext(), "uintptr_t");
    Value cast = b.create<emitc::CastOp>(loc, address, ptr);
    Value low = b.create<emitc::BitwiseAndOp>(loc, address, cast,
                                              lit(address, std::to_string(bytes - 1), loc));
    return b.create<emitc::CmpOp>(loc, b.getI1Type(), emitc::CmpPredicate::eq, low,
                                  lit(address, "0", loc));
  }

  /// The window's pointer: `w + k` when w has the window's element type,
  /// else `(T*)((char*)w + bytes)`.
  Value window(Value w, pg::WindowOp o, Location loc) {
    Type want = convertPtr(o.getType());
    Type wElem = cast<emitc::PointerType>(w.getType()).getPointee();
    Type elem = cast<emitc::PointerType>(want).getPointee();
    int64_t bytes = o.getOffset();
    if (wElem == elem)
      return advance(w, bytes / emittedElementBytes(elem), loc);
    if (!isa<emitc::OpaqueType>(wElem) && bytes % emittedElementBytes(wElem) == 0 &&
        isa<emitc::OpaqueType>(elem))
      return b.create<emitc::CastOp>(loc, want, advance(w, bytes / emittedElementBytes(wElem), loc));
    Value raw = b.create<emitc::CastOp>(loc, emitc::PointerType::get(charType(b.getContext())), w);
    raw = advance(raw, bytes, loc);
    return b.create<emitc::CastOp>(loc, want, raw);
  }

  /// (int)x is undefined in C for NaN and out-of-range x. Those give the
  /// integer type's minimum instead (what x86 and NumPy give):
  /// (x >= -2^(n-1) && x < 2^(n-1)) ? (intN_t)x : INTN_MIN.
  LogicalResult floatToInt(arith::FPToSIOp o) {
    Location loc = o.getLoc();
    Type from = o.getIn().getType(), to = o.getType();
    unsigned bits = to.getIntOrFloatBitWidth();
    double bound = std::ldexp(1.0, static_cast<int>(bits) - 1);
    Value x = get(o.getIn());
    auto fconst = [&](double v) -> Value {
      return b.create<emitc::ConstantOp>(loc, from, b.getFloatAttr(from, v));
    };
    Type i1 = b.getI1Type();
    Value lo = b.create<emitc::CmpOp>(loc, i1, emitc::CmpPredicate::ge, x, fconst(-bound));
    Value hi = b.create<emitc::CmpOp>(loc, i1, emitc::CmpPredicate::lt, x, fconst(bound));
    Value inRange = b.create<emitc::LogicalAndOp>(loc, i1, lo, hi);
    Value converted = b.create<emitc::CastOp>(loc, to, x);
    Value minimum = b.create<emitc::LiteralOp>(loc, to, bits == 64 ? "INT64_MIN" : "INT32_MIN");
    map.map(o.getResult(),
            b.create<emitc::ConditionalOp>(loc, to, inRange, converted, minimum).getResult());
    return success();
  }

  template <typename EmitCOp>
  LogicalResult binary(Operation *op) {
    Type type = op->getResult(0).getType();
    Value lhs = get(op->getOperand(0)), rhs = get(op->getOperand(1));
    Location loc = op->getLoc();
    // Model arithmetic on int32/int64 wraps around, as in NumPy, where C's
    // signed overflow is undefined: it is computed in the unsigned type of
    // the same width and converted back. Index arithmetic (nsw) never
    // overflows and stays signed.
    auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
    auto signedInt = dyn_cast<IntegerType>(type);
    if (flags && !flags.hasNoSignedWrap() && signedInt &&
        (signedInt.getWidth() == 32 || signedInt.getWidth() == 64)) {
      Type u = IntegerType::get(b.getContext(), signedInt.getWidth(), IntegerType::Unsigned);
      Value ul = b.create<emitc::CastOp>(loc, u, lhs);
      Value ur = b.create<emitc::CastOp>(loc, u, rhs);
      Value wrapped = b.create<EmitCOp>(loc, u, ul, ur);
      map.map(op->getResult(0), b.create<emitc::CastOp>(loc, type, wrapped).getResult());
      return success();
    }
    auto r = b.create<EmitCOp>(loc, valueType(type), lhs, rhs);
    map.map(op->getResult(0), r.getResult());
    return success();
  }

  LogicalResult libm(Operation *op, StringRef fn) {
    Type t = op->getResult(0).getType();
    SmallVector<Value> args;
    for (Value v : op->getOperands())
      args.push_back(get(v));
    if (auto v = dyn_cast<VectorType>(t)) {
      std::string callee = lanes.math(fn, v.getElementType(), v.getNumElements(),
                                      op->getNumOperands());
      map.map(op->getResult(0), call(callee, valueType(v), args, op->getLoc()));
      return success();
    }
    map.map(op->getResult(0), call(expr::cMathName(fn, t), t, args, op->getLoc()));
    return success();
  }

  /// Whether Clang should leave `o` rolled: an innermost loop that carries
  /// no value and calls no procedure (an elementwise loop). Unrolling a long
  /// one after vectorizing it made up a third of the JIT's compile of a
  /// 1000-element chain and bought no speed (bench/scale.py). The rule
  /// ignores the trip count, so a model's C does not change with its sizes
  /// beyond their numbers; loop nests, reductions, loops calling a step
  /// procedure (the seed's rollout) and the helpers are left to Clang.
  static bool keepRolled(scf::ForOp o) {
    if (o.getNumRegionIterArgs())
      return false;
    auto inner = o.getBody()->walk([](Operation *op) {
      return isa<scf::ForOp, pg::CallOp>(op) ? WalkResult::interrupt() : WalkResult::advance();
    });
    return !inner.wasInterrupted();
  }

  /// Whether every use of `v` is a bound or the step of an scf.for (none of
  /// its carried values).
  static bool onlyLoopBounds(Value v) {
    return !v.use_empty() && llvm::all_of(v.getUses(), [](OpOperand &use) {
      auto loop = dyn_cast<scf::ForOp>(use.getOwner());
      return loop && use.getOperandNumber() < loop.getNumControlOperands();
    });
  }

  /// An emitc.for; carried values are C variables declared before it,
  /// assigned at the end of the body and read after it (Loops.h).
  LogicalResult translateFor(scf::ForOp o) {
    Location loc = o.getLoc();
    std::optional<pg::CountedBounds> bounds = pg::countedBounds(o);
    if (!bounds)
      return o.emitOpError("with bounds that are not constants has no C translation here");
    if (bounds->step < 1)
      return o.emitOpError("with step ") << bounds->step << " has no C translation here";
    SmallVector<bool> live = c::liveCarried(o);
    SmallVector<Type> types;
    SmallVector<Value> inits;
    for (auto [k, init] : llvm::enumerate(o.getInitArgs())) {
      types.push_back(valueType(init.getType()));
      inits.push_back(live[k] ? get(init) : Value());
    }
    SmallVector<Value> vars = c::declareCarried(b, loc, types, inits);
    // A widened loop steps by the lane width (SCALY_LANES with lanes=auto).
    Value step = index(bounds->step, loc);
    if (o->hasAttr("scaly.lanes") && lanes.isAuto())
      step = lit(b.getI64Type(), lanes.widthText(bounds->step), loc);
    auto loop = b.create<emitc::ForOp>(loc, index(bounds->lower, loc), index(bounds->upper, loc),
                                       step);
    if (auto name = o->getAttrOfType<StringAttr>(pg::kLoopNameAttr))
      loop->setAttr(c::kNameAttr, name);
    if (keepRolled(o)) {
      loop->setAttr(c::kNoUnrollAttr, b.getUnitAttr());
      helpers.useNoUnroll();
    }
    map.map(o.getInductionVar(), loop.getInductionVar());
    // A carried value without a variable is read only by ops nothing needs
    // (the printer drops them): they read its init value instead.
    for (auto [arg, var, init] : llvm::zip(o.getRegionIterArgs(), vars, o.getInitArgs()))
      map.map(arg, var ? var : get(init));
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      if (failed(translate(*o.getBody())))
        return failure();
      SmallVector<Value> next;
      for (Value v : pg::yieldOf(o).getResults())
        next.push_back(map.lookupOrNull(v));
      c::assignCarried(b, loc, vars, next, loop.getBody());
    }
    for (auto [result, var] : llvm::zip(o.getResults(), vars))
      if (var)
        map.map(result, var);
    return success();
  }

  LogicalResult translateOp(Operation *op) {
    Location loc = op->getLoc();
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](pg::LoadOp o) {
          if (isa<VectorType>(o.getType())) {
            map.map(o, loadLanes(o));
            return success();
          }
          Value v = b.create<emitc::SubscriptOp>(loc, o.getType(), get(o.getPtr()),
                                                 ValueRange{index(o.getOffset(), loc)});
          map.map(o, v);
          return success();
        })
        .Case([&](pg::StoreOp o) {
          if (isa<VectorType>(o.getValues().front().getType())) {
            storeLanes(o);
            return success();
          }
          if (o.getStreaming() && !c99)
            streamStore(o.getValues(), get(o.getPtr()), o.getOffset(), o.getElementAligned(), loc);
          else
            store(o.getValues(), get(o.getPtr()), o.getOffset(), loc);
          return success();
        })
        .Case([&](pg::IsAlignedOp o) {
          map.map(o, isAligned(get(o.getPtr()), o.getBytes(), loc));
          return success();
        })
        .Case([&](pg::OffsetOp o) {
          Value base = get(o.getBase());
          Value r = base;
          if (o.getIndex()) {
            Value idx = get(o.getIndex());
            if (o.getScale() != 1)
              idx = b.create<emitc::MulOp>(loc, b.getI64Type(), index(o.getScale(), loc), idx);
            if (o.getBias() != 0)
              idx = b.create<emitc::AddOp>(loc, b.getI64Type(), idx, index(o.getBias(), loc));
            r = b.create<emitc::AddOp>(loc, base.getType(), base, idx);
          } else {
            r = advance(base, o.getBias(), loc);
          }
          map.map(o, r);
          return success();
        })
        .Case([&](pg::ReduceOp o) {
          std::string fn = helpers.use(o.getKind(), o.getType());
          Value args[] = {get(o.getPtr()), index(o.getCount(), loc), index(o.getStride(), loc)};
          map.map(o.getResult(), call(fn, o.getType(), args, loc));
          return success();
        })
        .Case([&](pg::MatmulOp o) {
          Type elem = cast<pg::PtrType>(o.getOut().getType()).getElementType();
          SmallVector<Value> args{get(o.getLhs()), get(o.getRhs()), get(o.getOut()),
                                  index(o.getM(), loc), index(o.getK(), loc)};
          // A float matrix times a vector: the helper that sums several rows
          // at once (the same sums, bit for bit).
          bool vector = o.getN() == 1 && isa<FloatType>(elem);
          if (!vector)
            args.push_back(index(o.getN(), loc));
          std::string fn = helpers.use(vector ? "matvec" : "matmul", elem);
          b.create<emitc::CallOpaqueOp>(loc, TypeRange{}, fn, args);
          return success();
        })
        .Case([&](scf::IfOp o) -> LogicalResult {
          // Statements only: values leave a branch through stores, as in C.
          if (o.getNumResults())
            return o.emitOpError("with results has no C translation here; the program "
                                 "dialect's branches store what they compute");
          bool hasElse = !o.getElseRegion().empty();
          auto branch = b.create<emitc::IfOp>(loc, get(o.getCondition()), /*addThenBlock=*/true,
                                              /*addElseBlock=*/hasElse);
          emitc::IfOp::ensureTerminator(branch.getThenRegion(), b, loc);
          if (hasElse)
            emitc::IfOp::ensureTerminator(branch.getElseRegion(), b, loc);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(branch.getThenRegion().front().getTerminator());
          if (failed(translate(o.getThenRegion().front())))
            return failure();
          if (hasElse) {
            b.setInsertionPoint(branch.getElseRegion().front().getTerminator());
            if (failed(translate(o.getElseRegion().front())))
              return failure();
          }
          return success();
        })
        .Case([&](scf::WhileOp o) -> LogicalResult {
          if (o.getNumOperands() || o.getNumResults())
            return o.emitOpError("carrying values has no C translation here; the program "
                                 "dialect's while loops keep their state in memory");
          // EmitC (MLIR 19) has no while loop and no break, and SCFToEmitC
          // converts scf.for and scf.if only: the loop is a cdecl.loop,
          // for (;;) { before; if (!c) break; body }.
          auto loop = b.create<cdecl::LoopOp>(loc);
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(&loop.getBody().emplaceBlock());
          if (failed(translate(o.getBefore().front())))
            return failure();
          Value stop = b.create<emitc::LogicalNotOp>(loc, b.getI1Type(),
                                                     get(o.getConditionOp().getCondition()));
          auto exit = b.create<emitc::IfOp>(loc, stop, /*addThenBlock=*/true,
                                            /*addElseBlock=*/false);
          emitc::IfOp::ensureTerminator(exit.getThenRegion(), b, loc);
          {
            OpBuilder::InsertionGuard inExit(b);
            b.setInsertionPoint(exit.getThenRegion().front().getTerminator());
            b.create<cdecl::BreakOp>(loc);
          }
          return translate(o.getAfter().front());
        })
        .Case([&](pg::CallExternOp o) {
          SmallVector<Value> args;
          for (Value v : o.getOperands())
            args.push_back(get(v));
          auto call = b.create<emitc::CallOpaqueOp>(loc, o->getResultTypes(), o.getCallee(), args);
          if (o.getResult())
            map.map(o.getResult(), call.getResult(0));
          return success();
        })
        .Case([&](pg::WindowOp o) {
          map.map(o, window(get(o.getWorkspace()), o, loc));
          return success();
        })
        .Case([&](pg::TableOp o) {
          map.map(o, lit(convertPtr(o.getType()), tables.use(o.getValues()), loc));
          return success();
        })
        .Case([&](pg::NullOp o) {
          map.map(o, lit(convertPtr(o.getType()), "NULL", loc));
          return success();
        })
        .Case([&](pg::CallOp o) {
          SmallVector<Value> args;
          for (Value v : o.getOperands())
            args.push_back(get(v));
          b.create<emitc::CallOp>(loc, TypeRange{}, o.getCallee(), args);
          return success();
        })
        .Case([&](vector::BroadcastOp o) {
          map.map(o, broadcast(o));
          return success();
        })
        .Case([&](scf::ForOp o) { return translateFor(o); })
        .Case([&](arith::ConstantOp o) {
          if (onlyLoopBounds(o.getResult()))
            return success(); // translateFor prints the bounds themselves
          map.map(o.getResult(), b.create<emitc::ConstantOp>(loc, o.getType(), o.getValue()).getResult());
          return success();
        })
        .Case<arith::AddFOp, arith::AddIOp>([&](Operation *o) { return binary<emitc::AddOp>(o); })
        .Case<arith::SubFOp, arith::SubIOp>([&](Operation *o) { return binary<emitc::SubOp>(o); })
        .Case<arith::MulFOp, arith::MulIOp>([&](Operation *o) { return binary<emitc::MulOp>(o); })
        .Case<arith::DivFOp, arith::DivSIOp>([&](Operation *o) { return binary<emitc::DivOp>(o); })
        .Case([&](arith::XOrIOp o) {
          // The canonical form of "not" on bools is x ^ true.
          if (o.getType().isInteger(1)) {
            if (auto c = o.getRhs().getDefiningOp<arith::ConstantOp>())
              if (auto i = dyn_cast<IntegerAttr>(c.getValue()); i && i.getValue().isAllOnes()) {
                map.map(o.getResult(), b.create<emitc::LogicalNotOp>(loc, o.getType(),
                                                                     get(o.getLhs())).getResult());
                return success();
              }
          }
          return binary<emitc::BitwiseXorOp>(o);
        })
        .Case<arith::AndIOp>([&](Operation *o) {
          return isa<VectorType>(o->getResult(0).getType()) ? maskBinary<emitc::BitwiseAndOp>(o)
                                                            : binary<emitc::BitwiseAndOp>(o);
        })
        .Case<arith::OrIOp>([&](Operation *o) {
          return isa<VectorType>(o->getResult(0).getType()) ? maskBinary<emitc::BitwiseOrOp>(o)
                                                            : binary<emitc::BitwiseOrOp>(o);
        })
        .Case<arith::RemSIOp>([&](Operation *o) { return binary<emitc::RemOp>(o); })
        .Case([&](arith::NegFOp o) {
          map.map(o.getResult(), b.create<emitc::UnaryMinusOp>(loc, valueType(o.getType()),
                                                               get(o.getOperand())).getResult());
          return success();
        })
        .Case([&](arith::CmpFOp o) {
          // C's < <= > >= == are false on NaN (ordered) and != true (unordered):
          // other predicates have no single C operator.
          using P = arith::CmpFPredicate;
          P p = o.getPredicate();
          if (p != P::OLT && p != P::OLE && p != P::OGT && p != P::OGE && p != P::OEQ &&
              p != P::UNE)
            return o.emitOpError("predicate '")
                       << arith::stringifyCmpFPredicate(p)
                       << "' has no C operator (program-to-emitc prints olt, ole, ogt, oge, "
                          "oeq and une)",
                   failure();
          return cmp(o, cmpPredicate(p));
        })
        .Case([&](arith::CmpIOp o) {
          // C compares int32_t/int64_t signed; unsigned predicates only on bools.
          using P = arith::CmpIPredicate;
          P p = o.getPredicate();
          bool isUnsigned = p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
          if (isUnsigned && !getElementTypeOrSelf(o.getLhs().getType()).isInteger(1))
            return o.emitOpError("unsigned predicate '")
                       << arith::stringifyCmpIPredicate(p)
                       << "' on a signed C integer (program-to-emitc takes it on i1 only)",
                   failure();
          return cmp(o, cmpPredicate(p));
        })
        .Case([&](arith::SelectOp o) {
          Value r;
          if (auto mask = dyn_cast<VectorType>(o.getCondition().getType())) {
            // Lane by lane (a widened loop): a bitwise blend through the mask.
            auto v = cast<VectorType>(o.getType());
            r = call(lanes.select(v.getElementType(), v.getNumElements()), valueType(v),
                     {get(o.getCondition()), get(o.getTrueValue()), get(o.getFalseValue())}, loc);
          } else {
            r = b.create<emitc::ConditionalOp>(loc, valueType(o.getType()), get(o.getCondition()),
                                               get(o.getTrueValue()), get(o.getFalseValue()));
          }
          map.map(o.getResult(), r);
          return success();
        })
        .Case([&](arith::FPToSIOp o) { return floatToInt(o); })
        .Case<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::UIToFPOp,
              arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>([&](Operation *o) {
          map.map(o->getResult(0),
                  b.create<emitc::CastOp>(loc, o->getResult(0).getType(), get(o->getOperand(0))));
          return success();
        })
        .Default([&](Operation *other) {
          // The math functions' upstream ops (MathFunctions.td): a libm call.
          if (const expr::MathFunctionInfo *f = expr::mathFunctionForOp(
                  other->getName().getStringRef()))
            return libm(other, f->name);
          return other->emitOpError("has no C form (program-to-emitc)"), failure();
        });
  }

  static emitc::CmpPredicate cmpPredicate(arith::CmpFPredicate p) {
    switch (p) {
    case arith::CmpFPredicate::OLT: return emitc::CmpPredicate::lt;
    case arith::CmpFPredicate::OLE: return emitc::CmpPredicate::le;
    case arith::CmpFPredicate::OGT: return emitc::CmpPredicate::gt;
    case arith::CmpFPredicate::OGE: return emitc::CmpPredicate::ge;
    case arith::CmpFPredicate::OEQ: return emitc::CmpPredicate::eq;
    default: return emitc::CmpPredicate::ne;
    }
  }
  static emitc::CmpPredicate cmpPredicate(arith::CmpIPredicate p) {
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
  LogicalResult cmp(Operation *op, emitc::CmpPredicate p) {
    // Lane vectors compare to a mask of the operands' element width (GNU C).
    Type type = op->getResult(0).getType();
    if (auto v = dyn_cast<VectorType>(op->getOperand(0).getType()))
      type = emitc::OpaqueType::get(b.getContext(),
                                    lanes.maskType(v.getElementType(), v.getNumElements()));
    map.map(op->getResult(0), b.create<emitc::CmpOp>(op->getLoc(), type, p,
                                                     get(op->getOperand(0)),
                                                     get(op->getOperand(1))));
    return success();
  }

  /// & or | of two lane masks: the masks' own C type.
  template <typename EmitCOp> LogicalResult maskBinary(Operation *op) {
    Value lhs = get(op->getOperand(0));
    map.map(op->getResult(0), b.create<EmitCOp>(op->getLoc(), lhs.getType(), lhs,
                                                get(op->getOperand(1)))
                                  .getResult());
    return success();
  }
};

} // namespace

LogicalResult c::translateBody(OpBuilder &b, IRMapping &map, const BodyRegistries &registries,
                               bool c99, Block &body) {
  return BodyTranslator(b, map, registries, c99).translate(body);
}
