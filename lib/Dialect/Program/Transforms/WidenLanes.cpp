//===- WidenLanes.cpp - widen loops of independent iterations to lanes ----===//
//
// An innermost scf.for with step 1 whose iterations are independent is
// split into a loop of `lanes`-wide iterations and the original loop over
// the remaining ones. In the wide loop a value that depends on the counter
// becomes a vector<lanes x T> (lane k holds iteration i + k); a value that
// does not stays a scalar and is broadcast where a lane vector needs it.
// Pointers stay scalars (lane 0's), with the number of elements between
// consecutive lanes recorded as their stride: a load or store through them
// reads or writes one element per lane, `stride` apart.
//
// Independence is checked on the buffers the loop writes: every access is
// reduced to its root buffer plus an affine offset in the counter, and two
// accesses of one root that could touch the same element in different
// iterations keep the loop scalar (a scan's state, read at k and written at
// k + 1, is the typical case). Distinct roots (inputs, outputs, workspace
// windows, tables) never overlap. A loop with carried values (scf.for's
// iter_args, a reduction through SSA values) is never independent: it stays
// scalar.
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Program/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"

#include <map>

namespace scaly::prog {
#define GEN_PASS_DEF_WIDENLANES
#include "scaly/Dialect/Program/Passes.h.inc"
} // namespace scaly::prog

using namespace mlir;
using namespace scaly::prog;

namespace {

/// An element offset from a root buffer: constant + sum of coefficient *
/// value over index values (the loop's counter or values fixed in the loop).
struct Affine {
  Value root;
  int64_t constant = 0;
  std::map<void *, int64_t> terms; // Value's opaque pointer -> coefficient

  void add(Value v, int64_t k) {
    if ((terms[v.getAsOpaquePointer()] += k) == 0)
      terms.erase(v.getAsOpaquePointer());
  }
};

/// Root and offset of a pointer, through prog.offset chains; nullopt when
/// the pointer's origin is not a known buffer.
std::optional<Affine> affineOf(Value ptr) {
  Affine a;
  while (auto off = ptr.getDefiningOp<OffsetOp>()) {
    a.constant += off.getBias();
    if (Value idx = off.getIndex())
      a.add(idx, off.getScale());
    ptr = off.getBase();
  }
  Operation *def = ptr.getDefiningOp();
  if (def && !isa<WindowOp, TableOp>(def))
    return std::nullopt;
  a.root = ptr;
  return a;
}

/// One access of memory in the loop body: `count` consecutive elements at
/// `offset`, which advances by `step` elements per iteration.
struct Access {
  Affine offset;
  int64_t step = 0;
  int64_t count = 1;
  bool isStore = false;
};

bool isLaneArith(Operation *op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
             arith::MinNumFOp, arith::MaxNumFOp, arith::RemFOp>(op) ||
         (op->getDialect() && op->getDialect()->getNamespace() == "math");
}

/// A comparison or boolean combination that becomes a lane mask: float
/// compares whose C vector operator means the same (== is ordered, != is
/// unordered, as in arith), and & | of masks.
bool isLaneMask(Operation *op) {
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    using P = arith::CmpFPredicate;
    P p = cmp.getPredicate();
    return p == P::OEQ || p == P::OLT || p == P::OLE || p == P::OGT || p == P::OGE ||
           p == P::UNE;
  }
  return isa<arith::AndIOp, arith::OrIOp>(op) && op->getResult(0).getType().isInteger(1);
}

class LoopWidener {
public:
  LoopWidener(scf::ForOp loop, int64_t lanes) : loop(loop), lanes(lanes) {}

