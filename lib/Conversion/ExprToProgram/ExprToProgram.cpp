//===- ExprToProgram.cpp - lower expressions to C-shaped programs --------===//
//
// Every expr.func that survives as a procedure (the entry, and callees of
// expr.call ops that kept the block hint) becomes a prog.proc over pointers.
// Small arrays are scalarized: each element becomes one SSA scalar (arith /
// math ops). Values that must be in memory - operands of kept calls and of
// loops - are read where they already live (inputs, slices) or spilled to a
// workspace window. Results of loops and kept calls are written straight into
// the output or yielded slice they end up in (destination passing), so the
// seed's rollout writes `res[0] + 2*it` with no copy.
//
//===----------------------------------------------------------------------===//

#include "scaly/Conversion/Passes.h"

#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

namespace scaly {
#define GEN_PASS_DEF_LOWERTOPROGRAM
#include "scaly/Conversion/Passes.h.inc"
} // namespace scaly

using namespace mlir;
using namespace scaly;
namespace ex = scaly::expr;
namespace pg = scaly::prog;

namespace {

/// Where the elements of a lowered array live: either one scalar per element
/// or `size` consecutive elements behind `ptr`.
struct Stored {
  SmallVector<Value> elems;
  Value ptr;
  /// A large elementwise or view result not computed yet: its elements are
  /// computed where they are used (fused into the consumer's loop) or when
  /// it is materialized.
  bool lazy = false;
  bool inMemory() const { return static_cast<bool>(ptr); }
};

/// A loop index: a constant or an i64 SSA value.
struct Ix {
  Value v;
  int64_t c = 0;
  bool isConst() const { return !v; }
};

RankedTensorType tensorOf(Type t) { return cast<RankedTensorType>(t); }
Type elementOf(Type t) { return tensorOf(t).getElementType(); }

/// Lowers one expr.func body into a prog.proc body.
class ProcLowering {
public:
  ProcLowering(OpBuilder &builder, int64_t scalarizeLimit)
      : b(builder), limit(scalarizeLimit) {}

  LogicalResult lower(ex::FuncOp func, pg::ProcOp proc) {
    Block &entry = proc.getBody().front();
    workspace = proc.getWorkspaceArg();
    unsigned nIn = func.getNumArguments();
    for (auto [i, arg] : llvm::enumerate(func.getArguments()))
      values[arg] = Stored{{}, entry.getArgument(i)};
    b.setInsertionPointToStart(&entry);
    scopes.push_back({&func.getBody().front(), nullptr});
    auto ret = cast<ex::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [k, v] : llvm::enumerate(ret.getOperands()))
      hintDestination(v, entry.getArgument(nIn + k), &func.getBody().front());
    if (failed(lowerOps(func.getBody().front())))
      return failure();
    for (auto [k, v] : llvm::enumerate(ret.getOperands()))
      writeTo(v, entry.getArgument(nIn + k), ret.getLoc());
    b.create<pg::ReturnOp>(ret.getLoc());
    return success();
  }

private:
  OpBuilder &b;
  /// Arrays with more elements than this lower to loops.
  int64_t limit;
  Value workspace;
  DenseMap<Value, Stored> values;
  /// Memory a value should be produced in, when it ends in an output or slice.
  DenseMap<Value, Value> destination;
  /// Loads already made, per block: (block, ptr, offset) -> value.
  DenseMap<std::tuple<Block *, Value, int64_t>, Value> loads;
  /// The expression blocks being lowered, outermost first, each with the
  /// prog.for that opened it (null for the function body).
  struct Scope {
    Block *exprBlock;
    Operation *openedBy;
  };
  SmallVector<Scope> scopes;

  /// Produce `v` directly in `ptr` if it is computed in `block` (a value
  /// from an enclosing block is copied instead: the pointer would not
  /// dominate it). Reshapes are free, so the hint follows them.
  void hintDestination(Value v, Value ptr, Block *block) {
    if (v.getParentBlock() != block || destination.count(v))
      return;
    destination[v] = ptr;
    if (auto reshape = v.getDefiningOp<ex::ReshapeOp>())
      if (reshape.getOperand().hasOneUse())
        hintDestination(reshape.getOperand(), ptr, block);
    // The parts of a leading-axis concatenation (sc.stack) are produced in
    // their place in the destination: results of kept calls need no copy.
    if (auto concat = v.getDefiningOp<ex::ConcatOp>(); concat && concat.getAxis().value_or(0) == 0) {
      int64_t offset = 0;
      for (Value part : concat.getOperands()) {
        int64_t n = ex::numElements(part.getType());
        if (n > 0 && part.hasOneUse() && !destination.count(part)) {
          Value at = offset == 0 ? ptr
                                 : b.create<pg::OffsetOp>(part.getLoc(), ptr.getType(), ptr,
                                                          Value(), b.getI64IntegerAttr(1),
                                                          b.getI64IntegerAttr(offset));
          hintDestination(part, at, block);
        }
        offset += n;
      }
    }
  }

