//===- MemoryPatterns.cpp - buffers, calls and helpers to EmitC -----------===//
//
// All Scaly's own: the program dialect addresses the caller's buffers
// through `!prog.ptr` (Patterns.h), which MemRefToEmitC (statically shaped
// memrefs: alloca, global, load, store; no pointer arguments, no offsets)
// cannot take. Loads are subscripts, stores assignments (several floats at
// once through may_alias vector types), offsets pointer arithmetic, windows
// pointers into the workspace, tables and NULL literals, alignment tests
// integer arithmetic on the address, calls emitc calls, reductions and
// products calls of the module's C helpers (HelperFunctions.h). Lane vector
// loads and stores are LanePatterns.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"

#include "HelperFunctions.h"
#include "ModuleDefinitions.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace scaly;
using namespace scaly::c;
namespace pg = scaly::prog;

namespace {

/// A pattern reading the conversion state of its op's procedure.
template <typename Op>
struct BodyPattern : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  BodyState &state() const { return currentBody(); }
};

/// `ptr[offset]`.
struct LoadLowering : BodyPattern<pg::LoadOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::LoadOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<emitc::SubscriptOp>(o, o.getType(), a.getPtr(),
                                             ValueRange{indexConstant(r, o.getOffset(), o.getLoc())});
    return success();
  }
};

/// The module's aligned(8), may_alias vector type of `width` `elem`s.
emitc::OpaqueType vectorType(BodyState &state, MLIRContext *ctx, Type elem, int64_t width) {
  return emitc::OpaqueType::get(ctx, state.registries.vectors.use(elem, static_cast<int>(width)));
}

/// `(T<n>){v0, ..., vn-1}`: the values as one vector of type `vecType`.
Value vectorOf(OpBuilder &b, emitc::OpaqueType vecType, ValueRange values, Location loc) {
  return b.create<cdecl::CompoundLiteralOp>(loc, vecType, values);
}

/// Stores of several floats go through may_alias vector types aligned to
/// one element, in chunks of 8, 4 and 2; integers, bools and a value left
/// over are plain stores. A streaming store (outside C99) is
/// SCALY_STREAM_STORE((T4_aligned*)(p + k), (T4){...}) per 32 bytes of
/// values (the verifier checked they are whole vectors); element-aligned,
/// SCALY_STREAM_STORE((Tn*)(p + k), (Tn){...}) of all n values through the
/// element-aligned vector type (one value: through the element pointer).
struct StoreLowering : BodyPattern<pg::StoreOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::StoreOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    if (o.getStreaming() && !state().c99)
      streamStore(a.getValues(), a.getPtr(), o.getOffset(), o.getElementAligned(), o.getLoc(), r);
    else
      store(a.getValues(), a.getPtr(), o.getOffset(), o.getLoc(), r);
    r.eraseOp(o);
    return success();
  }

  void store(ValueRange values, Value ptr, int64_t offset, Location loc, OpBuilder &r) const {
    Type elem = cast<emitc::PointerType>(ptr.getType()).getPointee();
    size_t i = 0, n = values.size();
    bool useVectors = isa<FloatType>(elem) && !state().c99; // C99 has no vector extensions
    while (i < n) {
      size_t width = 1;
      for (size_t w : {8, 4, 2})
        if (useVectors && n - i >= w) {
          width = w;
          break;
        }
      Value at = advance(r, ptr, offset + static_cast<int64_t>(i), loc);
      if (width == 1) {
        Value slot =
            r.create<emitc::SubscriptOp>(loc, elem, at, ValueRange{indexConstant(r, 0, loc)});
        r.create<emitc::AssignOp>(loc, slot, values[i]);
      } else {
        emitc::OpaqueType vecType = vectorType(state(), r.getContext(), elem, width);
        Value vp = r.create<emitc::CastOp>(loc, emitc::PointerType::get(vecType), at);
        Value slot =
            r.create<emitc::SubscriptOp>(loc, vecType, vp, ValueRange{indexConstant(r, 0, loc)});
        r.create<emitc::AssignOp>(loc, slot, vectorOf(r, vecType, values.slice(i, width), loc));
      }
      i += width;
    }
  }

  void streamStore(ValueRange values, Value ptr, int64_t offset, bool elementAligned,
                   Location loc, OpBuilder &r) const {
    Type elem = cast<emitc::PointerType>(ptr.getType()).getPointee();
    state().registries.helpers.useStreamStore();
    if (elementAligned) { // 2, 4, 8 or 16 values (the verifier's rule)
      emitc::OpaqueType vecType = vectorType(state(), r.getContext(), elem, values.size());
      Value at = r.create<emitc::CastOp>(loc, emitc::PointerType::get(vecType),
                                         advance(r, ptr, offset, loc));
      r.create<emitc::CallOpaqueOp>(loc, TypeRange{}, "SCALY_STREAM_STORE",
                                    ValueRange{at, vectorOf(r, vecType, values, loc)});
      return;
    }
    int64_t width = 32 / emittedElementBytes(elem);
    auto aligned = emitc::PointerType::get(
        emitc::OpaqueType::get(r.getContext(), state().registries.vectors.useAligned(elem, width)));
    emitc::OpaqueType vecType = vectorType(state(), r.getContext(), elem, width);
    for (int64_t i = 0; i < static_cast<int64_t>(values.size()); i += width) {
      Value at = r.create<emitc::CastOp>(loc, aligned, advance(r, ptr, offset + i, loc));
      Value vec = vectorOf(r, vecType, values.slice(i, width), loc);
      r.create<emitc::CallOpaqueOp>(loc, TypeRange{}, "SCALY_STREAM_STORE", ValueRange{at, vec});
    }
  }
};

