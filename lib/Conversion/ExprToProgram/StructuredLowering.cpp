//===- StructuredLowering.cpp - arrays above the scalarization limit ------===//
//
// Arrays with more elements than the scalarization limit stay structured:
// their elements are computed from loop counters (index arithmetic printed
// plainly in C), elementwise chains and views fuse into the loop of their
// consumer, reductions call the module's pairwise helpers and matrix
// products its matmul helper.
//
//===----------------------------------------------------------------------===//

#include "ProcLowering.h"
#include "ScalarOps.h"

#include "scaly/Dialect/Program/CountedLoop.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace scaly::lowering {

SmallVector<int64_t> ProcLowering::shapeOf(Value v) {
  return SmallVector<int64_t>(tensorOf(v.getType()).getShape());
}

SmallVector<Ix> ProcLowering::constIndex(ArrayRef<int64_t> shape, int64_t k) {
  SmallVector<Ix> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d].c = shape[d] ? k % shape[d] : 0;
    k = shape[d] ? k / shape[d] : 0;
  }
  return idx;
}

Value ProcLowering::advanced(Value ptr, Value index, Location loc) {
  return b.create<pg::OffsetOp>(loc, ptr.getType(), ptr, index, b.getI64IntegerAttr(1),
                                b.getI64IntegerAttr(0));
}

Value ProcLowering::loadAt(Value ptr, Ix lin, Location loc) {
  if (lin.isConst())
    return element(Stored{{}, ptr}, lin.c, loc);
  Type elem = cast<pg::PtrType>(ptr.getType()).getElementType();
  return b.create<pg::LoadOp>(loc, elem, advanced(ptr, lin.v, loc), b.getI64IntegerAttr(0));
}

void ProcLowering::storeAt(Value x, Value ptr, Ix lin, Location loc) {
  if (lin.isConst())
    b.create<pg::StoreOp>(loc, ValueRange{x}, ptr, b.getI64IntegerAttr(lin.c));
  else
    b.create<pg::StoreOp>(loc, ValueRange{x}, advanced(ptr, lin.v, loc), b.getI64IntegerAttr(0));
}

Operation *ProcLowering::computingOp(Value v) {
  if (auto fused = v.getDefiningOp<ex::FusedOp>())
    return fused.getRoot().getDefiningOp();
  return v.getDefiningOp();
}

Value ProcLowering::elementAt(Value v, ArrayRef<Ix> idx, Location loc) {
  const Stored &s = values[v];
  SmallVector<int64_t> shape = shapeOf(v);
  if (!s.lazy) {
    Ix lin = linear(idx, shape, loc);
    if (lin.isConst())
      return element(s, lin.c, loc);
    return loadAt(inMemory(v, loc), lin, loc);
  }
  Operation *op = computingOp(v);
  if (auto c = dyn_cast<ex::ConstantOp>(op))
    return splatScalar(c, loc);
  if (auto c = dyn_cast<ex::ConcatOp>(op))
    return concatElement(c, idx, loc);
  auto operand = [&](unsigned k, ArrayRef<Ix> at) { return elementAt(op->getOperand(k), at, loc); };
  if (auto g = dyn_cast<ex::GatherOp>(op))
    return gatherElement(g, linear(idx, shape, loc), loc);
  if (auto o = dyn_cast<ex::BroadcastOp>(op)) {
    SmallVector<int64_t> in = shapeOf(o.getOperand());
    size_t lead = shape.size() - in.size();
    SmallVector<Ix> at;
    for (size_t d = 0; d < in.size(); ++d)
      at.push_back(in[d] == 1 ? Ix{{}, 0} : idx[lead + d]);
    return operand(0, at);
  }
  if (auto o = dyn_cast<ex::TransposeOp>(op)) {
    SmallVector<Ix> at(idx.size());
    for (auto [i, p] : llvm::enumerate(o.getPermutation()))
      at[p] = idx[i];
    return operand(0, at);
  }
  if (auto o = dyn_cast<ex::SliceOp>(op)) {
    SmallVector<Ix> at;
    for (size_t d = 0; d < idx.size(); ++d)
      at.push_back(mulAdd(idx[d], o.getSteps()[d], Ix{{}, o.getStarts()[d]}, loc));
    return operand(0, at);
  }
  if (auto o = dyn_cast<ex::ReshapeOp>(op)) {
    // Row-major order is unchanged: the same linear position.
    Ix lin = linear(idx, shape, loc);
    SmallVector<int64_t> in = shapeOf(o.getOperand());
    if (in.size() <= 1)
      return operand(0, in.empty() ? ArrayRef<Ix>() : ArrayRef<Ix>(lin));
    if (lin.isConst())
      return operand(0, constIndex(in, lin.c));
    SmallVector<Ix> at(in.size());
    Value rest = lin.v;
    for (size_t d = in.size(); d-- > 0;) {
      if (d == 0) {
        at[d] = Ix{rest};
        break;
      }
      Value size = ixValue(Ix{{}, in[d]}, loc);
      at[d] = Ix{b.create<arith::RemSIOp>(loc, rest, size)};
      rest = b.create<arith::DivSIOp>(loc, rest, size);
    }
    return operand(0, at);
  }
  // Elementwise: operands have the result's shape. The scalar op keeps the
  // location of the op it computes (the Python line that wrote it).
  SmallVector<Value> args;
  for (unsigned k = 0; k < op->getNumOperands(); ++k)
    args.push_back(operand(k, idx));
  return lowering::scalarOf(b, op, args, op->getLoc());
}

