//===- ProgramToEmitC.cpp - program dialect to EmitC ----------------------===//
//
// Builds the C module of seed 000 in EmitC: recipe comment, includes, vector
// typedefs, status codes and extern "C" guards (emitc.verbatim / include),
// one `static inline` function per raw procedure, and the exported entry with
// the five-argument pointer ABI and its null checks. Scalar arith and math
// ops become EmitC expressions and libm calls (MLIR 19 has no math-to-emitc).
//
// Attributes the C printer reads: `scaly.name` names a value or loop counter,
// `scaly.const` on a pointer argument makes its innermost element const.
//
//===----------------------------------------------------------------------===//

#include "scaly/Conversion/Passes.h"
#include "scaly/Dialect/Expr/MathFunctions.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/ReservedNames.h"
#include "scaly/Target/StatusCodes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "Lanes.h"
#include "Loops.h"
#include "ModuleDefinitions.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace scaly {
#define GEN_PASS_DEF_PROGRAMTOEMITC
#include "scaly/Conversion/Passes.h.inc"
} // namespace scaly

using namespace mlir;
using namespace scaly;
namespace pg = scaly::prog;

namespace {

/// C's `void`, `int` (the ABI's iw, mem and status) and `char` (byte offsets).
Type voidType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "void"); }
Type intType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "int"); }
Type charType(MLIRContext *ctx) { return emitc::OpaqueType::get(ctx, "char"); }

/// Bytes of one element as C stores it (void, an opaque type here, counts 1).
int64_t elementBytes(Type t) {
  return isa<emitc::OpaqueType>(t) ? 1 : pg::elementBytes(t);
}

Type convertElement(Type t) { return isa<NoneType>(t) ? voidType(t.getContext()) : t; }

Type convertPtr(Type t) {
  if (auto p = dyn_cast<pg::PtrType>(t))
    return emitc::PointerType::get(convertElement(p.getElementType()));
  return t;
}

/// Translates the ops of one procedure body into EmitC.
class BodyTranslator {
public:
  BodyTranslator(OpBuilder &b, c::VectorTypes &vectors, c::Helpers &helpers, c::Tables &tables,
                 c::LaneSupport &lanes, bool c99)
      : b(b), vectors(vectors), helpers(helpers), tables(tables), lanes(lanes), c99(c99) {}

  IRMapping map;

  LogicalResult translate(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (failed(translateOp(&op)))
        return failure();
      // A value the lowering named (`scaly.name` on the op computing it) is
      // printed as a named variable where it is computed, not inlined at its
      // use: a register block's elements are all read before its stores.
      if (auto name = op.getAttrOfType<StringAttr>(c::kNameAttr); name && op.getNumResults() == 1)
        if (Value v = map.lookupOrNull(op.getResult(0)))
          if (Operation *def = v.getDefiningOp(); def && def->getBlock() == b.getInsertionBlock() &&
                                                  !def->hasAttr(c::kNameAttr))
            def->setAttr(c::kNameAttr, name);
    }
    return success();
  }

