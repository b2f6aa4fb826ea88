//===- ExprToProgram.cpp - lower expressions to C-shaped programs --------===//
//
// Every expr.func that survives as a procedure (the entry, and callees of
// expr.call ops that kept the block hint) becomes a prog.proc over pointers.
// Small arrays are scalarized: each element becomes one SSA scalar (arith /
// math ops). Values that must be in memory - operands of kept calls and of
// loops - are read where they already live (inputs, slices) or spilled to a
// workspace window. Results of loops and kept calls are written straight into
// the output or yielded slice they end up in (destination passing, as
// scaly-plan-placement planned it: expr.place), so the seed's rollout writes
// `res[0] + 2*it` with no copy.
//
//===----------------------------------------------------------------------===//

#include "scaly/Conversion/Passes.h"

#include "ProcLowering.h"
#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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

namespace scaly::lowering {

LogicalResult ProcLowering::lower(ex::FuncOp func, pg::ProcOp proc) {
  if (failed(checkPlanned(func)))
    return failure();
  limit = *ex::scalarizeLimitOf(func);
  Block &entry = proc.getBody().front();
  workspace = proc.getWorkspaceArg();
  unsigned nIn = func.getNumArguments();
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    values[arg] = Stored{{}, entry.getArgument(i)};
  for (unsigned k = 0; k < func.getNumResults(); ++k)
    outputs.push_back(entry.getArgument(nIn + k));
  b.setInsertionPointToStart(&entry);
  scopes.push_back({&func.getBody().front(), nullptr, {}});
  auto ret = cast<ex::ReturnOp>(func.getBody().front().getTerminator());
  if (failed(lowerOps(func.getBody().front())))
    return failure();
  for (auto [k, v] : llvm::enumerate(ret.getOperands()))
    writeTo(v, outputs[k], ret.getLoc());
  b.create<pg::ReturnOp>(ret.getLoc());
  return failure(planBroken);
}

Value ProcLowering::element(const Stored &s, int64_t k, Location loc) {
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

SmallVector<Value> ProcLowering::elements(Value v, Location loc) {
  SmallVector<Value> out;
  int64_t n = ex::numElements(v.getType());
  for (int64_t k = 0; k < n; ++k)
    out.push_back(elementStatic(v, k, loc));
  return out;
}

Value ProcLowering::elementStatic(Value v, int64_t k, Location loc) {
  const Stored &s = values[v];
  if (!s.lazy)
    return element(s, k, loc);
  return elementAt(v, constIndex(shapeOf(v), k), loc);
}

void ProcLowering::writeTo(Value v, Value ptr, Location loc) {
  const Stored &s = values[v];
  if (s.inMemory() && s.ptr == ptr)
    return;
  // The loops and stores that write v come from the op that made it (the
  // C statements' origins, RenderedModule.line_origins), not from where it
  // is returned or yielded.
  if (Operation *def = v.getDefiningOp(); def && !isa<UnknownLoc>(def->getLoc()))
    loc = def->getLoc();
  if (s.lazy || (s.inMemory() && isLarge(v))) {
    materialize(v, ptr, loc);
    return;
  }
  SmallVector<Value> elems = elements(v, loc);
  if (!elems.empty())
    b.create<pg::StoreOp>(loc, elems, ptr, b.getI64IntegerAttr(0));
}

LogicalResult ProcLowering::lowerOps(Block &block) {
  for (Operation &op : block.without_terminator())
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

bool ProcLowering::isElementwise(Operation *op) { return ex::isElementwise(op); }

bool ProcLowering::staysLazy(Operation *op) {
  // A reshape is read through when its operand is; anything else when it is
  // in the body of an expr.fused (scaly-form-fused-ops).
  if (auto r = dyn_cast<ex::ReshapeOp>(op))
    return values[r.getOperand()].lazy;
  return isa<ex::FusedOp>(op->getParentOp());
}

LogicalResult ProcLowering::lowerOp(Operation *op) {
  Location loc = op->getLoc();
  if (failed(checkScalarOp(op)))
    return failure();
  if (isa<ex::ReduceOp>(op))
    return lowerReduce(cast<ex::ReduceOp>(op));
  if (isa<ex::MatmulOp>(op))
    return lowerMatmul(cast<ex::MatmulOp>(op));
  if (auto scatter = dyn_cast<ex::ScatterOp>(op))
    return lowerScatter(scatter);
  // A leading-axis concatenation whose parts were all produced in their
  // place in its destination is that destination: nothing to copy.
  if (auto concat = dyn_cast<ex::ConcatOp>(op); concat && concat.getAxis().value_or(0) == 0)
    if (Value dst = destinationOf(concat.getResult())) {
      bool inPlace = llvm::all_of(concat.getOperands(), [&](Value part) {
        return ex::numElements(part.getType()) == 0 ||
               (values[part].inMemory() && values[part].ptr == destinationOf(part));
      });
      if (inPlace) {
        values[concat.getResult()] = Stored{{}, dst};
        return success();
      }
    }
  // A contiguous slice of memory is a view: a pointer, nothing copied.
  if (auto slice = dyn_cast<ex::SliceOp>(op); slice && values[slice.getOperand()].inMemory())
    if (std::optional<int64_t> start = ex::contiguousStart(slice)) {
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
  // Scalars when scaly-plan-placement put the result in registers, else
  // loops (into memory, or where it is read).
  bool byLoops = op->getNumResults() == 1 && !inRegisters(op->getResult(0));
  if (byLoops && (isElementwise(op) || structural ||
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
        // A large splat (a broadcast scalar folded by canonicalization;
        // large: not planned into registers)
        // stays one scalar, read wherever an element is needed.
        if (!inRegisters(c) && cast<DenseElementsAttr>(c.getValue()).isSplat()) {
          values[c] = Stored{{}, {}, true};
          return success();
        }
        // Any other large constant is read from a table (a static const
        // array in C), never written element by element.
        if (!inRegisters(c)) {
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
      .Case([&](ex::FusedOp o) {
        // Nothing is computed here: the body's values are computed where
        // they are read, and so is the result.
        if (failed(lowerOps(o.getBody().front())))
          return failure();
        Stored root = values[o.getRoot()]; // copy: the insert below may rehash
        values[o.getResult()] = std::move(root);
        return success();
      })
      .Case([&](ex::CallOp o) { return lowerCall(o); })
      .Case([&](ex::QpSolveOp o) { return lowerSolverCall(o, o.getName()); })
      .Case([&](ex::NlpSolveOp o) { return lowerSolverCall(o, o.getName()); })
      .Case([&](ex::LoopOp o) { return lowerLoop(o); })
      .Case([&](ex::MapOp o) {
        return o.emitOpError("must be turned into a loop first (run scaly-map-to-loop)"),
               failure();
      })
      .Default([&](Operation *other) {
        return other->emitOpError("cannot be lowered to the program dialect"), failure();
      });
}

Value ProcLowering::splatScalar(ex::ConstantOp c, Location loc) {
  auto attr = cast<DenseElementsAttr>(c.getValue());
  return lowering::constant(b, elementOf(c.getType()), attr.getSplatValue<Attribute>(), loc);
}

LogicalResult ProcLowering::checkScalarOp(Operation *op) {
  if (isa<ex::NegOp>(op) && !isa<FloatType>(elementOf(op->getResult(0).getType())))
    return op->emitOpError("negation of integers is not lowered yet"), failure();
  if (isa<ex::SubOp, ex::DivOp>(op) && elementOf(op->getResult(0).getType()).isInteger(1))
    return op->emitOpError("arithmetic on bool arrays is not defined"), failure();
  return success();
}

LogicalResult ProcLowering::lowerCall(ex::CallOp call) {
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

LogicalResult ProcLowering::lowerSolverCall(Operation *solve, StringRef name) {
  Location loc = solve->getLoc();
  SmallVector<Value> args;
  // An empty operand or result (no rows of A, say) is a null pointer.
  auto null = [&](bool readonly) {
    return b.create<pg::NullOp>(loc, pg::PtrType::get(b.getContext(), b.getF64Type(), readonly))
        .getResult();
  };
  for (Value operand : solve->getOperands())
    args.push_back(ex::numElements(operand.getType()) ? asReadonly(inMemory(operand, loc), loc)
                                                      : null(true));
  for (Value result : solve->getResults()) {
    Value mem = ex::numElements(result.getType()) ? resultMemory(result, loc) : null(false);
    values[result] = Stored{{}, mem};
    args.push_back(mem);
  }
  // void <name>(const double* per operand, double* per result), defined by the wrapper.
  auto module = solve->getParentOfType<ModuleOp>();
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> types;
    for (Value a : args)
      types.push_back(a.getType());
    b.create<pg::ExternOp>(loc, name, b.getFunctionType(types, {}), StringAttr());
  }
  b.create<pg::CallExternOp>(loc, TypeRange(), FlatSymbolRefAttr::get(b.getContext(), name),
                             args);
  return success();
}

Value ProcLowering::asReadonly(Value ptr, Location loc) {
  auto t = cast<pg::PtrType>(ptr.getType());
  if (t.getReadonly())
    return ptr;
  auto ro = pg::PtrType::get(b.getContext(), t.getElementType(), true);
  return b.create<pg::OffsetOp>(loc, ro, ptr, Value(), b.getI64IntegerAttr(1),
                                b.getI64IntegerAttr(0));
}

LogicalResult ProcLowering::lowerLoop(ex::LoopOp loop) {
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
  // it at the end of the body. A next value planned into the workspace
  // (expr.next) is built in a window first (it may read the current one
  // while it is computed).
  for (unsigned i = 0; i < carried; ++i) {
    writeTo(loop.getOperand(i), outPtrs[i], loc);
    nextPtrs.push_back(ex::nextInWindow(loop, i) ? newWindow(loop.getResult(i).getType(), loc)
                                                 : Value());
  }
  StringRef name = loop.getName().value_or("");
  auto forOp = pg::createCountedLoop(b, loc, 0, loop.getCount(), 1, name);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forOp.getBody()->getTerminator());
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
  scopes.push_back({&body, forOp, {}});
  auto popScope = llvm::make_scope_exit([&] { scopes.pop_back(); });
  for (unsigned i = 0; i < carried; ++i)
    values[body.getArgument(i)] = Stored{{}, asReadonly(outPtrs[i], loc)};
  for (auto [arg, ptr] : llvm::zip(llvm::drop_begin(body.getArguments(), carried), inPtrs))
    values[arg] = Stored{{}, slice(ptr, arg.getType())};
  auto yield = cast<ex::YieldOp>(body.getTerminator());
  SmallVector<Value> dstSlices;
  for (auto [k, v] : llvm::enumerate(yield.getOperands()))
    dstSlices.push_back(k < carried ? nextPtrs[k] : slice(outPtrs[k], v.getType()));
  scopes.back().yieldMemory = dstSlices;
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

} // namespace scaly::lowering

using scaly::lowering::ProcLowering;
using scaly::lowering::elementOf;

namespace {

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
      ProcLowering lowering(b);
      if (failed(lowering.lower(func, proc)))
        return signalPassFailure();
    }
    for (ex::FuncOp func : funcs)
      func.erase();
  }
};

} // namespace