  /// Element `k` of a lowered value, loading it when it lives in memory.
  Value element(const Stored &s, int64_t k, Location loc) {
    if (!s.inMemory())
      return s.elems[k];
    // A view (a pointer advanced by a constant) reads its base: x[2 + k]
    // prints as x[2 + k] folded, never as (x + 2)[k].
    Value ptr = s.ptr;
    if (auto off = ptr.getDefiningOp<pg::OffsetOp>(); off && !off.getIndex()) {
      k += off.getBias();
      ptr = off.getBase();
    }
    auto key = std::make_tuple(b.getInsertionBlock(), ptr, k);
    auto it = loads.find(key);
    if (it != loads.end())
      return it->second;
    Type elem = cast<pg::PtrType>(ptr.getType()).getElementType();
    Value v = b.create<pg::LoadOp>(loc, elem, ptr, b.getI64IntegerAttr(k));
    loads[key] = v;
    return v;
  }

  /// The element offset at which a slice of a row-major buffer starts, when
  /// the slice is itself one contiguous row-major run (x[1:], X[k], M[2:4]).
  static std::optional<int64_t> contiguousStart(ex::SliceOp o) {
    SmallVector<int64_t> in = shapeOf(o.getOperand()), out = shapeOf(o);
    ArrayRef<int64_t> starts = o.getStarts(), steps = o.getSteps();
    if (ex::numElements(o.getType()) == 0)
      return 0;
    int64_t d = static_cast<int64_t>(in.size()) - 1;
    // Inner axes taken whole.
    while (d >= 0 && starts[d] == 0 && steps[d] == 1 && out[d] == in[d])
      --d;
    // One axis taken as a run, every outer axis at a single index.
    if (d >= 0 && out[d] != 1 && steps[d] != 1)
      return std::nullopt;
    for (int64_t j = 0; j < d; ++j)
      if (out[j] != 1)
        return std::nullopt;
    int64_t lin = 0;
    for (size_t j = 0; j < in.size(); ++j)
      lin = lin * in[j] + starts[j];
    return lin;
  }

  SmallVector<Value> elements(Value v, Location loc) {
    SmallVector<Value> out;
    int64_t n = ex::numElements(v.getType());
    for (int64_t k = 0; k < n; ++k)
      out.push_back(elementStatic(v, k, loc));
    return out;
  }

  /// Element `k` (row-major) of any lowered value.
  Value elementStatic(Value v, int64_t k, Location loc) {
    const Stored &s = values[v];
    if (!s.lazy)
      return element(s, k, loc);
    return elementAt(v, constIndex(shapeOf(v), k), loc);
  }

  /// Write the elements of `v` to `ptr` unless they were produced there.
  void writeTo(Value v, Value ptr, Location loc) {
    const Stored &s = values[v];
    if (s.inMemory() && s.ptr == ptr)
      return;
    if (s.lazy || (s.inMemory() && isLarge(v))) {
      materialize(v, ptr, loc);
      return;
    }
    SmallVector<Value> elems = elements(v, loc);
    if (!elems.empty())
      b.create<pg::StoreOp>(loc, elems, ptr, b.getI64IntegerAttr(0));
  }

  //===--------------------------------------------------------------------===//
  // Structured lowering: indices, fused element computation, loop nests
  //===--------------------------------------------------------------------===//

  static SmallVector<int64_t> shapeOf(Value v) {
    return SmallVector<int64_t>(tensorOf(v.getType()).getShape());
  }
  bool isLarge(Value v) { return ex::numElements(v.getType()) > limit; }