void ProcLowering::materialize(Value v, Value dst, Location loc) {
  SmallVector<int64_t> shape = shapeOf(v);
  if (ex::numElements(v.getType()) == 0)
    return;
  Operation *lazy = values[v].lazy ? computingOp(v) : nullptr;
  if (auto concat = dyn_cast_or_null<ex::ConcatOp>(lazy)) {
    materializeConcat(concat, dst, loc);
    return;
  }
  // A reshape keeps the row-major order: its operand is written as it is
  // (a stack of columns reshaped into an output is stored in place, not
  // through a copy indexed by divisions).
  if (auto reshape = dyn_cast_or_null<ex::ReshapeOp>(lazy)) {
    materialize(reshape.getOperand(), dst, loc);
    return;
  }
  bool flat = isFlat(v);
  OpBuilder::InsertionGuard guard(b);
  SmallVector<int64_t> dims = flat ? SmallVector<int64_t>{ex::numElements(v.getType())} : shape;
  SmallVector<Ix> ivs = openLoops(dims, loc);
  // Transposed reads: register blocks, built by scaly-tile-copies.
  if (!flat)
    handCopyPlan(v);
  Value x = flat ? elementFlat(v, ivs[0], loc) : elementAt(v, ivs, loc);
  storeAt(x, dst, linear(ivs, dims, loc), loc);
}

SmallVector<Ix> ProcLowering::openLoops(ArrayRef<int64_t> dims, Location loc,
                                        unsigned firstAxis) {
  static const char *names[] = {"i", "j", "k", "l", "m", "n", "p", "q"};
  // Axes of one element need no loop: their index is the constant 0.
  SmallVector<Ix> ivs(dims.size(), Ix{{}, 0});
  SmallVector<pg::NestDim> nest;
  SmallVector<size_t> looped;
  for (auto [k, n] : llvm::enumerate(dims)) {
    if (n == 1)
      continue;
    size_t d = firstAxis + k;
    nest.push_back({0, n, 1, d < 8 ? names[d] : "i"});
    looped.push_back(k);
  }
  if (nest.empty())
    return ivs;
  // The iteration space only: scaly-parallel-to-loops generates the loops.
  SmallVector<Value> counters;
  pg::createNest(b, loc, nest, counters);
  for (auto [k, counter] : llvm::zip(looped, counters))
    ivs[k] = Ix{counter};
  return ivs;
}

bool ProcLowering::isFlat(Value v) {
  const Stored &s = values[v];
  if (!s.lazy)
    return s.inMemory() || tensorOf(v.getType()).getRank() == 0;
  Operation *op = computingOp(v);
  if (isa<ex::TransposeOp, ex::SliceOp, ex::ConcatOp>(op))
    return false;
  if (isa<ex::GatherOp>(op)) // reads its source at positions from a table
    return true;
  if (auto o = dyn_cast<ex::BroadcastOp>(op))
    return tensorOf(o.getOperand().getType()).getRank() == 0 && isFlat(o.getOperand());
  return llvm::all_of(op->getOperands(), [&](Value o) { return isFlat(o); });
}

