//===- RollCallChains.cpp - chains of calls back into one expr.scan ------===//
//
// A model unrolled in Python (`for k in range(n): x = step(x, u[k])`) traces
// to n calls of one function, each taking the previous call's first result
// as its first operand. This pass turns every such chain of at least
// kMinChain calls into one expr.scan when each other operand is either the
// same value in every call (passed whole) or a slice of one array at a
// position along one axis that moves from call to call (`u[k]`, `U[k]`,
// `U[:, 2 * k]`, `u[k // 2]`), and the state is floating-point. Evenly
// spaced slices become one strided slice the scan walks; slices at other
// positions (`u[k // 2]`, `u[idx[k]]`) become one expr.gather of the rows in
// call order, whose position table is the only part of the C that grows
// with the chain. Results other than the state become slices of the scan's
// stacked outputs. The calls and their arithmetic are unchanged, one after
// another as before; the C holds one loop instead of n calls, so its size
// and the C compiler's time stop growing with n, and the derivative passes
// see a scan (whose reverse rule sums a shared input's cotangents pairwise,
// not call by call).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/Expr/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace scaly::expr {
#define GEN_PASS_DEF_ROLLCALLCHAINS
#include "scaly/Dialect/Expr/Passes.h.inc"
} // namespace scaly::expr

using namespace mlir;
using namespace scaly::expr;

namespace {

/// Shorter chains stay calls: their C stays as it was. The tracer rolls by
/// the same rule (ExprDialect.h).
constexpr size_t kMinChain = kMinRolledChain;

/// The slice an operand is, directly or through a reshape (integer indexing
/// traces to a slice of size 1 and a reshape dropping the axis).
SliceOp sliceOf(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto reshape = dyn_cast_or_null<ReshapeOp>(def))
    def = reshape.getOperand().getDefiningOp();
  return dyn_cast_or_null<SliceOp>(def);
}

/// How one operand changes from call to call along a chain.
struct Operand {
  bool sliced = false; // else the same value in every call
  unsigned axis = 0;   // the axis the slices move along (size 1 in each)
  int64_t delta = 0;   // how far the first two calls' slices are apart
};

/// Whether `later` is `first` moved along `axis` (by any amount): the same
/// source, steps and shape, the same starts but on `axis`.
bool movedAlong(SliceOp first, SliceOp later, unsigned axis) {
  if (later.getOperand() != first.getOperand() || later.getType() != first.getType() ||
      later.getSteps() != first.getSteps())
    return false;
  ArrayRef<int64_t> a = first.getStarts(), b = later.getStarts();
  for (unsigned d = 0; d < a.size(); ++d)
    if (d != axis && b[d] != a[d])
      return false;
  return true;
}

/// How each operand after the state changes from `c0` to `c1`, or nothing
/// when one changes in a way a scan cannot say.
std::optional<SmallVector<Operand>> classify(ArrayRef<CallOp> run) {
  CallOp c0 = run[0], c1 = run[1];
  SmallVector<Operand> out(c0.getNumOperands());
  for (unsigned i = 1; i < c0.getNumOperands(); ++i) {
    Value a = c0.getOperand(i), b = c1.getOperand(i);
    if (a == b)
      continue;
    SliceOp sa = sliceOf(a), sb = sliceOf(b);
    if (!sa || !sb || sa.getOperand() != sb.getOperand())
      return std::nullopt;
    ArrayRef<int64_t> starts0 = sa.getStarts(), starts1 = sb.getStarts();
    auto shape = cast<RankedTensorType>(sa.getType()).getShape();
    std::optional<unsigned> axis;
    for (unsigned d = 0; d < starts0.size(); ++d)
      if (starts0[d] != starts1[d]) {
        if (axis || shape[d] != 1)
          return std::nullopt;
        axis = d;
      }
    // Two calls reading the same row (`u[k // 2]`): the axis is the one the
    // first later call that reads elsewhere moves along; without one (or
    // when it moves along two), the first of size 1, and `follows` ends the
    // run where the reads leave it.
    for (CallOp later : run.drop_front(2)) {
      if (axis)
        break;
      SliceOp sk = sliceOf(later.getOperand(i));
      if (!sk || sk.getOperand() != sa.getOperand() || sk.getType() != sa.getType() ||
          sk.getStarts() == sa.getStarts())
        continue;
      ArrayRef<int64_t> startsK = sk.getStarts();
      for (unsigned d = 0; d < startsK.size(); ++d)
        if (startsK[d] != starts0[d] && shape[d] == 1) {
          axis = d;
          break;
        }
      break;
    }
    for (unsigned d = 0; !axis && d < shape.size(); ++d)
      if (shape[d] == 1)
        axis = d;
    if (!axis || !movedAlong(sa, sb, *axis))
      return std::nullopt;
    out[i] = {true, *axis, starts1[*axis] - starts0[*axis]};
  }
  return out;
}