  static SmallVector<Ix> constIndex(ArrayRef<int64_t> shape, int64_t k) {
    SmallVector<Ix> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d].c = shape[d] ? k % shape[d] : 0;
      k = shape[d] ? k / shape[d] : 0;
    }
    return idx;
  }

  Value ixValue(Ix i, Location loc) {
    if (!i.isConst())
      return i.v;
    return b.create<arith::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(i.c));
  }

  /// a * scale + c, folded when constant. Index arithmetic never overflows
  /// (nsw), so C prints it plainly.
  Ix mulAdd(Ix a, int64_t scale, Ix c, Location loc) {
    if (a.isConst() && c.isConst())
      return Ix{{}, a.c * scale + c.c};
    Ix prod = a;
    if (a.isConst())
      prod = Ix{{}, a.c * scale};
    else if (scale != 1)
      prod = Ix{b.create<arith::MulIOp>(loc, a.v, ixValue(Ix{{}, scale}, loc),
                                        arith::IntegerOverflowFlags::nsw)};
    if (prod.isConst() && prod.c == 0)
      return c;
    if (c.isConst() && c.c == 0)
      return prod;
    return Ix{b.create<arith::AddIOp>(loc, ixValue(prod, loc), ixValue(c, loc),
                                      arith::IntegerOverflowFlags::nsw)};
  }

  Ix linear(ArrayRef<Ix> idx, ArrayRef<int64_t> shape, Location loc) {
    Ix lin{{}, 0};
    for (size_t d = 0; d < idx.size(); ++d)
      lin = mulAdd(lin, shape[d], idx[d], loc);
    return lin;
  }

  /// `ptr` advanced by the computed element offset `index`.
  Value advanced(Value ptr, Value index, Location loc) {
    return b.create<pg::OffsetOp>(loc, ptr.getType(), ptr, index, b.getI64IntegerAttr(1),
                                  b.getI64IntegerAttr(0));
  }

  /// Element at `idx` of a buffer of row-major elements.
  Value loadAt(Value ptr, Ix lin, Location loc) {
    if (lin.isConst())
      return element(Stored{{}, ptr}, lin.c, loc);
    Type elem = cast<pg::PtrType>(ptr.getType()).getElementType();
    return b.create<pg::LoadOp>(loc, elem, advanced(ptr, lin.v, loc), b.getI64IntegerAttr(0));
  }

  void storeAt(Value x, Value ptr, Ix lin, Location loc) {
    if (lin.isConst())
      b.create<pg::StoreOp>(loc, ValueRange{x}, ptr, b.getI64IntegerAttr(lin.c));
    else
      b.create<pg::StoreOp>(loc, ValueRange{x}, advanced(ptr, lin.v, loc), b.getI64IntegerAttr(0));
  }

  /// Element `idx` of `v`, computing a lazy value in place (fusion).
  Value elementAt(Value v, ArrayRef<Ix> idx, Location loc) {
    const Stored &s = values[v];
    SmallVector<int64_t> shape = shapeOf(v);
    if (!s.lazy) {
      Ix lin = linear(idx, shape, loc);
      if (lin.isConst())
        return element(s, lin.c, loc);
      return loadAt(inMemory(v, loc), lin, loc);
    }
    Operation *op = v.getDefiningOp();
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

  /// Materialize `v` into the row-major buffer `dst` with one loop nest
  /// (one loop when nothing on the way needs per-axis indices).
  void materialize(Value v, Value dst, Location loc) {
    SmallVector<int64_t> shape = shapeOf(v);
    if (ex::numElements(v.getType()) == 0)
      return;
    if (auto concat = v.getDefiningOp<ex::ConcatOp>(); concat && values[v].lazy) {
      materializeConcat(concat, dst, loc);
      return;
    }
    OpBuilder::InsertionGuard guard(b);
    bool flat = isFlat(v);
    SmallVector<int64_t> dims = flat ? SmallVector<int64_t>{ex::numElements(v.getType())} : shape;
    SmallVector<Ix> ivs = openLoops(dims, loc);
    Value x = flat ? elementFlat(v, ivs[0], loc) : elementAt(v, ivs, loc);
    storeAt(x, dst, linear(ivs, dims, loc), loc);
  }

  /// Open a loop nest over `dims` (counters i, j, k, ...) and leave the
  /// builder inside the innermost body.
  SmallVector<Ix> openLoops(ArrayRef<int64_t> dims, Location loc) {
    static const char *names[] = {"i", "j", "k", "l", "m", "n", "p", "q"};
    SmallVector<Ix> ivs;
    for (auto [d, n] : llvm::enumerate(dims)) {
      if (n == 1) {
        ivs.push_back(Ix{{}, 0});
        continue;
      }
      auto loop = b.create<pg::ForOp>(loc, 0, n, 1, d < 8 ? names[d] : "i");
      b.setInsertionPoint(loop.getBodyBlock()->getTerminator());
      ivs.push_back(Ix{loop.getInductionVar()});
    }
    return ivs;
  }

  /// Whether every element of `v` can be computed from one linear index:
  /// elementwise ops, reshapes and scalar broadcasts over values in memory.
  bool isFlat(Value v) {
    const Stored &s = values[v];
    if (!s.lazy)
      return s.inMemory() || tensorOf(v.getType()).getRank() == 0;
    Operation *op = v.getDefiningOp();
    if (isa<ex::TransposeOp, ex::SliceOp, ex::ConcatOp>(op))
      return false;
    if (isa<ex::GatherOp>(op)) // reads its source at positions from a table
      return true;
    if (auto o = dyn_cast<ex::BroadcastOp>(op))
      return tensorOf(o.getOperand().getType()).getRank() == 0 && isFlat(o.getOperand());
    return llvm::all_of(op->getOperands(), [&](Value o) { return isFlat(o); });
  }

  Value elementFlat(Value v, Ix lin, Location loc) {
    const Stored &s = values[v];
    if (!s.lazy) {
      if (tensorOf(v.getType()).getRank() == 0)
        return elementStatic(v, 0, loc);
      return loadAt(s.ptr, lin, loc);
    }
    Operation *op = v.getDefiningOp();
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

  /// Element `idx` of a concatenation: picked from its part when the index
  /// is static, else read from the concatenation materialized once.
  Value concatElement(ex::ConcatOp c, ArrayRef<Ix> idx, Location loc) {
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

  /// Parts of a concatenation written one after another into `dst`.
  void materializeConcat(ex::ConcatOp concat, Value dst, Location loc) {
    SmallVector<int64_t> shape = shapeOf(concat);
    int64_t axis = concat.getAxis().value_or(0);
    // Elements of one "row" before the axis, and the result's row length.
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    for (size_t d = axis; d < shape.size(); ++d)
      inner *= shape[d];
    int64_t offset = 0;
    for (Value part : concat.getOperands()) {
      int64_t n = ex::numElements(part.getType());
      int64_t partInner = outer ? n / outer : 0;
      if (n == 0)
        continue;
      if (outer == 1) {
        Value at = b.create<pg::OffsetOp>(loc, dst.getType(), dst, Value(), b.getI64IntegerAttr(1),
                                          b.getI64IntegerAttr(offset));
        writeTo(part, at, loc);
      } else {
        // Row r of the part goes to dst[r * inner + offset ...].
        OpBuilder::InsertionGuard guard(b);
        SmallVector<int64_t> pshape = shapeOf(part);
        SmallVector<Ix> ivs = openLoops(pshape, loc);
        Value x = elementAt(part, ivs, loc);
        Ix row = linear(ArrayRef<Ix>(ivs).take_front(axis), ArrayRef<int64_t>(pshape).take_front(axis), loc);
        Ix col = linear(ArrayRef<Ix>(ivs).drop_front(axis), ArrayRef<int64_t>(pshape).drop_front(axis), loc);
        storeAt(x, dst, mulAdd(row, inner, mulAdd(col, 1, Ix{{}, offset}, loc), loc), loc);
      }
      offset += partInner;
    }
  }

  /// A pointer to the elements of `v`, spilling them to the workspace when
  /// they are scalars. The spill goes where `v` is defined: for a value from
  /// outside the loop being lowered, just before the loop that encloses the
  /// use, so it is written once and dominates every later use.
  Value inMemory(Value v, Location loc) {
    const Stored &s = values[v];
    if (s.inMemory())
      return s.ptr;
    OpBuilder::InsertionGuard guard(b);
    bool placed = false;
    for (size_t k = 0; k + 1 < scopes.size(); ++k)
      if (scopes[k].exprBlock == v.getParentBlock()) {
        b.setInsertionPoint(scopes[k + 1].openedBy);
        placed = true;
        break;
      }
    // Never inside a loop nest opened for a structured op (a small array read
    // at computed offsets): written once before the nest, it also dominates
    // every later use.
    if (!placed) {
      Operation *outermost = nullptr;
      for (Operation *p = b.getInsertionBlock()->getParentOp(); p && isa<pg::ForOp>(p);
           p = p->getParentOp()) {
        if (llvm::any_of(scopes, [&](const Scope &s) { return s.openedBy == p; }))
          break;
        outermost = p;
      }
      if (outermost)
        b.setInsertionPoint(outermost);
    }
    Value window = newWindow(v.getType(), loc);
    writeTo(v, window, loc);
    values[v] = Stored{{}, window};
    return window;
  }

  Value newWindow(Type tensorType, Location loc) {
    auto ptrType = pg::PtrType::get(b.getContext(), elementOf(tensorType), false);
    return b.create<pg::WindowOp>(loc, ptrType, workspace,
                                  b.getI64IntegerAttr(ex::numElements(tensorType)),
                                  b.getI64IntegerAttr(-1));
  }

  /// Memory a result that must live in memory is produced in.
  Value resultMemory(Value result, Location loc) {
    auto it = destination.find(result);
    if (it != destination.end())
      return it->second;
    return newWindow(result.getType(), loc);
  }


  LogicalResult lowerOps(Block &block) {
    for (Operation &op : block.without_terminator())
      if (failed(lowerOp(&op)))
        return failure();
    return success();
  }

  /// Apply a scalar builder elementwise.
  template <typename Fn>
  void elementwise(Operation *op, Fn &&scalar) {
    Location loc = op->getLoc();
    SmallVector<SmallVector<Value>> ins;
    for (Value operand : op->getOperands())
      ins.push_back(elements(operand, loc));
    Stored out;
    int64_t n = ex::numElements(op->getResult(0).getType());
    for (int64_t k = 0; k < n; ++k) {
      SmallVector<Value> args;
      for (auto &in : ins)
        args.push_back(in[k]);
      out.elems.push_back(scalar(args, loc));
    }
    values[op->getResult(0)] = std::move(out);
  }

  static bool isElementwise(Operation *op) {
    return isa<ex::AddOp, ex::SubOp, ex::MulOp, ex::DivOp, ex::NegOp, ex::MathOp, ex::Math2Op,
               ex::CmpOp, ex::SelectOp, ex::CastOp>(op);
  }

  /// Whether a large result is left lazy (computed where it is used): views
  /// always; computations when used once, so nothing is computed twice.
  bool staysLazy(Operation *op) {
    if (isa<ex::BroadcastOp, ex::TransposeOp, ex::SliceOp>(op))
      return true;
    if (auto r = dyn_cast<ex::ReshapeOp>(op))
      return values[r.getOperand()].lazy;
    if (isa<ex::ConcatOp, ex::GatherOp>(op))
      return op->getResult(0).hasOneUse();
    return isElementwise(op) && op->getResult(0).hasOneUse();
  }

  LogicalResult lowerOp(Operation *op) {
    Location loc = op->getLoc();
    if (failed(checkScalarOp(op)))
      return failure();
    if (isa<ex::ReduceOp>(op))
      return lowerReduce(cast<ex::ReduceOp>(op));
    if (isa<ex::MatmulOp>(op))
      return lowerMatmul(cast<ex::MatmulOp>(op));
    // A leading-axis concatenation whose parts were all produced in their
    // place in its destination is that destination: nothing to copy.
    if (auto concat = dyn_cast<ex::ConcatOp>(op); concat && concat.getAxis().value_or(0) == 0)
      if (Value dst = destination.lookup(concat.getResult())) {
        bool inPlace = llvm::all_of(concat.getOperands(), [&](Value part) {
          return ex::numElements(part.getType()) == 0 ||
                 (values[part].inMemory() && values[part].ptr == destination.lookup(part));
        });
        if (inPlace) {
          values[concat.getResult()] = Stored{{}, dst};
          return success();
        }
      }
    // A contiguous slice of memory is a view: a pointer, nothing copied.
    if (auto slice = dyn_cast<ex::SliceOp>(op); slice && values[slice.getOperand()].inMemory())
      if (std::optional<int64_t> start = contiguousStart(slice)) {
        Value base = values[slice.getOperand()].ptr;
        Value view = *start == 0 ? base
                                 : b.create<pg::OffsetOp>(loc, base.getType(), base, Value(),
                                                          b.getI64IntegerAttr(1),
                                                          b.getI64IntegerAttr(*start));
        values[slice.getResult()] = Stored{{}, view};
        return success();
      }
    bool structural = isa<ex::BroadcastOp, ex::TransposeOp, ex::SliceOp>(op) ||
                      (isa<ex::ConcatOp>(op) && cast<ex::ConcatOp>(op).getAxis());
    bool large = op->getNumResults() == 1 && isLarge(op->getResult(0));
    if (large && (isElementwise(op) || structural ||
                  isa<ex::ConcatOp, ex::ReshapeOp, ex::GatherOp>(op))) {
      Value r = op->getResult(0);
      if (auto reshape = dyn_cast<ex::ReshapeOp>(op); reshape && !values[reshape.getOperand()].lazy) {
        Stored same = values[reshape.getOperand()]; // copy: the insert below may rehash
        values[r] = std::move(same);
        return success();
      }
      values[r] = Stored{{}, {}, true};
      if (!staysLazy(op)) {
        Value mem = resultMemory(r, loc);
        materialize(r, mem, loc);
        values[r] = Stored{{}, mem};
      }
      return success();
    }
    if (structural) {
      // Small: each element picked statically.
      Value r = op->getResult(0);
      values[r] = Stored{{}, {}, true};
      Stored out{elements(r, loc), {}};
      values[r] = std::move(out);
      return success();
    }
    if (isElementwise(op)) {
      elementwise(op, [&](ArrayRef<Value> a, Location l) { return lowering::scalarOf(b, op, a, l); });
      return success();
    }
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](ex::ConstantOp c) {
          // A large splat (a broadcast scalar folded by canonicalization)
          // stays one scalar, read wherever an element is needed.
          if (isLarge(c) && cast<DenseElementsAttr>(c.getValue()).isSplat()) {
            values[c] = Stored{{}, {}, true};
            return success();
          }
          // Any other large constant is read from a table (a static const
          // array in C), never written element by element.
          if (isLarge(c)) {
            auto ptr = pg::PtrType::get(b.getContext(), elementOf(c.getType()), true);
            values[c] = Stored{{}, b.create<pg::TableOp>(loc, ptr, c.getValue())};
            return success();
          }
          Stored s;
          auto attr = cast<DenseElementsAttr>(c.getValue());
          Type elem = elementOf(c.getType());
          for (Attribute a : attr.getValues<Attribute>())
            s.elems.push_back(lowering::constant(b, elem, a, loc));
          values[c] = s;
          return success();
        })
        .Case([&](ex::ReshapeOp o) {
          Stored same = values[o.getOperand()]; // copy: the insert below may rehash
          values[o] = std::move(same);
          return success();
        })
        .Case([&](ex::GatherOp o) {
          Stored out;
          for (int64_t i : o.getIndices())
            out.elems.push_back(elementStatic(o.getOperand(), i, loc));
          values[o] = out;
          return success();
        })
        .Case([&](ex::ConcatOp o) {
          Stored out;
          for (Value operand : o.getOperands())
            llvm::append_range(out.elems, elements(operand, loc));
          values[o] = out;
          return success();
        })
        .Case([&](ex::SumOp o) {
          SmallVector<Value> in = elements(o.getOperand(), loc);
          values[o] = Stored{{lowering::combine(b, ex::ReduceKind::sum, in, elementOf(o.getType()), loc)}, {}};
          return success();
        })
        .Case([&](ex::CallOp o) { return lowerCall(o); })
        .Case([&](ex::LoopOp o) { return lowerLoop(o); })
        .Case([&](ex::MapOp o) {
          return o.emitOpError("must be turned into a loop first (run scaly-map-to-loop)"),
                 failure();
        })
        .Default([&](Operation *other) {
          return other->emitOpError("cannot be lowered to the program dialect"), failure();
        });
  }

  /// Element `lin` of a large gather: its source position is read from the
  /// gather's index table, then the source (in memory) at that position.
  Value gatherElement(ex::GatherOp g, Ix lin, Location loc) {
    Value src = inMemory(g.getOperand(), loc);
    if (lin.isConst())
      return loadAt(src, Ix{{}, g.getIndices()[lin.c]}, loc);
    auto ptr = pg::PtrType::get(b.getContext(), b.getI64Type(), true);
    Value table = b.create<pg::TableOp>(loc, ptr, b.getI64TensorAttr(g.getIndices()));
    Value at = b.create<pg::LoadOp>(loc, b.getI64Type(), advanced(table, lin.v, loc),
                                    b.getI64IntegerAttr(0));
    return loadAt(src, Ix{at}, loc);
  }

  Value splatScalar(ex::ConstantOp c, Location loc) {
    auto attr = cast<DenseElementsAttr>(c.getValue());
    return lowering::constant(b, elementOf(c.getType()), attr.getSplatValue<Attribute>(), loc);
  }

  /// Refusals that hold whatever the size.
  LogicalResult checkScalarOp(Operation *op) {
    if (isa<ex::NegOp>(op) && !isa<FloatType>(elementOf(op->getResult(0).getType())))
      return op->emitOpError("negation of integers is not lowered yet"), failure();
    if (isa<ex::SubOp, ex::DivOp>(op) && elementOf(op->getResult(0).getType()).isInteger(1))
      return op->emitOpError("arithmetic on bool arrays is not defined"), failure();
    return success();
  }

  //===--------------------------------------------------------------------===//
  // Reductions and matrix products
  //===--------------------------------------------------------------------===//

  static StringRef reduceName(ex::ReduceKind kind) { return ex::stringifyReduceKind(kind); }

  LogicalResult lowerReduce(ex::ReduceOp o) {
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
    // Large: the reduced axes must be trailing or a single axis (a strided
    // run); otherwise a transposed copy puts them last.
    bool trailing = true;
    for (size_t i = 0; i < axes.size(); ++i)
      trailing &= axes[i] == static_cast<int64_t>(shape.size() - axes.size() + i);
    int64_t count = 1, stride = 1;
    for (int64_t a : axes)
      count *= shape[a];
    Value ptr;
    SmallVector<int64_t> keptStrides; // stride of each kept axis in `ptr`
    if (trailing || axes.size() == 1) {
      ptr = inMemory(in, loc);
      SmallVector<int64_t> strides(shape.size(), 1);
      for (size_t d = shape.size(); d-- > 1;)
        strides[d - 1] = strides[d] * shape[d];
      if (!trailing)
        stride = strides[axes[0]];
      for (size_t d = 0; d < shape.size(); ++d)
        if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
          keptStrides.push_back(strides[d]);
    } else {
      SmallVector<int64_t> perm;
      for (size_t d = 0; d < shape.size(); ++d)
        if (!llvm::is_contained(axes, static_cast<int64_t>(d)))
          perm.push_back(d);
      llvm::append_range(perm, axes);
      // Copy operand with the reduced axes moved last.
      SmallVector<int64_t> moved;
      for (int64_t p : perm)
        moved.push_back(shape[p]);
      Value window = newWindow(RankedTensorType::get(moved, elem), loc);
      {
        OpBuilder::InsertionGuard guard(b);
        SmallVector<Ix> ivs = openLoops(moved, loc);
        SmallVector<Ix> at(shape.size());
        for (auto [i, p] : llvm::enumerate(perm))
          at[p] = ivs[i];
        storeAt(elementAt(in, at, loc), window, linear(ivs, moved, loc), loc);
      }
      ptr = window;
      int64_t s = count;
      SmallVector<int64_t> kept(moved.begin(), moved.end() - axes.size());
      keptStrides.assign(kept.size(), 0);
      for (size_t d = kept.size(); d-- > 0;) {
        keptStrides[d] = s;
        s *= kept[d];
      }
    }
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
    if (!isLarge(o)) {
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

  LogicalResult lowerMatmul(ex::MatmulOp o) {
    Location loc = o.getLoc();
    SmallVector<int64_t> sa = shapeOf(o.getLhs()), sb = shapeOf(o.getRhs()), so = shapeOf(o);
    size_t r = sa.size();
    int64_t m = sa[r - 2], k = sa[r - 1], n = sb[r - 1];
    int64_t batch = 1;
    for (size_t d = 0; d + 2 < r; ++d)
      batch *= sa[d];
    Type elem = elementOf(o.getType());
    if (!isLarge(o.getLhs()) && !isLarge(o.getRhs()) && !isLarge(o)) {
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
      auto loop = b.create<pg::ForOp>(loc, 0, batch, 1, "b");
      b.setInsertionPoint(loop.getBodyBlock()->getTerminator());
      bi = Ix{loop.getInductionVar()};
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

  /// A call that kept the block hint becomes a prog.call of the callee's
  /// procedure; its operands are passed by pointer.
  LogicalResult lowerCall(ex::CallOp call) {
    if (!call.getBlock())
      return call.emitOpError("without the block hint must be expanded first "
                              "(run scaly-expand-calls)"),
             failure();
    Location loc = call.getLoc();
    SmallVector<Value> args;
    for (Value operand : call.getOperands())
      args.push_back(asReadonly(inMemory(operand, loc), loc));
    for (Value result : call.getResults()) {
      Value mem = resultMemory(result, loc);
      values[result] = Stored{{}, mem};
      args.push_back(mem);
    }
    // The workspace argument is assigned by scaly-plan-workspace.
    args.push_back(workspace);
    b.create<pg::CallOp>(loc, FlatSymbolRefAttr::get(b.getContext(), procName(call.getCallee())),
                         args, ArrayAttr(), ArrayAttr());
    return success();
  }

  /// Inputs of a procedure are read-only pointers; a window or output pointer
  /// passed as an input is viewed as const.
  Value asReadonly(Value ptr, Location loc) {
    auto t = cast<pg::PtrType>(ptr.getType());
    if (t.getReadonly())
      return ptr;
    auto ro = pg::PtrType::get(b.getContext(), t.getElementType(), true);
    return b.create<pg::OffsetOp>(loc, ro, ptr, Value(), b.getI64IntegerAttr(1),
                                  b.getI64IntegerAttr(0));
  }

  LogicalResult lowerLoop(ex::LoopOp loop) {
    Location loc = loop.getLoc();
    unsigned carried = loop.getNumCarried();
    SmallVector<Value> inPtrs, outPtrs, nextPtrs;
    for (Value operand : llvm::drop_begin(loop.getOperands(), carried))
      inPtrs.push_back(inMemory(operand, loc));
    for (Value result : loop.getResults()) {
      outPtrs.push_back(resultMemory(result, loc));
      values[result] = Stored{{}, outPtrs.back()};
    }
    // A carried value lives in its result's memory from the start: the
    // initial value is copied there, every iteration reads it and replaces
    // it at the end of the body. A large next value is built in a window
    // first (it may read the current one while it is computed).
    for (unsigned i = 0; i < carried; ++i) {
      writeTo(loop.getOperand(i), outPtrs[i], loc);
      nextPtrs.push_back(isLarge(loop.getResult(i)) ? newWindow(loop.getResult(i).getType(), loc)
                                                    : Value());
    }
    StringRef name = loop.getName().value_or("");
    auto forOp = b.create<pg::ForOp>(loc, 0, loop.getCount(), 1, name);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBodyBlock()->getTerminator());
    Value iv = forOp.getInductionVar();
    Block &body = loop.getBody().front();
    auto slice = [&](Value base, Type sliceType) -> Value {
      // A slice without elements is never read or written: no arithmetic on
      // what may be a null pointer.
      if (ex::numElements(sliceType) == 0)
        return base;
      return b.create<pg::OffsetOp>(loc, base.getType(), base, iv,
                                    b.getI64IntegerAttr(ex::numElements(sliceType)),
                                    b.getI64IntegerAttr(0));
    };
    scopes.push_back({&body, forOp});
    auto popScope = llvm::make_scope_exit([&] { scopes.pop_back(); });
    for (unsigned i = 0; i < carried; ++i)
      values[body.getArgument(i)] = Stored{{}, asReadonly(outPtrs[i], loc)};
    for (auto [arg, ptr] : llvm::zip(llvm::drop_begin(body.getArguments(), carried), inPtrs))
      values[arg] = Stored{{}, slice(ptr, arg.getType())};
    auto yield = cast<ex::YieldOp>(body.getTerminator());
    SmallVector<Value> dstSlices;
    for (auto [k, v] : llvm::enumerate(yield.getOperands())) {
      if (k < carried) {
        dstSlices.push_back(nextPtrs[k]);
        if (nextPtrs[k])
          hintDestination(v, nextPtrs[k], &body);
        continue;
      }
      dstSlices.push_back(slice(outPtrs[k], v.getType()));
      hintDestination(v, dstSlices.back(), &body);
    }
    if (failed(lowerOps(body)))
      return failure();
    // Stacked outputs first: they may still read the current carried values.
    for (auto [k, v] : llvm::enumerate(yield.getOperands()))
      if (k >= carried)
        writeTo(v, dstSlices[k], yield.getLoc());
    for (unsigned k = 0; k < carried; ++k) {
      Value v = yield.getOperand(k);
      if (nextPtrs[k]) {
        writeTo(v, nextPtrs[k], yield.getLoc());
        Stored next{{}, nextPtrs[k]};
        materializeCopy(next, loop.getResult(k), outPtrs[k], yield.getLoc());
      } else {
        // Small: every element is read before any is stored.
        SmallVector<Value> elems = elements(v, yield.getLoc());
        if (!elems.empty())
          b.create<pg::StoreOp>(yield.getLoc(), elems, outPtrs[k], b.getI64IntegerAttr(0));
      }
    }
    return success();
  }

  /// Copy the row-major buffer of `from` (typed like `like`) into `dst`.
  void materializeCopy(const Stored &from, Value like, Value dst, Location loc) {
    int64_t n = ex::numElements(like.getType());
    if (n == 0)
      return;
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Ix> ivs = openLoops({n}, loc);
    storeAt(loadAt(from.ptr, ivs[0], loc), dst, ivs[0], loc);
  }

public:
  static std::string procName(StringRef callee) { return (callee + "_raw").str(); }
};

/// The element type of the workspace, by the seed's pointer rule for the
/// entry: f64 when every input and output of the entry is f64, f32 when all
/// are f32, none (void*) for any mix. Every procedure uses the entry's.
Type workspaceElement(ex::FuncOp entry) {
  Builder b(entry.getContext());
  bool allF64 = true, allF32 = true;
  for (Type t : llvm::concat<const Type>(entry.getArgumentTypes(), entry.getResultTypes())) {
    allF64 &= elementOf(t).isF64();
    allF32 &= elementOf(t).isF32();
  }
  if (allF64)
    return b.getF64Type();
  return allF32 ? Type(b.getF32Type()) : Type(b.getNoneType());
}

pg::ProcOp createProc(OpBuilder &b, ex::FuncOp func, StringRef name, bool entry,
                      Type workspaceElem) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Type> argTypes;
  SmallVector<Attribute> names;
  SmallVector<int64_t> inSizes, outSizes;
  for (auto [t, n] : llvm::zip(func.getArgumentTypes(), func.getArgNames())) {
    argTypes.push_back(pg::PtrType::get(ctx, elementOf(t), true));
    names.push_back(n);
    inSizes.push_back(ex::numElements(t));
  }
  for (auto [t, n] : llvm::zip(func.getResultTypes(), func.getResNames())) {
    argTypes.push_back(pg::PtrType::get(ctx, elementOf(t), false));
    names.push_back(n);
    outSizes.push_back(ex::numElements(t));
  }
  argTypes.push_back(pg::PtrType::get(ctx, workspaceElem, false));
  names.push_back(b.getStringAttr("w"));
  auto proc = b.create<pg::ProcOp>(func.getLoc(), name, b.getFunctionType(argTypes, {}),
                                   b.getArrayAttr(names), b.getDenseI64ArrayAttr(inSizes),
                                   b.getDenseI64ArrayAttr(outSizes), entry, 0, nullptr,
                                   nullptr);
  Block *block = new Block();
  proc.getBody().push_back(block);
  for (Type t : argTypes)
    block->addArgument(t, func.getLoc());
  return proc;
}

struct LowerToProgramPass : scaly::impl::LowerToProgramBase<LowerToProgramPass> {
  using LowerToProgramBase::LowerToProgramBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    auto funcs = llvm::to_vector(module.getOps<ex::FuncOp>());
    if (funcs.empty()) {
      module.emitError("has no expr.func to lower");
      return signalPassFailure();
    }
    // Entries: the functions marked `entry`, else the one the option names,
    // else the first.
    SmallVector<ex::FuncOp> roots = ex::entryFunctions(module);
    bool marked = llvm::any_of(funcs, [](ex::FuncOp f) { return f.getEntry(); });
    if (!marked && !entry.empty()) {
      ex::FuncOp root = symbols.lookup<ex::FuncOp>(entry);
      if (!root) {
        module.emitError("entry function '") << entry << "' is not an expr.func of the module";
        return signalPassFailure();
      }
      roots = {root};
    }
    // Procedures needed: the entries and, transitively, every callee of a
    // kept call (a `<name>_raw` procedure, also when the callee is an entry
    // itself), callees before callers (post-order), so that the C module
    // defines each procedure before its first use and workspace planning sees
    // every callee's need before its callers. A callee's workspace has the
    // type of the first entry that reaches it.
    SmallVector<std::pair<ex::FuncOp, bool>> order;
    DenseMap<Operation *, Type> calleeWorkspace;
    DenseSet<Operation *> seenRaw;
    std::function<LogicalResult(ex::FuncOp, Type)> visitCallees = [&](ex::FuncOp f,
                                                                      Type wElem) {
      WalkResult walk = f.walk([&](ex::CallOp call) {
        auto callee = symbols.lookup<ex::FuncOp>(call.getCallee());
        if (!callee || !call.getBlock())
          return WalkResult::advance();
        if (seenRaw.insert(callee).second) {
          calleeWorkspace[callee] = wElem;
          if (failed(visitCallees(callee, wElem)))
            return WalkResult::interrupt();
          order.push_back({callee, false});
        } else if (calleeWorkspace[callee] != wElem) {
          call.emitOpError("calls @") << callee.getSymName()
                                      << " from entries whose workspaces have different element "
                                         "types; export them from separate modules";
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      return failure(walk.wasInterrupted());
    };
    for (ex::FuncOp root : roots) {
      if (failed(visitCallees(root, workspaceElement(root))))
        return signalPassFailure();
      order.push_back({root, true});
    }

    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    for (auto [func, isEntry] : order) {
      std::string name = isEntry ? func.getSymName().str()
                                 : ProcLowering::procName(func.getSymName());
      OpBuilder::InsertionGuard guard(b);
      Type wElem = isEntry ? workspaceElement(func) : calleeWorkspace[func];
      pg::ProcOp proc = createProc(b, func, name, isEntry, wElem);
      ProcLowering lowering(b, scalarizeLimit);
      if (failed(lowering.lower(func, proc)))
        return signalPassFailure();
    }
    for (ex::FuncOp func : funcs)
      func.erase();
  }
};

} // namespace