Value ProcLowering::elementFlat(Value v, Ix lin, Location loc) {
  const Stored &s = values[v];
  if (!s.lazy) {
    if (tensorOf(v.getType()).getRank() == 0)
      return elementStatic(v, 0, loc);
    return loadAt(s.ptr, lin, loc);
  }
  Operation *op = computingOp(v);
  if (auto c = dyn_cast<ex::ConstantOp>(op))
    return splatScalar(c, loc);
  if (isa<ex::BroadcastOp>(op))
    return elementStatic(op->getOperand(0), 0, loc);
  if (isa<ex::ReshapeOp>(op))
    return elementFlat(op->getOperand(0), lin, loc);
  if (auto g = dyn_cast<ex::GatherOp>(op))
    return gatherElement(g, lin, loc);
  SmallVector<Value> args;
  for (Value o : op->getOperands())
    args.push_back(elementFlat(o, lin, loc));
  return lowering::scalarOf(b, op, args, op->getLoc());
}

Value ProcLowering::concatElement(ex::ConcatOp c, ArrayRef<Ix> idx, Location loc) {
  SmallVector<int64_t> shape = shapeOf(c);
  bool isStatic = llvm::all_of(idx, [](Ix i) { return i.isConst(); });
  if (!isStatic) {
    Value mem = inMemory(c, loc);
    return loadAt(mem, linear(idx, shape, loc), loc);
  }
  if (!c.getAxis()) {
    int64_t k = linear(idx, shape, loc).c;
    for (Value part : c.getOperands()) {
      int64_t n = ex::numElements(part.getType());
      if (k < n)
        return elementStatic(part, k, loc);
      k -= n;
    }
    llvm_unreachable("index beyond the concatenation");
  }
  int64_t axis = *c.getAxis();
  SmallVector<Ix> at(idx.begin(), idx.end());
  for (Value part : c.getOperands()) {
    int64_t n = shapeOf(part)[axis];
    if (at[axis].c < n)
      return elementAt(part, at, loc);
    at[axis].c -= n;
  }
  llvm_unreachable("index beyond the concatenation");
}

void ProcLowering::materializeConcat(ex::ConcatOp concat, Value dst, Location loc) {
  SmallVector<int64_t> shape = shapeOf(concat);
  int64_t axis = concat.getAxis().value_or(0);
  // Elements of one "row" before the axis, and the result's row length.
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (size_t d = axis; d < shape.size(); ++d)
    inner *= shape[d];
  if (outer == 1) {
    int64_t offset = 0;
    for (Value part : concat.getOperands()) {
      int64_t n = ex::numElements(part.getType());
      if (n == 0)
        continue;
      Value at = b.create<pg::OffsetOp>(loc, dst.getType(), dst, Value(), b.getI64IntegerAttr(1),
                                        b.getI64IntegerAttr(offset));
      writeTo(part, at, loc);
      offset += n;
    }
    return;
  }
  // One loop nest over the axes before `axis`, shared by the parts: row r of
  // part p goes to dst[r * inner + offset_p ...] (a stack of n columns is one
  // loop storing n values, not n strided loops).
  OpBuilder::InsertionGuard guard(b);
  ArrayRef<int64_t> lead = ArrayRef<int64_t>(shape).take_front(axis);
  SmallVector<Ix> rowIvs = openLoops(lead, loc);
  Ix row = linear(rowIvs, lead, loc);
  int64_t offset = 0;
  for (Value part : concat.getOperands()) {
    int64_t n = ex::numElements(part.getType());
    if (n == 0)
      continue;
    OpBuilder::InsertionGuard inside(b);
    SmallVector<int64_t> pshape = shapeOf(part);
    ArrayRef<int64_t> rest = ArrayRef<int64_t>(pshape).drop_front(axis);
    SmallVector<Ix> ivs(rowIvs);
    SmallVector<Ix> colIvs = openLoops(rest, loc, axis);
    ivs.append(colIvs.begin(), colIvs.end());
    Value x = elementAt(part, ivs, loc);
    Ix col = linear(colIvs, rest, loc);
    storeAt(x, dst, mulAdd(row, inner, mulAdd(col, 1, Ix{{}, offset}, loc), loc), loc);
    offset += n / outer;
  }
}

Value ProcLowering::gatherElement(ex::GatherOp g, Ix lin, Location loc) {
  Value src = inMemory(g.getOperand(), loc);
  if (lin.isConst())
    return loadAt(src, Ix{{}, g.getIndices()[lin.c]}, loc);
  auto ptr = pg::PtrType::get(b.getContext(), b.getI64Type(), true);
  Value table = b.create<pg::TableOp>(loc, ptr, b.getI64TensorAttr(g.getIndices()));
  Value at = b.create<pg::LoadOp>(loc, b.getI64Type(), advanced(table, lin.v, loc),
                                  b.getI64IntegerAttr(0));
  return loadAt(src, Ix{at}, loc);
}

