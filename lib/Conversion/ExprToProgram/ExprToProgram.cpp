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
  bool inMemory() const { return static_cast<bool>(ptr); }
};

RankedTensorType tensorOf(Type t) { return cast<RankedTensorType>(t); }
Type elementOf(Type t) { return tensorOf(t).getElementType(); }

/// Lowers one expr.func body into a prog.proc body.
class ProcLowering {
public:
  explicit ProcLowering(OpBuilder &builder) : b(builder) {}

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
  }

  /// Element `k` of a lowered value, loading it when it lives in memory.
  Value element(const Stored &s, int64_t k, Location loc) {
    if (!s.inMemory())
      return s.elems[k];
    auto key = std::make_tuple(b.getInsertionBlock(), s.ptr, k);
    auto it = loads.find(key);
    if (it != loads.end())
      return it->second;
    Type elem = cast<pg::PtrType>(s.ptr.getType()).getElementType();
    Value v = b.create<pg::LoadOp>(loc, elem, s.ptr, b.getI64IntegerAttr(k));
    loads[key] = v;
    return v;
  }

  SmallVector<Value> elements(Value v, Location loc) {
    const Stored &s = values[v];
    SmallVector<Value> out;
    int64_t n = ex::numElements(v.getType());
    for (int64_t k = 0; k < n; ++k)
      out.push_back(element(s, k, loc));
    return out;
  }

  /// Write the elements of `v` to `ptr` unless they were produced there.
  void writeTo(Value v, Value ptr, Location loc) {
    const Stored &s = values[v];
    if (s.inMemory() && s.ptr == ptr)
      return;
    SmallVector<Value> elems = elements(v, loc);
    if (!elems.empty())
      b.create<pg::StoreOp>(loc, elems, ptr, b.getI64IntegerAttr(0));
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
    for (size_t k = 0; k + 1 < scopes.size(); ++k)
      if (scopes[k].exprBlock == v.getParentBlock()) {
        b.setInsertionPoint(scopes[k + 1].openedBy);
        break;
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

  Value constant(Type elem, Attribute value, Location loc) {
    return b.create<arith::ConstantOp>(loc, elem, cast<TypedAttr>(value));
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

  LogicalResult lowerOp(Operation *op) {
    Location loc = op->getLoc();
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case([&](ex::ConstantOp c) {
          Stored s;
          auto attr = cast<DenseElementsAttr>(c.getValue());
          Type elem = elementOf(c.getType());
          for (Attribute a : attr.getValues<Attribute>())
            s.elems.push_back(constant(elem, a, loc));
          values[c] = s;
          return success();
        })
        .Case([&](ex::AddOp o) { return arith2<arith::AddFOp, arith::AddIOp>(o); })
        .Case([&](ex::SubOp o) { return arith2<arith::SubFOp, arith::SubIOp>(o); })
        .Case([&](ex::MulOp o) { return arith2<arith::MulFOp, arith::MulIOp>(o); })
        .Case([&](ex::DivOp o) { return arith2<arith::DivFOp, arith::DivSIOp>(o); })
        .Case([&](ex::NegOp o) {
          if (!isa<FloatType>(elementOf(o.getType())))
            return o.emitOpError("negation of integers is not lowered yet"), failure();
          elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
            return b.create<arith::NegFOp>(l, a[0]);
          });
          return success();
        })
        .Case([&](ex::MathOp o) {
          ex::MathFn fn = o.getFn();
          elementwise(o, [&](ArrayRef<Value> a, Location l) { return mathScalar(fn, a[0], l); });
          return success();
        })
        .Case([&](ex::Math2Op o) {
          ex::Math2Fn fn = o.getFn();
          elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
            switch (fn) {
            case ex::Math2Fn::pow: return b.create<math::PowFOp>(l, a[0], a[1]);
            case ex::Math2Fn::atan2: return b.create<math::Atan2Op>(l, a[0], a[1]);
            case ex::Math2Fn::fmin: return b.create<arith::MinNumFOp>(l, a[0], a[1]);
            case ex::Math2Fn::fmax: return b.create<arith::MaxNumFOp>(l, a[0], a[1]);
            }
            llvm_unreachable("unknown binary math function");
          });
          return success();
        })
        .Case([&](ex::CmpOp o) { return lowerCmp(o); })
        .Case([&](ex::SelectOp o) {
          elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
            return b.create<arith::SelectOp>(l, a[0], a[1], a[2]);
          });
          return success();
        })
        .Case([&](ex::CastOp o) { return lowerCast(o); })
        .Case([&](ex::BroadcastOp o) {
          Value s = elements(o.getOperand(), loc)[0];
          values[o] = Stored{SmallVector<Value>(ex::numElements(o.getType()), s), {}};
          return success();
        })
        .Case([&](ex::ReshapeOp o) {
          Stored same = values[o.getOperand()]; // copy: the insert below may rehash
          values[o] = std::move(same);
          return success();
        })
        .Case([&](ex::GatherOp o) {
          const Stored &in = values[o.getOperand()];
          Stored out;
          for (int64_t i : o.getIndices())
            out.elems.push_back(element(in, i, loc));
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
          Type elem = elementOf(o.getType());
          Value total = in.empty() ? constant(elem, b.getZeroAttr(elem), loc)
                                   : pairwiseSum(in, 0, in.size(), loc);
          values[o] = Stored{{total}, {}};
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

  /// Sum of in[lo, hi) as a balanced tree: log-depth expressions (a left
  /// fold of thousands of terms nests too deep for C compilers) and the
  /// rounding of NumPy's pairwise summation.
  Value pairwiseSum(ArrayRef<Value> in, size_t lo, size_t hi, Location loc) {
    if (hi - lo == 1)
      return in[lo];
    size_t mid = lo + (hi - lo) / 2;
    Value a = pairwiseSum(in, lo, mid, loc), c = pairwiseSum(in, mid, hi, loc);
    if (isa<FloatType>(a.getType()))
      return b.create<arith::AddFOp>(loc, a, c);
    return b.create<arith::AddIOp>(loc, a, c);
  }

  template <typename FloatOp, typename IntOp, typename OpT>
  LogicalResult arith2(OpT o) {
    bool isFloat = isa<FloatType>(elementOf(o.getType()));
    if (elementOf(o.getType()).isInteger(1))
      return o.emitOpError("arithmetic on bool arrays is not defined"), failure();
    elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
      if (isFloat)
        return b.create<FloatOp>(l, a[0], a[1]);
      return b.create<IntOp>(l, a[0], a[1]);
    });
    return success();
  }

  Value mathScalar(ex::MathFn fn, Value x, Location l) {
    switch (fn) {
    case ex::MathFn::sin: return b.create<math::SinOp>(l, x);
    case ex::MathFn::cos: return b.create<math::CosOp>(l, x);
    case ex::MathFn::tan: return b.create<math::TanOp>(l, x);
    case ex::MathFn::asin: return b.create<math::AsinOp>(l, x);
    case ex::MathFn::acos: return b.create<math::AcosOp>(l, x);
    case ex::MathFn::atan: return b.create<math::AtanOp>(l, x);
    case ex::MathFn::sinh: return b.create<math::SinhOp>(l, x);
    case ex::MathFn::cosh: return b.create<math::CoshOp>(l, x);
    case ex::MathFn::tanh: return b.create<math::TanhOp>(l, x);
    case ex::MathFn::exp: return b.create<math::ExpOp>(l, x);
    case ex::MathFn::log: return b.create<math::LogOp>(l, x);
    case ex::MathFn::log1p: return b.create<math::Log1pOp>(l, x);
    case ex::MathFn::expm1: return b.create<math::ExpM1Op>(l, x);
    case ex::MathFn::sqrt: return b.create<math::SqrtOp>(l, x);
    case ex::MathFn::abs: return b.create<math::AbsFOp>(l, x);
    case ex::MathFn::floor: return b.create<math::FloorOp>(l, x);
    case ex::MathFn::ceil: return b.create<math::CeilOp>(l, x);
    }
    llvm_unreachable("unknown math function");
  }

  LogicalResult lowerCmp(ex::CmpOp o) {
    bool isFloat = isa<FloatType>(elementOf(o.getLhs().getType()));
    auto pred = o.getPredicate();
    elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
      if (isFloat) {
        static const arith::CmpFPredicate fp[] = {
            arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT,
            arith::CmpFPredicate::OGE, arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE};
        return b.create<arith::CmpFOp>(l, fp[static_cast<int>(pred)], a[0], a[1]);
      }
      // Bools order as 0 < 1: unsigned predicates (signed ones make true -1).
      static const arith::CmpIPredicate ip[] = {
          arith::CmpIPredicate::slt, arith::CmpIPredicate::sle, arith::CmpIPredicate::sgt,
          arith::CmpIPredicate::sge, arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
      static const arith::CmpIPredicate up[] = {
          arith::CmpIPredicate::ult, arith::CmpIPredicate::ule, arith::CmpIPredicate::ugt,
          arith::CmpIPredicate::uge, arith::CmpIPredicate::eq, arith::CmpIPredicate::ne};
      bool isBool = a[0].getType().isInteger(1);
      return b.create<arith::CmpIOp>(l, (isBool ? up : ip)[static_cast<int>(pred)], a[0], a[1]);
    });
    return success();
  }

  LogicalResult lowerCast(ex::CastOp o) {
    Type from = elementOf(o.getOperand().getType()), to = elementOf(o.getType());
    elementwise(o, [&](ArrayRef<Value> a, Location l) -> Value {
      Value x = a[0];
      if (from == to)
        return x;
      auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
      if (fromF && toF)
        return fromF.getWidth() < toF.getWidth() ? Value(b.create<arith::ExtFOp>(l, to, x))
                                                 : Value(b.create<arith::TruncFOp>(l, to, x));
      if (toF && from.isInteger(1))
        return b.create<arith::UIToFPOp>(l, to, x);
      if (toF)
        return b.create<arith::SIToFPOp>(l, to, x);
      if (to.isInteger(1)) {
        Value zero = constant(from, b.getZeroAttr(from), l);
        if (fromF)
          return b.create<arith::CmpFOp>(l, arith::CmpFPredicate::UNE, x, zero);
        return b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, x, zero);
      }
      if (fromF)
        return b.create<arith::FPToSIOp>(l, to, x);
      unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
      if (fw < tw)
        return from.isInteger(1) ? Value(b.create<arith::ExtUIOp>(l, to, x))
                                 : Value(b.create<arith::ExtSIOp>(l, to, x));
      return b.create<arith::TruncIOp>(l, to, x);
    });
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
    SmallVector<Value> inPtrs, outPtrs;
    for (Value operand : loop.getOperands())
      inPtrs.push_back(inMemory(operand, loc));
    for (Value result : loop.getResults()) {
      outPtrs.push_back(resultMemory(result, loc));
      values[result] = Stored{{}, outPtrs.back()};
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
    for (auto [arg, ptr] : llvm::zip(body.getArguments(), inPtrs))
      values[arg] = Stored{{}, slice(ptr, arg.getType())};
    auto yield = cast<ex::YieldOp>(body.getTerminator());
    SmallVector<Value> dstSlices;
    for (auto [v, ptr] : llvm::zip(yield.getOperands(), outPtrs)) {
      dstSlices.push_back(slice(ptr, v.getType()));
      hintDestination(v, dstSlices.back(), &body);
    }
    if (failed(lowerOps(body)))
      return failure();
    for (auto [v, dst] : llvm::zip(yield.getOperands(), dstSlices))
      writeTo(v, dst, yield.getLoc());
    return success();
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
    ex::FuncOp root = funcs.front();
    if (!entry.empty()) {
      root = symbols.lookup<ex::FuncOp>(entry);
      if (!root) {
        module.emitError("entry function '") << entry << "' is not an expr.func of the module";
        return signalPassFailure();
      }
    }
    // Procedures needed: the entry and, transitively, every callee of a kept
    // call, callees before callers (post-order), so that the C module defines
    // each procedure before its first use and workspace planning sees every
    // callee's need before its callers.
    SmallVector<ex::FuncOp> order;
    DenseSet<Operation *> seen;
    std::function<void(ex::FuncOp)> visit = [&](ex::FuncOp f) {
      if (!seen.insert(f).second)
        return;
      f.walk([&](ex::CallOp call) {
        if (auto callee = symbols.lookup<ex::FuncOp>(call.getCallee()))
          visit(callee);
      });
      order.push_back(f);
    };
    visit(root);

    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    for (ex::FuncOp func : order) {
      bool isEntry = func == root;
      std::string name = isEntry ? func.getSymName().str()
                                 : ProcLowering::procName(func.getSymName());
      OpBuilder::InsertionGuard guard(b);
      Type wElem = workspaceElement(root);
      pg::ProcOp proc = createProc(b, func, name, isEntry, wElem);
      ProcLowering lowering(b);
      if (failed(lowering.lower(func, proc)))
        return signalPassFailure();
    }
    for (ex::FuncOp func : funcs)
      func.erase();
  }
};

} // namespace