/// Whether call `ck` of a run starting at `c0` follows the run's pattern.
bool follows(CallOp c0, CallOp ck, ArrayRef<Operand> operands) {
  for (unsigned i = 1; i < c0.getNumOperands(); ++i) {
    const Operand &o = operands[i];
    if (!o.sliced) {
      if (ck.getOperand(i) != c0.getOperand(i))
        return false;
      continue;
    }
    SliceOp s0 = sliceOf(c0.getOperand(i)), sk = sliceOf(ck.getOperand(i));
    if (!sk || !movedAlong(s0, sk, o.axis))
      return false;
  }
  return true;
}

/// The call taking `call`'s state (first result) as its own first operand,
/// when that is its only use and the call is of the same kind. The state
/// must be floating-point: the derivative rules of expr.scan need that, and
/// a chain with an integer state stays differentiable as calls.
CallOp successor(CallOp call) {
  if (call.getNumResults() == 0 || call.getNumOperands() == 0)
    return {};
  Value state = call.getResult(0);
  if (!state.hasOneUse() ||
      !isa<FloatType>(cast<RankedTensorType>(state.getType()).getElementType()))
    return {};
  OpOperand &use = *state.use_begin();
  auto next = dyn_cast<CallOp>(use.getOwner());
  if (!next || use.getOperandNumber() != 0 || next->getBlock() != call->getBlock() ||
      next.getCalleeAttr() != call.getCalleeAttr() || next.getBlockAttr() != call.getBlockAttr() ||
      next.getArgAttrsAttr() != call.getArgAttrsAttr() ||
      next.getResAttrsAttr() != call.getResAttrsAttr() ||
      next->getDiscardableAttrDictionary() != call->getDiscardableAttrDictionary())
    return {};
  return next;
}

/// Whether every use of the calls' other results comes after the last call:
/// the scan that replaces them stands just before it.
bool otherResultsUsedAfter(ArrayRef<CallOp> calls) {
  CallOp last = calls.back();
  Block *block = last->getBlock();
  for (CallOp call : calls.drop_back())
    for (Value r : call.getResults().drop_front())
      for (Operation *user : r.getUsers()) {
        Operation *at = block->findAncestorOpInBlock(*user);
        if (!at || !last->isBeforeInBlock(at))
          return false;
      }
  return true;
}

/// The slices `first` moved by 0, delta, ..., (n-1)*delta along `axis` as
/// one array whose leading axis is the call and whose rest has `type`.
Value stackedSlices(OpBuilder &b, Location loc, SliceOp first, const Operand &o, int64_t n,
                    RankedTensorType type) {
  auto sliceType = cast<RankedTensorType>(first.getType());
  Type elem = sliceType.getElementType();
  SmallVector<int64_t> steps(first.getSteps()), shape(sliceType.getShape());
  steps[o.axis] = o.delta;
  shape[o.axis] = n;
  Value v = b.create<SliceOp>(loc, RankedTensorType::get(shape, elem), first.getOperand(),
                              first.getStartsAttr(), b.getDenseI64ArrayAttr(steps));
  if (o.axis != 0) {
    SmallVector<int64_t> perm{int64_t(o.axis)}, permuted{n};
    for (unsigned d = 0; d < shape.size(); ++d)
      if (d != o.axis) {
        perm.push_back(d);
        permuted.push_back(shape[d]);
      }
    v = b.create<TransposeOp>(loc, RankedTensorType::get(permuted, elem), v,
                              b.getDenseI64ArrayAttr(perm));
  }
  // Slice k of the leading axis holds call k's elements in row-major order,
  // which the callee's argument shape only regroups.
  auto want = withLeadingAxis(type, n);
  if (v.getType() != want)
    v = b.create<ReshapeOp>(loc, want, v);
  return v;
}