LogicalResult ProcLowering::lowerScatter(ex::ScatterOp o) {
  Location loc = o.getLoc();
  Value v = o.getValues();
  ArrayRef<int64_t> at = o.getPositions();
  Type elem = elementOf(o.getType());
  auto zero = [&] { return lowering::constant(b, elem, b.getZeroAttr(elem), loc); };
  int64_t n = ex::numElements(o.getType()), count = static_cast<int64_t>(at.size());
  if (inRegisters(o)) {
    Stored out;
    out.elems.assign(n, n ? zero() : Value());
    for (int64_t k = 0; k < count; ++k)
      out.elems[at[k]] = elementStatic(v, k, loc);
    values[o] = std::move(out);
    return success();
  }
  Value mem = resultMemory(o, loc);
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Ix> ivs = openLoops({n}, loc);
    storeAt(zero(), mem, ivs[0], loc);
  }
  if (!isLarge(v)) {
    // Few values: one store each, at its constant position.
    for (int64_t k = 0; k < count; ++k)
      storeAt(elementStatic(v, k, loc), mem, Ix{{}, at[k]}, loc);
  } else {
    // The values' memory (when they are not computed from one index) before
    // the loop: a spill is written once.
    Value src = isFlat(v) ? Value() : inMemory(v, loc);
    // Evenly spaced positions (a diagonal) are computed from the counter;
    // others are read from a table of them.
    int64_t step = count > 1 ? at[1] - at[0] : 0;
    bool even = true;
    for (int64_t k = 2; even && k < count; ++k)
      even = at[k] - at[k - 1] == step;
    OpBuilder::InsertionGuard guard(b);
    Value table;
    if (!even) {
      auto ptr = pg::PtrType::get(b.getContext(), b.getI64Type(), true);
      table = b.create<pg::TableOp>(loc, ptr, b.getI64TensorAttr(at));
    }
    SmallVector<Ix> ivs = openLoops({count}, loc);
    Value x = src ? loadAt(src, ivs[0], loc) : elementFlat(v, ivs[0], loc);
    Ix to = even ? mulAdd(ivs[0], step, Ix{{}, at[0]}, loc) : Ix{loadAt(table, ivs[0], loc)};
    storeAt(x, mem, to, loc);
  }
  values[o] = Stored{{}, mem};
  return success();
}

LogicalResult ProcLowering::lowerReduce(ex::ReduceOp o) {
  Location loc = o.getLoc();
  Value in = o.getOperand();
  SmallVector<int64_t> shape = shapeOf(in);
  ArrayRef<int64_t> axes = o.getAxes();
  Type elem = elementOf(o.getType());
  if (!isLarge(in)) {
    // Small: every output element combines its inputs statically.
    SmallVector<int64_t> outShape = shapeOf(o);
    Stored out;
    for (int64_t k = 0; k < ex::numElements(o.getType()); ++k) {
      SmallVector<Ix> outIdx = constIndex(outShape, k);
      SmallVector<int64_t> redShape;
      for (int64_t a : axes)
        redShape.push_back(shape[a]);
      SmallVector<Value> terms;
      for (int64_t r = 0; r < ex::numElements(RankedTensorType::get(redShape, elem)); ++r) {
        SmallVector<Ix> redIdx = constIndex(redShape, r), full;
        size_t oi = 0, ri = 0;
        for (size_t d = 0; d < shape.size(); ++d)
          full.push_back(llvm::is_contained(axes, static_cast<int64_t>(d)) ? redIdx[ri++]
                                                                            : outIdx[oi++]);
        terms.push_back(elementAt(in, full, loc));
      }
      out.elems.push_back(lowering::combine(b, o.getKind(), terms, elem, loc));
    }
    values[o] = std::move(out);
    return success();
  }
  // One non-trailing axis into a large result: rows accumulated into it
  // (LoopStrategies.cpp).
  if (accumulateRows(o) || sumInBlocks(o))
    return success();
  // Large: the reduced axes are trailing (one contiguous run per result
  // element) or a single axis (a strided run); scaly-move-reduced-axes-last
  // gave any other a transpose with them last.
  bool trailing = ex::reducesTrailingAxes(o);
  if (!trailing && axes.size() != 1)
    return o.emitOpError("reduces several axes that are not the trailing ones: run "
                         "scaly-move-reduced-axes-last before scaly-lower-to-program"),
           failure();
  int64_t count = 1, stride = 1;
  for (int64_t a : axes)
    count *= shape[a];
  Value ptr = inMemory(in, loc);
  SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  if (!trailing)
    stride = strides[axes[0]];
  SmallVector<int64_t> keptStrides; // stride of each kept axis in `ptr`
  for (size_t d = 0; d < shape.size(); ++d)
    if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
      keptStrides.push_back(strides[d]);
  auto reduceAt = [&](Ix base) -> Value {
    Value at = ptr;
    if (!base.isConst() || base.c != 0)
      at = b.create<pg::OffsetOp>(loc, ptr.getType(), ptr, base.isConst() ? Value() : base.v,
                                  b.getI64IntegerAttr(1), b.getI64IntegerAttr(base.isConst() ? base.c : 0));
    return b.create<pg::ReduceOp>(loc, elem, reduceName(o.getKind()), asReadonly(at, loc),
                                  count, stride);
  };
  auto baseOf = [&](ArrayRef<Ix> outIdx) {
    Ix base{{}, 0};
    for (auto [d, ix] : llvm::enumerate(outIdx))
      base = mulAdd(ix, keptStrides[d], base, loc);
    return base;
  };
  SmallVector<int64_t> outShape = shapeOf(o);
  if (inRegisters(o)) {
    Stored out;
    for (int64_t k = 0; k < ex::numElements(o.getType()); ++k)
      out.elems.push_back(reduceAt(baseOf(constIndex(outShape, k))));
    values[o] = std::move(out);
    return success();
  }
  Value mem = resultMemory(o, loc);
  {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Ix> ivs = openLoops(outShape, loc);
    storeAt(reduceAt(baseOf(ivs)), mem, linear(ivs, outShape, loc), loc);
  }
  values[o] = Stored{{}, mem};
  return success();
}