  /// Whether the loop can be widened; fills `stride` and `varying`.
  bool analyze() {
    std::optional<CountedBounds> bounds = countedBounds(loop);
    if (!bounds || bounds->step != 1 || bounds->upper - bounds->lower < lanes)
      return false;
    // A value carried from one iteration to the next (a running sum) makes
    // the iterations depend on each other.
    if (loop.getNumRegionIterArgs() != 0)
      return false;
    Value iv = loop.getInductionVar();
    varying.insert(iv);
    SmallVector<Access> accesses;
    for (Operation &op : loop.getBody()->without_terminator()) {
      if (op.getNumRegions() || isa<CallOp, CallExternOp, ReduceOp, MatmulOp>(op))
        return false;
      bool anyVarying = llvm::any_of(op.getOperands(), [&](Value v) { return varying.count(v); });
      if (auto off = dyn_cast<OffsetOp>(op)) {
        int64_t s = stride.lookup(off.getBase());
        if (off.getIndex() == iv)
          s += off.getScale();
        else if (off.getIndex() && varying.count(off.getIndex()))
          return false;
        if (s != 0) {
          stride[off.getResult()] = s;
          varying.insert(off.getResult());
        }
        continue;
      }
      if (auto load = dyn_cast<LoadOp>(op)) {
        if (!recordAccess(load.getPtr(), load.getOffset(), 1, false, accesses))
          return false;
        if (stride.lookup(load.getPtr()) != 0) {
          if (!isa<FloatType>(load.getType()))
            return false;
          varying.insert(load.getResult());
        }
        continue;
      }
      if (auto store = dyn_cast<StoreOp>(op)) {
        if (stride.lookup(store.getPtr()) == 0 ||
            !isa<FloatType>(store.getValues().front().getType()))
          return false; // every iteration would write the same elements
        if (!recordAccess(store.getPtr(), store.getOffset(), store.getValues().size(), true,
                          accesses))
          return false;
        continue;
      }
      if (!anyVarying)
        continue; // the same in every lane: stays a scalar
      if (isLaneMask(&op)) {
        // A bool the same in every lane would need a broadcast mask: kept scalar.
        for (Value v : op.getOperands())
          if (v.getType().isInteger(1) && !varying.count(v))
            return false;
        varying.insert(op.getResult(0));
        continue;
      }
      if (auto select = dyn_cast<arith::SelectOp>(op)) {
        // A lane-by-lane choice (a varying mask), or one choice for every lane.
        if (!isa<FloatType>(select.getType()))
          return false;
        varying.insert(select.getResult());
        continue;
      }
      if (!isLaneArith(&op) || op.getNumResults() != 1 ||
          !isa<FloatType>(op.getResult(0).getType()))
        return false;
      varying.insert(op.getResult(0));
    }
    return independent(accesses);
  }

  void widen() {
    OpBuilder b(loop);
    CountedBounds bounds = boundsOf(loop);
    int64_t split = bounds.lower + (bounds.upper - bounds.lower) / lanes * lanes;
    auto name = loop->getAttrOfType<StringAttr>(kLoopNameAttr);
    auto wide = createCountedLoop(b, loop.getLoc(), bounds.lower, split, lanes,
                                  name ? name.getValue() : StringRef());
    wide->setAttr("scaly.lanes", b.getI64IntegerAttr(lanes));
    IRMapping map;
    map.map(loop.getInductionVar(), wide.getInductionVar());
    OpBuilder body(wide.getBody()->getTerminator());
    for (Operation &op : loop.getBody()->without_terminator())
      widenOp(body, &op, map);
    SmallVector<Value> oldBounds(loop.getOperands().take_front(loop.getNumControlOperands()));
    if (split == bounds.upper) {
      loop.erase();
    } else {
      // The remainder: the original loop, from the split on.
      Value from = b.create<arith::ConstantOp>(loop.getLoc(), b.getI64IntegerAttr(split));
      loop.getLowerBoundMutable().assign(from);
    }
    eraseUnusedConstants(oldBounds);
  }

  /// The pass runs after canonicalize: bound constants it leaves unused
  /// would stay in the procedure.
  static void eraseUnusedConstants(ArrayRef<Value> values) {
    llvm::SmallPtrSet<Operation *, 3> dead;
    for (Value v : values)
      if (auto c = v.getDefiningOp<arith::ConstantOp>(); c && c->use_empty())
        dead.insert(c);
    for (Operation *op : dead)
      op->erase();
  }

private:
  scf::ForOp loop;
  int64_t lanes;
  DenseMap<Value, int64_t> stride; // pointer -> elements between lanes
  llvm::DenseSet<Value> varying;
  DenseMap<Value, Value> broadcasts;

  bool recordAccess(Value ptr, int64_t offset, int64_t count, bool isStore,
                    SmallVectorImpl<Access> &out) {
    std::optional<Affine> a = affineOf(ptr);
    if (!a)
      return false;
    Access acc;
    acc.offset = *a;
    acc.offset.constant += offset;
    acc.count = count;
    acc.isStore = isStore;
    auto it = acc.offset.terms.find(loop.getInductionVar().getAsOpaquePointer());
    if (it != acc.offset.terms.end()) {
      acc.step = it->second;
      acc.offset.terms.erase(it);
    }
    // Any other index must not change inside the loop.
    for (auto &[v, k] : acc.offset.terms)
      if (varying.count(Value::getFromOpaquePointer(v)))
        return false;
    out.push_back(acc);
    return true;
  }