/// Where operand `i`'s slice of each call starts along `o.axis`.
SmallVector<int64_t> positionsOf(ArrayRef<CallOp> calls, unsigned i, const Operand &o) {
  SmallVector<int64_t> out;
  for (CallOp call : calls)
    out.push_back(sliceOf(call.getOperand(i)).getStarts()[o.axis]);
  return out;
}

/// The slices of `first` (moved to `positions` along `o.axis`, one per
/// call) as one array whose leading axis is the call and whose rest has
/// `type`: one gather whose table lists each call's elements in row-major
/// order.
Value gatheredSlices(OpBuilder &b, Location loc, SliceOp first, const Operand &o,
                     ArrayRef<int64_t> positions, RankedTensorType type) {
  auto source = cast<RankedTensorType>(first.getOperand().getType());
  SmallVector<int64_t> sourceStrides = computeStrides(source.getShape());
  SmallVector<int64_t> sliceStrides =
      computeStrides(cast<RankedTensorType>(first.getType()).getShape());
  ArrayRef<int64_t> starts = first.getStarts(), steps = first.getSteps();
  int64_t perCall = type.getNumElements();
  SmallVector<int64_t> table;
  table.reserve(positions.size() * perCall);
  for (int64_t at : positions)
    for (int64_t e = 0; e < perCall; ++e) {
      // Element e of the slice (row-major) and where it lies in the source.
      int64_t flat = 0;
      for (auto [d, index] : llvm::enumerate(delinearize(e, sliceStrides)))
        flat += ((d == o.axis ? at : starts[d]) + index * steps[d]) * sourceStrides[d];
      table.push_back(flat);
    }
  return b.create<GatherOp>(loc, withLeadingAxis(type, positions.size()), first.getOperand(),
                            b.getDenseI64ArrayAttr(table));
}

/// Whether `positions` are evenly spaced and move (a strided slice cannot
/// stand still).
bool evenlySpaced(ArrayRef<int64_t> positions) {
  if (positions[1] == positions[0])
    return false;
  for (size_t k = 2; k < positions.size(); ++k)
    if (positions[k] - positions[k - 1] != positions[1] - positions[0])
      return false;
  return true;
}