LogicalResult ProcLowering::lowerMatmul(ex::MatmulOp o) {
  Location loc = o.getLoc();
  SmallVector<int64_t> sa = shapeOf(o.getLhs()), sb = shapeOf(o.getRhs()), so = shapeOf(o);
  size_t r = sa.size();
  int64_t m = sa[r - 2], k = sa[r - 1], n = sb[r - 1];
  int64_t batch = 1;
  for (size_t d = 0; d + 2 < r; ++d)
    batch *= sa[d];
  Type elem = elementOf(o.getType());
  if (inRegisters(o)) {
    Stored out;
    for (int64_t bi = 0; bi < batch; ++bi)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          SmallVector<Value> terms;
          for (int64_t p = 0; p < k; ++p) {
            Value x = elementStatic(o.getLhs(), (bi * m + i) * k + p, loc);
            Value y = elementStatic(o.getRhs(), (bi * k + p) * n + j, loc);
            terms.push_back(isa<FloatType>(elem) ? Value(b.create<arith::MulFOp>(loc, x, y))
                                                 : Value(b.create<arith::MulIOp>(loc, x, y)));
          }
          // An empty inner axis sums nothing: zero, as NumPy gives.
          Value acc = terms.empty() ? lowering::constant(b, elem, b.getZeroAttr(elem), loc) : terms[0];
          for (size_t t = 1; t < terms.size(); ++t)
            acc = lowering::combine2(b, ex::ReduceKind::sum, acc, terms[t], loc);
          out.elems.push_back(acc);
        }
    values[o] = std::move(out);
    return success();
  }
  Value pa = asReadonly(inMemory(o.getLhs(), loc), loc);
  Value pb = asReadonly(inMemory(o.getRhs(), loc), loc);
  Value mem = resultMemory(o, loc);
  values[o] = Stored{{}, mem};
  if (ex::numElements(o.getType()) == 0)
    return success();
  OpBuilder::InsertionGuard guard(b);
  Ix bi{{}, 0};
  if (batch > 1) {
    // The products are independent: a nest over the batch.
    SmallVector<Value> counters;
    pg::createNest(b, loc, {{0, batch, 1, "b"}}, counters);
    bi = Ix{counters[0]};
  }
  auto at = [&](Value p, int64_t size) -> Value {
    if (bi.isConst())
      return p;
    return b.create<pg::OffsetOp>(loc, p.getType(), p, bi.v, b.getI64IntegerAttr(size),
                                  b.getI64IntegerAttr(0));
  };
  b.create<pg::MatmulOp>(loc, at(pa, m * k), at(pb, k * n), at(mem, m * n), m, k, n);
  return success();
}

void ProcLowering::materializeCopy(const Stored &from, Value like, Value dst, Location loc) {
  int64_t n = ex::numElements(like.getType());
  if (n == 0)
    return;
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Ix> ivs = openLoops({n}, loc);
  storeAt(loadAt(from.ptr, ivs[0], loc), dst, ivs[0], loc);
}

} // namespace scaly::lowering