  /// No two accesses of one buffer, one of them a store, touch the same
  /// element in different iterations.
  bool independent(ArrayRef<Access> accesses) {
    CountedBounds bounds = boundsOf(loop);
    int64_t trips = bounds.upper - bounds.lower;
    for (const Access &s : accesses) {
      if (!s.isStore)
        continue;
      if (s.count > std::abs(s.step))
        return false; // consecutive iterations' stores overlap
      for (const Access &a : accesses) {
        if (&a == &s || a.offset.root != s.offset.root)
          continue;
        if (a.offset.terms != s.offset.terms)
          return false; // offsets differ by values unknown here
        int64_t d = a.offset.constant - s.offset.constant;
        if (a.step == s.step) {
          // Iterations i (store) and j (access) meet where
          // step * (i - j) = d + q - p, p < s.count, q < a.count.
          for (int64_t e = d - s.count + 1; e <= d + a.count - 1; ++e)
            if (e != 0 && e % s.step == 0 && std::abs(e / s.step) < trips)
              return false;
          continue;
        }
        // Different steps: the whole ranges must be disjoint.
        auto range = [&](const Access &x) {
          int64_t first = x.offset.constant, last = first + x.step * (trips - 1);
          return std::make_pair(std::min(first, last), std::max(first, last) + x.count - 1);
        };
        auto [lo1, hi1] = range(s);
        auto [lo2, hi2] = range(a);
        if (lo1 <= hi2 && lo2 <= hi1)
          return false;
      }
    }
    return true;
  }

  VectorType vectorOf(Type scalar) { return VectorType::get({lanes}, scalar); }

  /// `v` as a lane vector: itself when it varies, else its broadcast.
  Value lanesOf(OpBuilder &b, Value scalar, IRMapping &map, Location loc) {
    Value v = map.lookupOrDefault(scalar);
    if (isa<VectorType>(v.getType()))
      return v;
    Value &cached = broadcasts[v];
    if (!cached) {
      OpBuilder::InsertionGuard guard(b);
      // Right after the scalar, which may be outside the loop (a constant):
      // then the broadcast is made once.
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(v.getParentBlock());
      cached = b.create<vector::BroadcastOp>(loc, vectorOf(v.getType()), v);
    }
    return cached;
  }

  void widenOp(OpBuilder &b, Operation *op, IRMapping &map) {
    Location loc = op->getLoc();
    if (auto load = dyn_cast<LoadOp>(op); load && varying.count(load.getResult())) {
      int64_t s = stride.lookup(load.getPtr());
      auto wide = b.create<LoadOp>(loc, vectorOf(load.getType()), map.lookup(load.getPtr()),
                                   load.getOffset(), s);
      map.map(load.getResult(), wide.getResult());
      return;
    }
    if (auto store = dyn_cast<StoreOp>(op)) {
      SmallVector<Value> values;
      for (Value v : store.getValues())
        values.push_back(lanesOf(b, v, map, loc));
      b.create<StoreOp>(loc, values, map.lookup(store.getPtr()), store.getOffset(),
                        stride.lookup(store.getPtr()));
      return;
    }
    if (auto select = dyn_cast<arith::SelectOp>(op);
        select && varying.count(select.getResult()) && !varying.count(select.getCondition())) {
      // One condition for every lane: a scalar choice between lane vectors.
      auto wide = b.create<arith::SelectOp>(loc, map.lookupOrDefault(select.getCondition()),
                                            lanesOf(b, select.getTrueValue(), map, loc),
                                            lanesOf(b, select.getFalseValue(), map, loc));
      map.map(select.getResult(), wide.getResult());
      return;
    }
    if (op->getNumResults() == 1 && varying.count(op->getResult(0)) && !isa<OffsetOp>(op)) {
      // Float arithmetic, math, compares and selects on lane vectors: the
      // same op, vector types (a compare gives a vector of i1, a mask).
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(lanesOf(b, v, map, loc));
      OperationState state(loc, op->getName());
      state.addOperands(operands);
      state.addTypes(vectorOf(op->getResult(0).getType()));
      state.addAttributes(op->getAttrs());
      map.map(op->getResult(0), b.create(state)->getResult(0));
      return;
    }
    b.clone(*op, map); // pointers and values the same in every lane
  }
};

struct WidenLanesPass : scaly::prog::impl::WidenLanesBase<WidenLanesPass> {
  using WidenLanesBase::WidenLanesBase;

  void runOnOperation() override {
    if (lanes != 2 && lanes != 4 && lanes != 8) {
      getOperation()->emitError("scaly-widen-lanes: lanes must be 2, 4 or 8, got ")
          << static_cast<int64_t>(lanes);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> innermost;
    getOperation()->walk([&](scf::ForOp loop) {
      bool hasInner = false;
      loop.getBody()->walk([&](Operation *op) {
        if (isa<LoopLikeOpInterface>(op)) // scf.for, or an scf.while
          hasInner = true;
      });
      if (!hasInner && !loop->hasAttr("scaly.lanes"))
        innermost.push_back(loop);
    });
    for (scf::ForOp loop : innermost) {
      LoopWidener widener(loop, lanes);
      if (widener.analyze())
        widener.widen();
    }
  }
};

} // namespace