/// `((uintptr_t)ptr & (bytes - 1)) == 0`.
struct IsAlignedLowering : BodyPattern<pg::IsAlignedOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::IsAlignedOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    auto address = emitc::OpaqueType::get(r.getContext(), "uintptr_t");
    Value cast = r.create<emitc::CastOp>(loc, address, a.getPtr());
    Value mask = r.create<emitc::LiteralOp>(loc, address, std::to_string(o.getBytes() - 1));
    Value low = r.create<emitc::BitwiseAndOp>(loc, address, cast, mask);
    Value zero = r.create<emitc::LiteralOp>(loc, address, "0");
    r.replaceOpWithNewOp<emitc::CmpOp>(o, r.getI1Type(), emitc::CmpPredicate::eq, low, zero);
    return success();
  }
};

/// `base + (index * scale + bias)`, or `base + bias`.
struct OffsetLowering : BodyPattern<pg::OffsetOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::OffsetOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    Value base = a.getBase();
    if (!a.getIndex()) {
      r.replaceOp(o, advance(r, base, o.getBias(), loc));
      return success();
    }
    Value idx = a.getIndex();
    if (o.getScale() != 1)
      idx = r.create<emitc::MulOp>(loc, r.getI64Type(), indexConstant(r, o.getScale(), loc), idx);
    if (o.getBias() != 0)
      idx = r.create<emitc::AddOp>(loc, r.getI64Type(), idx, indexConstant(r, o.getBias(), loc));
    r.replaceOpWithNewOp<emitc::AddOp>(o, base.getType(), base, idx);
    return success();
  }
};