private:
  OpBuilder &b;
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
        std::string vecName = vectors.use(elem, width);
        auto vecType = emitc::OpaqueType::get(b.getContext(), vecName);
        Value vp = b.create<emitc::CastOp>(loc, emitc::PointerType::get(vecType), at);
        Value slot = b.create<emitc::SubscriptOp>(loc, vecType, vp, ValueRange{index(0, loc)});
        SmallVector<Value> lanes;
        for (size_t k = 0; k < width; ++k)
          lanes.push_back(get(values[i + k]));
        Value vec = call(vecName, vecType, lanes, loc);
        b.create<emitc::AssignOp>(loc, slot, vec);
      }
      i += width;
    }
  }

  /// The window's pointer: `w + k` when w has the window's element type,
  /// else `(T*)((char*)w + bytes)`.
  Value window(Value w, pg::WindowOp o, Location loc) {
    Type want = convertPtr(o.getType());
    Type wElem = cast<emitc::PointerType>(w.getType()).getPointee();
    Type elem = cast<emitc::PointerType>(want).getPointee();
    int64_t bytes = o.getOffset();
    if (wElem == elem)
      return advance(w, bytes / elementBytes(elem), loc);
    if (!isa<emitc::OpaqueType>(wElem) && bytes % elementBytes(wElem) == 0 &&
        isa<emitc::OpaqueType>(elem))
      return b.create<emitc::CastOp>(loc, want, advance(w, bytes / elementBytes(wElem), loc));
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
  static bool keepRolled(pg::ForOp o) {
    if (o.getNumCarried())
      return false;
    auto inner = o.getBodyBlock()->walk([](Operation *op) {
      return isa<pg::ForOp, pg::CallOp>(op) ? WalkResult::interrupt() : WalkResult::advance();
    });
    return !inner.wasInterrupted();
  }

  /// An emitc.for; carried values are C variables declared before it,
  /// assigned at the end of the body and read after it (Loops.h).
  LogicalResult translateFor(pg::ForOp o) {
    Location loc = o.getLoc();
    SmallVector<bool> live = c::liveCarried(o);
    SmallVector<Type> types;
    SmallVector<Value> inits;
    for (auto [k, init] : llvm::enumerate(o.getInitArgs())) {
      types.push_back(valueType(init.getType()));
      inits.push_back(live[k] ? get(init) : Value());
    }
    SmallVector<Value> vars = c::declareCarried(b, loc, types, inits);
    // A widened loop steps by the lane width (SCALY_LANES with lanes=auto).
    Value step = index(o.getStep(), loc);
    if (o->hasAttr("scaly.lanes") && lanes.isAuto())
      step = lit(b.getI64Type(), lanes.widthText(o.getStep()), loc);
    auto loop = b.create<emitc::ForOp>(loc, index(o.getLower(), loc), index(o.getUpper(), loc),
                                       step);
    if (o.getName())
      loop->setAttr(c::kNameAttr, o.getNameAttr());
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
      if (failed(translate(*o.getBodyBlock())))
        return failure();
      SmallVector<Value> next;
      for (Value v : o.getYield().getValues())
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
          store(o.getValues(), get(o.getPtr()), o.getOffset(), loc);
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
          std::string fn = helpers.use("matmul", elem);
          Value args[] = {get(o.getLhs()), get(o.getRhs()), get(o.getOut()),
                          index(o.getM(), loc), index(o.getK(), loc), index(o.getN(), loc)};
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
          // converts scf.for and scf.if only: the loop is printed as
          // for (;;) { before; if (!c) break; body }, its three lines verbatim.
          b.create<emitc::VerbatimOp>(loc, "for (;;) {");
          Block &before = o.getBefore().front();
          if (failed(translate(before)))
            return failure();
          Value stop = b.create<emitc::LogicalNotOp>(loc, b.getI1Type(),
                                                     get(o.getConditionOp().getCondition()));
          auto exit = b.create<emitc::IfOp>(loc, stop, /*addThenBlock=*/true,
                                            /*addElseBlock=*/false);
          emitc::IfOp::ensureTerminator(exit.getThenRegion(), b, loc);
          {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPoint(exit.getThenRegion().front().getTerminator());
            b.create<emitc::VerbatimOp>(loc, "break;");
          }
          if (failed(translate(o.getAfter().front())))
            return failure();
          b.create<emitc::VerbatimOp>(loc, "}");
          return success();
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
        .Case([&](pg::ForOp o) { return translateFor(o); })
        .Case([&](arith::ConstantOp o) {
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
        .Case([&](arith::CmpFOp o) { return cmp(o, cmpPredicate(o.getPredicate())); })
        .Case([&](arith::CmpIOp o) { return cmp(o, cmpPredicate(o.getPredicate())); })
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

/// C names of a procedure's inputs and outputs (see c::portCNames), clear of
/// every name the module defines.
std::vector<std::string> portNames(pg::ProcOp proc) {
  std::vector<std::string> names, procedures, entries;
  auto module = proc->getParentOfType<ModuleOp>();
  for (auto p : module.getOps<pg::ProcOp>()) {
    procedures.push_back(p.getSymName().str());
    if (p.getEntry())
      entries.push_back(p.getSymName().str());
  }
  for (unsigned i = 0; i < proc.getNumInputs() + proc.getNumOutputs(); ++i)
    names.push_back(cast<StringAttr>(proc.getArgNames()[i]).str());
  return c::portCNames(names, c::moduleNames(entries, procedures));
}

DictionaryAttr argAttrs(OpBuilder &b, StringRef name, bool isConst) {
  SmallVector<NamedAttribute> attrs{b.getNamedAttr(c::kNameAttr, b.getStringAttr(name))};
  if (isConst)
    attrs.push_back(b.getNamedAttr(c::kConstAttr, b.getUnitAttr()));
  return b.getDictionaryAttr(attrs);
}

/// A raw procedure called from at least this many call sites (a loop body
/// counts once) is printed `static __attribute__((noinline))` instead of
/// `static inline`.
constexpr int kNoInlineCallSites = 8;

/// `double name(double, const double*);` for an external function.
std::string externPrototype(pg::ExternOp ext) {
  auto cType = [](Type t) -> std::string {
    if (auto p = dyn_cast<pg::PtrType>(t)) {
      Type e = p.getElementType();
      std::string elem = isa<NoneType>(e) ? "void" : (e.isInteger(1) ? "uint8_t" : c::scalarCType(e));
      return (p.getReadonly() ? "const " : "") + elem + "*";
    }
    return c::scalarCType(t);
  };
  FunctionType type = ext.getFunctionType();
  std::string s = type.getNumResults() ? cType(type.getResult(0)) : "void";
  s += " " + ext.getSymName().str() + "(";
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    s += (i ? ", " : "") + cType(t);
  return s + (type.getNumInputs() ? ");" : "void);");
}

struct ProgramToEmitCPass : scaly::impl::ProgramToEmitCBase<ProgramToEmitCPass> {
  using ProgramToEmitCBase::ProgramToEmitCBase;
  c::Helpers helpers;
  c::Tables tables;
  std::shared_ptr<c::LaneSupport> lanes;

  llvm::DenseMap<StringRef, int> callSites;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto procs = llvm::to_vector(module.getOps<pg::ProcOp>());
    OpBuilder b(module.getContext());
    b.setInsertionPointToStart(module.getBody());
    Location loc = module.getLoc();
    c::VectorTypes vectors;
    lanes = std::make_shared<c::LaneSupport>(autoLanes, vectorLibm == "glibc");
    helpers = c::Helpers();
    tables = c::Tables();

    if (!recipe.empty())
      b.create<emitc::VerbatimOp>(loc, "/* " + recipe + "\n */");
    if (!header.empty())
      b.create<emitc::IncludeOp>(loc, header, /*is_standard_include=*/false);
    if (!header.empty())
      b.create<emitc::VerbatimOp>(loc, "");
    for (StringRef inc : {"math.h", "stddef.h", "stdint.h"})
      b.create<emitc::IncludeOp>(loc, inc, /*is_standard_include=*/true);
    auto typedefs = b.create<emitc::VerbatimOp>(loc, "");
    b.create<emitc::VerbatimOp>(loc, c::statusCodeDefines());
    auto externC = b.create<emitc::VerbatimOp>(loc, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n");

    // Call sites per procedure: a procedure called from many places stays a
    // procedure in the object code too (see kNoInlineCallSites).
    callSites.clear();
    for (pg::ProcOp proc : procs)
      proc.walk([&](pg::CallOp call) { ++callSites[call.getCallee()]; });

    // External functions: an #include of their header, else a prototype.
    // (Erased at the end: the builder inserts before the module's first op.)
    auto externs = llvm::to_vector(module.getOps<pg::ExternOp>());
    for (pg::ExternOp ext : externs) {
      if (auto header = ext.getHeader()) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(typedefs);
        b.create<emitc::IncludeOp>(loc, *header, /*is_standard_include=*/false);
      } else {
        b.create<emitc::VerbatimOp>(loc, externPrototype(ext));
      }
    }
    if (!externs.empty())
      b.create<emitc::VerbatimOp>(loc, "");
    if (failed(translateProcs(b, procs, vectors)))
      return signalPassFailure();
    b.create<emitc::VerbatimOp>(loc, "#ifdef __cplusplus\n}\n#endif");
    typedefs.setValue(vectors.typedefs());
    std::string shared = lanes->definitions();
    shared += tables.definitions();
    if (!shared.empty())
      shared += "\n";
    shared += helpers.definitions();
    if (!shared.empty()) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(externC);
      std::string text = shared;
      text.pop_back(); // the verbatim op ends the line itself
      b.create<emitc::VerbatimOp>(loc, text);
    }
    // Bodies are freed in parallel on a threaded context (each is isolated).
    parallelForEach(module.getContext(), procs, [](pg::ProcOp proc) {
      proc.getBody().dropAllReferences();
      proc.getBody().getBlocks().clear();
    });
    for (pg::ProcOp proc : procs)
      proc.erase();
    for (pg::ExternOp ext : externs)
      ext.erase();
  }

  /// Each procedure as a C function, in order, each followed by a blank line.
  /// Each is translated on its own, with its own helper and vector-type
  /// registries, merged in procedure order afterwards: the same C as one
  /// after another, and in parallel on a threaded context. Tables (numbered
  /// in order of first use) and lane vectors (whose definitions are
  /// registered in order of use) keep the translation in one sequence.
  LogicalResult translateProcs(OpBuilder &b, ArrayRef<pg::ProcOp> procs,
                               c::VectorTypes &vectors) {
    MLIRContext *ctx = b.getContext();
    bool independent = llvm::none_of(procs, [](pg::ProcOp proc) {
      return proc
          .walk([](Operation *op) {
            bool ordered = isa<pg::TableOp>(op) ||
                           llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>);
            return ordered ? WalkResult::interrupt() : WalkResult::advance();
          })
          .wasInterrupted();
    });
    Location loc = b.getUnknownLoc();
    if (!independent) {
      for (pg::ProcOp proc : procs) {
        if (failed(translateProc(b, proc, vectors, helpers)))
          return failure();
        b.create<emitc::VerbatimOp>(loc, "");
      }
      return success();
    }
    struct Translated {
      Operation *fn = nullptr;
      c::Helpers helpers;
      c::VectorTypes vectors;
    };
    std::vector<Translated> done(procs.size());
    LogicalResult ok = failableParallelForEach(ctx, llvm::seq<size_t>(0, procs.size()),
                                               [&](size_t i) {
      OpBuilder detached(ctx); // the function is put in place below, in order
      return translateProc(detached, procs[i], done[i].vectors, done[i].helpers, &done[i].fn);
    });
    for (Translated &t : done) {
      if (!t.fn)
        continue;
      if (succeeded(ok)) {
        b.insert(t.fn);
        b.create<emitc::VerbatimOp>(loc, "");
        helpers.append(t.helpers);
        vectors.merge(t.vectors);
      } else {
        t.fn->erase();
      }
    }
    return ok;
  }

  LogicalResult translateProc(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                              c::Helpers &procHelpers, Operation **made = nullptr) {
    return proc.getEntry() ? translateEntry(b, proc, vectors, procHelpers, made)
                           : translateRaw(b, proc, vectors, procHelpers, made);
  }

  /// static inline void <name>_raw(const T* in..., T* out..., T* w), or
  /// static __attribute__((noinline)) void ... when called from many places
  LogicalResult translateRaw(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                             c::Helpers &helpers, Operation **made) {
    SmallVector<Type> types;
    SmallVector<Attribute> attrs;
    std::vector<std::string> names = portNames(proc);
    names.push_back("w");
    for (auto [i, t] : llvm::enumerate(proc.getArgumentTypes())) {
      types.push_back(convertPtr(t));
      attrs.push_back(argAttrs(b, names[i], cast<pg::PtrType>(t).getReadonly()));
    }
    auto fn = b.create<emitc::FuncOp>(proc.getLoc(), proc.getSymName(),
                                      b.getFunctionType(types, {}));
    if (made)
      *made = fn;
    // Few call sites: `static inline`, the compiler decides. Many: never
    // inlined, so the C compiler's time stays linear in the C's size (Clang
    // inlines a small static inline function at every call site).
    // A part of a long procedure (scaly-split-long-procs) is never inlined
    // back: keeping each C function short is why it exists.
    if (callSites.lookup(proc.getSymName()) >= kNoInlineCallSites ||
        proc->hasAttr("scaly.outlined"))
      fn.setSpecifiersAttr(b.getStrArrayAttr({"static", "__attribute__((noinline))"}));
    else
      fn.setSpecifiersAttr(b.getStrArrayAttr({"static", "inline"}));
    fn.setAllArgAttrs(attrs);
    Block *body = fn.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    BodyTranslator tr(b, vectors, helpers, tables, *lanes, dialect == "c99");
    tr.map.map(proc.getBody().getArguments(), body->getArguments());
    if (proc.getWorkspace() == 0)
      b.create<emitc::VerbatimOp>(proc.getLoc(), "(void)w;");
    if (failed(tr.translate(proc.getBody().front())))
      return failure();
    b.create<emitc::ReturnOp>(proc.getLoc(), Value());
    return success();
  }

  /// int <name>(const T** arg, T** res, int* iw, T* w, int mem), with T
  /// double, float or void by the seed's rule (the workspace's type).
  LogicalResult translateEntry(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                               c::Helpers &helpers, Operation **made) {
    Location loc = proc.getLoc();
    MLIRContext *ctx = b.getContext();
    Type ptr = convertPtr(proc.getWorkspaceArg().getType());
    bool typed = !isa<emitc::OpaqueType>(cast<emitc::PointerType>(ptr).getPointee());
    Type intT = intType(ctx);
    SmallVector<Type> types{emitc::PointerType::get(ptr), emitc::PointerType::get(ptr),
                            emitc::PointerType::get(intT), ptr, intT};
    auto fn = b.create<emitc::FuncOp>(loc, proc.getSymName(), b.getFunctionType(types, {intT}));
    if (made)
      *made = fn;
    fn.setAllArgAttrs(SmallVector<Attribute>{argAttrs(b, "arg", true), argAttrs(b, "res", false),
                                             argAttrs(b, "iw", false), argAttrs(b, "w", false),
                                             argAttrs(b, "mem", false)});
    Block *body = fn.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    auto verbatim = [&](const Twine &text) { b.create<emitc::VerbatimOp>(loc, text.str()); };
    verbatim("(void)iw;");
    verbatim("(void)mem;");
    verbatim("if (!arg || !res) return SCALY_ERR_NULL_ABI;");
    if (proc.getWorkspace() == 0)
      verbatim("(void)w;");
    else
      verbatim("if (!w) return SCALY_ERR_NULL_WORK;");
    // Only inputs and outputs that hold values must be non-null.
    for (auto [i, n] : llvm::enumerate(proc.getInputSizes()))
      if (n > 0)
        verbatim("if (!arg[" + Twine(i) + "]) return SCALY_ERR_NULL_INPUT;");
    for (auto [i, n] : llvm::enumerate(proc.getOutputSizes()))
      if (n > 0)
        verbatim("if (!res[" + Twine(i) + "]) return SCALY_ERR_NULL_RESULT;");

    BodyTranslator tr(b, vectors, helpers, tables, *lanes, dialect == "c99");
    auto subscript = [&](Value array, int64_t k) -> Value {
      Value idx = b.create<emitc::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(k));
      return b.create<emitc::SubscriptOp>(loc, ptr, array, ValueRange{idx});
    };
    // With void pointers, each input and output is cast once to its C type,
    // under its own name.
    unsigned nIn = proc.getNumInputs(), nOut = proc.getNumOutputs();
    std::vector<std::string> names = portNames(proc);
    for (unsigned i = 0; i < nIn + nOut; ++i) {
      BlockArgument a = proc.getBody().getArgument(i);
      Type want = convertPtr(a.getType());
      Value slot = subscript(body->getArgument(i < nIn ? 0 : 1), i < nIn ? i : i - nIn);
      int64_t size = i < nIn ? proc.getInputSizes()[i] : proc.getOutputSizes()[i - nIn];
      if (!typed) {
        auto named = b.create<emitc::CastOp>(loc, want, slot);
        // A port without values is never read or written: no variable for it.
        if (size > 0)
          named->setAttr(c::kNameAttr, b.getStringAttr(names[i]));
        slot = named;
      }
      tr.map.map(a, slot);
    }
    tr.map.map(proc.getWorkspaceArg(), body->getArgument(3));
    if (failed(tr.translate(proc.getBody().front())))
      return failure();
    b.create<emitc::ReturnOp>(loc, b.create<emitc::LiteralOp>(loc, intT, "SCALY_SUCCESS"));
    return success();
  }
};

} // namespace