/// Replace the run `calls` by one expr.scan of their callee.
void roll(ArrayRef<CallOp> calls, ArrayRef<Operand> operands) {
  CallOp first = calls.front(), last = calls.back();
  int64_t n = calls.size();
  Location loc = FusedLoc::get(first.getContext(), {first.getLoc(), last.getLoc()});
  OpBuilder b(last);
  SmallVector<Value> args{first.getOperand(0)};
  SmallVector<bool> mapped{false};
  for (unsigned i = 1; i < first.getNumOperands(); ++i) {
    const Operand &o = operands[i];
    Value arg = first.getOperand(i);
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> at = o.sliced ? positionsOf(calls, i, o) : SmallVector<int64_t>{};
    bool constant = o.sliced && llvm::all_equal(at);
    if (!o.sliced || constant) { // the same element(s) in every call: passed whole
      args.push_back(arg);
    } else if (evenlySpaced(at)) {
      args.push_back(stackedSlices(b, loc, sliceOf(arg), o, n, type));
    } else {
      args.push_back(gatheredSlices(b, loc, sliceOf(arg), o, at, type));
    }
    mapped.push_back(o.sliced && !constant);
  }
  SmallVector<Type> types{first.getResult(0).getType()};
  for (Value r : first.getResults().drop_front())
    types.push_back(withLeadingAxis(r.getType(), n));
  auto scan = b.create<ScanOp>(loc, types, first.getCalleeAttr(), b.getI64IntegerAttr(n), args,
                               first.getBlockAttr(), b.getDenseBoolArrayAttr(mapped));
  last.getResult(0).replaceAllUsesWith(scan.getResult(0));
  b.setInsertionPointAfter(scan);
  for (size_t k = 0; k < calls.size(); ++k)
    for (auto [j, r] : llvm::enumerate(CallOp(calls[k]).getResults().drop_front())) {
      if (r.use_empty())
        continue;
      // Call k's output j is slice k of the scan's stacked output j.
      auto stacked = cast<RankedTensorType>(scan.getResult(j + 1).getType());
      SmallVector<int64_t> starts(stacked.getRank(), 0), steps(stacked.getRank(), 1);
      SmallVector<int64_t> shape(stacked.getShape());
      starts[0] = k;
      shape[0] = 1;
      Value v = b.create<SliceOp>(loc, RankedTensorType::get(shape, stacked.getElementType()),
                                  scan.getResult(j + 1), b.getDenseI64ArrayAttr(starts),
                                  b.getDenseI64ArrayAttr(steps));
      r.replaceAllUsesWith(b.create<ReshapeOp>(loc, r.getType(), v).getResult());
    }
  // Erase the calls last to first (each one's state feeds the next), then
  // the reshapes and slices that fed only them.
  llvm::SetVector<Operation *> reshapes, slices;
  for (CallOp call : llvm::reverse(calls)) {
    for (Value v : call.getOperands().drop_front()) {
      if (auto reshape = v.getDefiningOp<ReshapeOp>()) {
        reshapes.insert(reshape);
        v = reshape.getOperand();
      }
      if (auto slice = v.getDefiningOp<SliceOp>())
        slices.insert(slice);
    }
    call.erase();
  }
  for (auto *set : {&reshapes, &slices})
    for (Operation *op : *set)
      if (op->use_empty())
        op->erase();
}

/// Roll the runs of `chain` (calls in order, each feeding the next) that
/// follow one pattern for at least kMinChain calls.
void rollChain(ArrayRef<CallOp> chain) {
  size_t start = 0;
  while (start + kMinChain <= chain.size()) {
    auto operands = classify(chain.drop_front(start));
    if (!operands) {
      ++start;
      continue;
    }
    size_t end = start + 2;
    while (end < chain.size() && follows(chain[start], chain[end], *operands))
      ++end;
    // A run whose other results are used before its end stays as it is.
    if (end - start >= kMinChain && otherResultsUsedAfter(chain.slice(start, end - start))) {
      roll(chain.slice(start, end - start), *operands);
      start = end;
    } else {
      start = std::max(start + 1, end - 1); // the next run may begin at the mismatch
    }
  }
}

struct RollCallChainsPass : scaly::expr::impl::RollCallChainsBase<RollCallChainsPass> {
  void runOnOperation() override {
    SmallVector<CallOp> calls;
    getOperation().walk([&](CallOp call) { calls.push_back(call); });
    DenseMap<Operation *, CallOp> next;
    DenseSet<Operation *> followers;
    for (CallOp call : calls)
      if (CallOp succ = successor(call)) {
        next[call] = succ;
        followers.insert(succ);
      }
    // Collect every chain before rolling any: rolling erases calls.
    std::vector<SmallVector<CallOp>> chains;
    for (CallOp call : calls) {
      if (followers.contains(call) || !next.count(call))
        continue;
      SmallVector<CallOp> chain{call};
      for (auto it = next.find(call); it != next.end(); it = next.find(it->second))
        chain.push_back(it->second);
      if (chain.size() >= kMinChain)
        chains.push_back(std::move(chain));
    }
    for (auto &chain : chains)
      rollChain(chain);
  }
};

} // namespace