/// The window's pointer: `w + k` when w has the window's element type,
/// else `(T*)((char*)w + bytes)`.
struct WindowLowering : BodyPattern<pg::WindowOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::WindowOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    Value w = a.getWorkspace();
    Type want = convertPtr(o.getType());
    Type wElem = cast<emitc::PointerType>(w.getType()).getPointee();
    Type elem = cast<emitc::PointerType>(want).getPointee();
    int64_t bytes = o.getOffset();
    if (wElem == elem) {
      r.replaceOp(o, advance(r, w, bytes / emittedElementBytes(elem), loc));
      return success();
    }
    if (!isa<emitc::OpaqueType>(wElem) && bytes % emittedElementBytes(wElem) == 0 &&
        isa<emitc::OpaqueType>(elem)) {
      r.replaceOpWithNewOp<emitc::CastOp>(o, want,
                                          advance(r, w, bytes / emittedElementBytes(wElem), loc));
      return success();
    }
    Value raw = r.create<emitc::CastOp>(loc, emitc::PointerType::get(charType(r.getContext())), w);
    raw = advance(r, raw, bytes, loc);
    r.replaceOpWithNewOp<emitc::CastOp>(o, want, raw);
    return success();
  }
};

/// The module's `static const` table (ModuleDefinitions.h), as a literal.
struct TableLowering : BodyPattern<pg::TableOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::TableOp o, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<emitc::LiteralOp>(o, convertPtr(o.getType()),
                                           state().registries.tables.pointerTo(o.getValues()));
    return success();
  }
};

struct NullLowering : BodyPattern<pg::NullOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::NullOp o, OpAdaptor,
                                ConversionPatternRewriter &r) const override {
    r.replaceOpWithNewOp<emitc::LiteralOp>(o, convertPtr(o.getType()), "NULL");
    return success();
  }
};

/// A call of the module's reduction helper for the kind and type.
struct ReduceLowering : BodyPattern<pg::ReduceOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::ReduceOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    std::string fn = state().registries.helpers.use(o.getKind(), o.getType());
    Value args[] = {a.getPtr(), indexConstant(r, o.getCount(), loc),
                    indexConstant(r, o.getStride(), loc)};
    r.replaceOp(o, callOpaque(r, fn, o.getType(), args, loc));
    return success();
  }
};

/// A call of the module's matrix product helper for the type; a float
/// matrix times a vector calls the helper that sums several rows at once
/// (the same sums, bit for bit).
struct MatmulLowering : BodyPattern<pg::MatmulOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::MatmulOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    Location loc = o.getLoc();
    Type elem = cast<pg::PtrType>(state().progType(o.getOut())).getElementType();
    SmallVector<Value> args{a.getLhs(), a.getRhs(), a.getOut(), indexConstant(r, o.getM(), loc),
                            indexConstant(r, o.getK(), loc)};
    bool vector = o.getN() == 1 && isa<FloatType>(elem);
    if (!vector)
      args.push_back(indexConstant(r, o.getN(), loc));
    std::string fn = state().registries.helpers.use(vector ? "matvec" : "matmul", elem);
    r.create<emitc::CallOpaqueOp>(loc, TypeRange{}, fn, args);
    r.eraseOp(o);
    return success();
  }
};

/// A procedure's call (upstream's func.call -> emitc.call, for prog.proc).
struct CallLowering : BodyPattern<pg::CallOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::CallOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    r.create<emitc::CallOp>(o.getLoc(), TypeRange{}, o.getCallee(), a.getOperands());
    r.eraseOp(o);
    return success();
  }
};

/// A call of a C function the module declares or includes, by name.
struct CallExternLowering : BodyPattern<pg::CallExternOp> {
  using BodyPattern::BodyPattern;
  LogicalResult matchAndRewrite(pg::CallExternOp o, OpAdaptor a,
                                ConversionPatternRewriter &r) const override {
    auto call = r.create<emitc::CallOpaqueOp>(o.getLoc(), o->getResultTypes(), o.getCallee(),
                                              a.getOperands());
    r.replaceOp(o, call.getResults());
    return success();
  }
};

} // namespace

void c::populateMemoryPatterns(TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<LoadLowering, StoreLowering, IsAlignedLowering, OffsetLowering, WindowLowering, TableLowering,
               NullLowering, ReduceLowering, MatmulLowering, CallLowering, CallExternLowering>(
      converter, patterns.getContext());
}
