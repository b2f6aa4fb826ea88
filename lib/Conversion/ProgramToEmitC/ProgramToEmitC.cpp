//===- ProgramToEmitC.cpp - program dialect to EmitC ----------------------===//
//
// Builds the C module of seed 000 in EmitC and cdecl ops: recipe comment,
// includes, vector typedefs (cdecl.typedef), status codes (cdecl.define),
// and an extern "C"
// block (cdecl.extern_c) holding what the procedures share, one `static
// inline` function per raw procedure and the exported entry with the
// five-argument pointer ABI and its null checks (cdecl.return_if). The
// procedures' bodies are converted by DialectConversion patterns (Patterns.h,
// BodyConversion.cpp).
//
// Attributes the C printer reads: `scaly.name` names a value or loop counter,
// `scaly.const` on a pointer argument makes its innermost element const.
//
//===----------------------------------------------------------------------===//

#include "scaly/Conversion/Passes.h"
#include "scaly/Conversion/ProcedureThreads.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/EmitCBuilders.h"
#include "scaly/Target/ReservedNames.h"
#include "scaly/Target/StatusCodes.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "HelperFunctions.h"
#include "Lanes.h"
#include "ModuleDefinitions.h"
#include "Patterns.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Threading.h"
#include "llvm/Support/ThreadPool.h"

#include <atomic>
#include "llvm/ADT/StringSet.h"


namespace scaly {
#define GEN_PASS_DEF_PROGRAMTOEMITC
#include "scaly/Conversion/Passes.h.inc"
} // namespace scaly

using namespace mlir;
using namespace scaly;
namespace pg = scaly::prog;

namespace {

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

/// The declaration of an external function: a bodiless emitc.func, which
/// the printer prints as its prototype, `double name(double, const double*);`
/// (a bool buffer is `uint8_t*`, a pointer to none `void*`).
void declareExtern(OpBuilder &b, pg::ExternOp ext) {
  MLIRContext *ctx = b.getContext();
  auto cType = [&](Type t) -> Type {
    auto p = dyn_cast<pg::PtrType>(t);
    if (!p)
      return t;
    Type e = p.getElementType();
    return emitc::PointerType::get(isa<NoneType>(e) ? emitc::OpaqueType::get(ctx, "void") : e);
  };
  FunctionType type = ext.getFunctionType();
  auto inputs = llvm::map_to_vector(type.getInputs(), cType);
  auto results = llvm::map_to_vector(type.getResults(), cType);
  auto fn = b.create<emitc::FuncOp>(ext.getLoc(), ext.getSymName(),
                                    FunctionType::get(ctx, inputs, results));
  fn.setPrivate();
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (auto p = dyn_cast<pg::PtrType>(t); p && p.getReadonly())
      fn.setArgAttr(i, c::kConstAttr, b.getUnitAttr());
}

/// The statements the ABI adds to a procedure come from no line of the
/// model: they carry no location, so line comments and line origins skip
/// them.
Location abiLoc(OpBuilder &b) { return b.getUnknownLoc(); }

/// `(void)v;`: a parameter the function does not use.
void discard(OpBuilder &b, Value v) {
  b.create<emitc::CastOp>(abiLoc(b), c::voidType(b.getContext()), v);
}

/// `if (c1 || c2) return <status>;` where each condition is `!p` of a
/// pointer in `pointers`.
void returnIfNull(OpBuilder &b, ArrayRef<Value> pointers, StringRef status) {
  Location loc = abiLoc(b);
  SmallVector<Value> isNull;
  for (Value p : pointers)
    isNull.push_back(b.create<emitc::LogicalNotOp>(loc, b.getI1Type(), p));
  Value code = b.create<emitc::LiteralOp>(loc, c::intType(b.getContext()), status);
  b.create<cdecl::ReturnIfOp>(loc, isNull, code);
}

/// The entry's first statements: the parameters it may not use marked
/// used, then a status code for each null pointer it needs (the arrays
/// arg and res, the workspace when it has one, each input and output that
/// holds values).
void checkAbiPointers(OpBuilder &b, pg::ProcOp proc, ArrayRef<BlockArgument> params) {
  Location loc = abiLoc(b);
  BlockArgument arg = params[0], res = params[1], iw = params[2], w = params[3], mem = params[4];
  discard(b, iw);
  discard(b, mem);
  returnIfNull(b, {arg, res}, "SCALY_ERR_NULL_ABI");
  if (proc.getWorkspace() == 0)
    discard(b, w);
  else
    returnIfNull(b, {w}, "SCALY_ERR_NULL_WORK");
  auto slot = [&](Value array, int64_t k) -> Value {
    Value idx = b.create<emitc::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(k));
    auto ptr = cast<emitc::PointerType>(array.getType()).getPointee();
    return b.create<emitc::SubscriptOp>(loc, ptr, array, ValueRange{idx});
  };
  // Only inputs and outputs that hold values must be non-null.
  for (auto [i, n] : llvm::enumerate(proc.getInputSizes()))
    if (n > 0)
      returnIfNull(b, {slot(arg, i)}, "SCALY_ERR_NULL_INPUT");
  for (auto [i, n] : llvm::enumerate(proc.getOutputSizes()))
    if (n > 0)
      returnIfNull(b, {slot(res, i)}, "SCALY_ERR_NULL_RESULT");
}

/// failableParallelForEach over `procs`, except that each task converts the
/// procedures its own thread built first (ProcedureThreads.h, when known),
/// then takes any left, last first.
LogicalResult forEachOnItsThread(MLIRContext *ctx, ArrayRef<pg::ProcOp> procs,
                                 const ProcedureThreads *known,
                                 function_ref<LogicalResult(size_t)> fn) {
  size_t n = procs.size();
  if (!ctx->isMultithreadingEnabled() || n <= 1 || !known || known->empty())
    return failableParallelForEach(ctx, llvm::seq<size_t>(0, n), fn);
  const ProcedureThreads &threads = *known;
  // Diagnostics in procedure order, as failableParallelForEach orders them.
  ParallelDiagnosticHandler handler(ctx);
  std::vector<std::atomic<bool>> taken(n);
  for (std::atomic<bool> &t : taken)
    t = false;
  std::atomic<bool> failedAny(false);
  auto convert = [&](size_t i) {
    if (failedAny || taken[i].exchange(true))
      return;
    handler.setOrderIDForThread(i);
    if (failed(fn(i)))
      failedAny = true;
    handler.eraseOrderIDForThread();
  };
  auto task = [&] {
    std::thread::id self = std::this_thread::get_id();
    for (size_t i = 0; i < n; ++i) {
      auto it = threads.find(pg::ProcOp(procs[i]).getOperation());
      if (it != threads.end() && it->second == self)
        convert(i);
    }
    // Then the others', from the far end: their own threads work from the
    // start.
    for (size_t i = n; i-- > 0;)
      convert(i);
  };
  llvm::ThreadPoolInterface &pool = ctx->getThreadPool();
  llvm::ThreadPoolTaskGroup tasks(pool);
  for (size_t k = 0, e = std::min<size_t>(n, pool.getMaxConcurrency()); k < e; ++k)
    tasks.async(task);
  tasks.wait();
  return failure(failedAny.load());
}

struct ProgramToEmitCPass : scaly::impl::ProgramToEmitCBase<ProgramToEmitCPass> {
  using ProgramToEmitCBase::ProgramToEmitCBase;
  ProgramToEmitCPass(const ProgramToEmitCOptions &options,
                     std::shared_ptr<const ProcedureThreads> threads,
                     std::shared_ptr<FunctionSizes> sizes)
      : ProgramToEmitCBase(options), threads(std::move(threads)), sizes(std::move(sizes)) {}
  /// The threads that built the procedures, when known.
  std::shared_ptr<const ProcedureThreads> threads;
  /// Where each function's size goes, when wanted.
  std::shared_ptr<FunctionSizes> sizes;
  /// The number of operations of each procedure (surveyProcs).
  std::vector<size_t> procSizes;
  c::Helpers helpers;
  c::Tables tables;
  std::shared_ptr<c::LaneSupport> lanes;

  llvm::DenseMap<StringRef, int> callSites;
  /// Converts the procedures' bodies, its patterns built once per run.
  std::shared_ptr<c::BodyConverter> bodies;

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
      b.create<cdecl::CommentOp>(loc, recipe + "\n"); // its ` */` on a line of its own
    if (!header.empty())
      b.create<emitc::IncludeOp>(loc, header, /*is_standard_include=*/false);
    if (!header.empty())
      b.create<emitc::VerbatimOp>(loc, "");
    for (StringRef inc : {"math.h", "stddef.h", "stdint.h"})
      b.create<emitc::IncludeOp>(loc, inc, /*is_standard_include=*/true);
    // The vector typedefs go before this blank line, once the procedures
    // have said which they use; external functions' #includes before them.
    auto afterTypedefs = b.create<emitc::VerbatimOp>(loc, "");
    c::defineStatusCodes(b, loc);
    b.create<emitc::VerbatimOp>(loc, "");
    // Everything else has C linkage for a C++ includer: the functions go in
    // the block (its symbol table), in order, after a blank line.
    auto externC = b.create<cdecl::ExternCOp>(loc);
    b.setInsertionPointToStart(&externC.getBody().emplaceBlock());
    auto opening = b.create<emitc::VerbatimOp>(loc, "");

    // Call sites per procedure: a procedure called from many places stays a
    // procedure in the object code too (see kNoInlineCallSites); the tables,
    // named in order of first use.
    surveyProcs(procs);

    // External functions: an #include of their header, else a declaration.
    // (The prog.externs are erased at the end, with the procedures.)
    auto externs = llvm::to_vector(module.getOps<pg::ExternOp>());
    for (pg::ExternOp ext : externs) {
      if (auto header = ext.getHeader()) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(afterTypedefs);
        b.create<emitc::IncludeOp>(loc, *header, /*is_standard_include=*/false);
      } else {
        declareExtern(b, ext);
      }
    }
    if (!externs.empty())
      b.create<emitc::VerbatimOp>(loc, "");
    bodies = std::make_shared<c::BodyConverter>(module.getContext(), dialect == "c99");
    LogicalResult translated = translateProcs(b, procs, vectors);
    bodies.reset();
    if (failed(translated))
      return signalPassFailure();
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(afterTypedefs);
      vectors.define(b, loc);
    }
    // What the procedures share, first in the extern "C" block: lane support
    // (cdecl ops), the tables (emitc.global), a blank line after either, then
    // the helper functions and the loop macro.
    bool shared = !lanes->empty() || !tables.empty();
    // scaly_ names are the module's own (c::entryNameProblem refuses them as
    // entry names); a procedure named like a helper would be defined twice.
    for (const std::string &name : helpers.functionNames())
      for (pg::ProcOp proc : procs)
        if (proc.getSymName() == name) {
          proc.emitOpError("is named ") << name << ", the name of the module's C helper for "
                                        << "its reductions or matrix products";
          return signalPassFailure();
        }
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointAfter(opening);
      lanes->define(b, loc);
      tables.define(b, loc);
      helpers.define(b, loc, shared);
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

  /// Counts each procedure's call sites (into callSites) and registers the
  /// constant tables the procedures read, in order of first use (procedure
  /// by procedure, op by op, as one translation after another would meet
  /// them): one walk of each procedure, in parallel on a threaded context.
  void surveyProcs(MutableArrayRef<pg::ProcOp> procs) {
    struct Survey {
      llvm::DenseMap<StringRef, int> calls;
      SmallVector<ElementsAttr> tables;
      size_t ops = 0;
    };
    std::vector<Survey> surveys(procs.size());
    parallelFor(&getContext(), 0, procs.size(), [&](size_t i) {
      procs[i].walk([&](Operation *op) {
        ++surveys[i].ops;
        if (auto call = dyn_cast<pg::CallOp>(op))
          ++surveys[i].calls[call.getCallee()];
        else if (auto table = dyn_cast<pg::TableOp>(op))
          surveys[i].tables.push_back(table.getValues());
      });
    });
    callSites.clear();
    procSizes.clear();
    for (const Survey &survey : surveys) {
      procSizes.push_back(survey.ops);
      for (const auto &[callee, count] : survey.calls)
        callSites[callee] += count;
      for (ElementsAttr values : survey.tables)
        tables.use(values);
    }
  }

  /// Each procedure as a C function, in order, each followed by a blank line.
  /// Each is translated on its own, with its own helper, vector-type and lane
  /// registries, merged in procedure order afterwards: the same C as one
  /// after another, and in parallel on a threaded context (the tables were
  /// named by surveyProcs).
  LogicalResult translateProcs(OpBuilder &b, ArrayRef<pg::ProcOp> procs,
                               c::VectorTypes &vectors) {
    MLIRContext *ctx = b.getContext();
    Location loc = b.getUnknownLoc();
    struct Translated {
      Operation *fn = nullptr;
      c::Helpers helpers;
      c::VectorTypes vectors;
      c::LaneSupport lanes;
    };
    std::vector<Translated> done;
    done.reserve(procs.size());
    for (size_t i = 0; i < procs.size(); ++i)
      done.push_back({nullptr, {}, {}, c::LaneSupport(lanes->isAuto(), lanes->usesGlibc())});
    auto translateOne = [&](size_t i) {
      OpBuilder detached(ctx); // the function is put in place below, in order
      return translateProc(detached, procs[i], done[i].vectors, done[i].helpers, done[i].lanes,
                           &done[i].fn);
    };
    LogicalResult ok = forEachOnItsThread(ctx, procs, threads.get(), translateOne);
    for (auto [t, size] : llvm::zip(done, procSizes)) {
      if (!t.fn)
        continue;
      if (succeeded(ok)) {
        if (sizes)
          (*sizes)[t.fn] = size;
        b.insert(t.fn);
        b.create<emitc::VerbatimOp>(loc, "");
        helpers.append(t.helpers);
        vectors.merge(t.vectors);
        lanes->merge(t.lanes);
      } else {
        t.fn->erase();
      }
    }
    return ok;
  }

  LogicalResult translateProc(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                              c::Helpers &procHelpers, c::LaneSupport &procLanes,
                              Operation **made = nullptr) {
    return proc.getEntry() ? translateEntry(b, proc, vectors, procHelpers, procLanes, made)
                           : translateRaw(b, proc, vectors, procHelpers, procLanes, made);
  }

  /// static inline void <name>_raw(const T* in..., T* out..., T* w), or
  /// static __attribute__((noinline)) void ... when called from many places
  LogicalResult translateRaw(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                             c::Helpers &procHelpers, c::LaneSupport &procLanes,
                             Operation **made) {
    SmallVector<Type> types;
    SmallVector<Attribute> attrs;
    std::vector<std::string> names = portNames(proc);
    names.push_back("w");
    for (auto [i, t] : llvm::enumerate(proc.getArgumentTypes())) {
      types.push_back(c::convertPtr(t));
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
    if (proc.getWorkspace() == 0)
      discard(b, body->getArguments().back());
    if (failed(bodies->convert(b, body->getArguments(), {vectors, procHelpers, tables, procLanes},
                               proc.getBody().front())))
      return failure();
    b.create<emitc::ReturnOp>(proc.getLoc(), Value());
    return success();
  }

  /// int <name>(const T** arg, T** res, int* iw, T* w, int mem), with T
  /// double, float or void by the seed's rule (the workspace's type).
  LogicalResult translateEntry(OpBuilder &b, pg::ProcOp proc, c::VectorTypes &vectors,
                               c::Helpers &procHelpers, c::LaneSupport &procLanes,
                               Operation **made) {
    Location loc = proc.getLoc();
    MLIRContext *ctx = b.getContext();
    Type ptr = c::convertPtr(proc.getWorkspaceArg().getType());
    bool typed = !isa<emitc::OpaqueType>(cast<emitc::PointerType>(ptr).getPointee());
    Type intT = c::intType(ctx);
    SmallVector<Type> types;
    SmallVector<Attribute> attrs;
    for (const c::CParam &p : c::entryParams(ptr)) {
      types.push_back(p.type);
      attrs.push_back(argAttrs(b, p.name, p.isConst));
    }
    auto fn = b.create<emitc::FuncOp>(loc, proc.getSymName(), b.getFunctionType(types, {intT}));
    if (made)
      *made = fn;
    fn.setAllArgAttrs(attrs);
    Block *body = fn.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(body);
    checkAbiPointers(b, proc, body->getArguments());

    SmallVector<Value> args;
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
      Type want = c::convertPtr(a.getType());
      Value slot = subscript(body->getArgument(i < nIn ? 0 : 1), i < nIn ? i : i - nIn);
      int64_t size = i < nIn ? proc.getInputSizes()[i] : proc.getOutputSizes()[i - nIn];
      if (!typed) {
        auto named = b.create<emitc::CastOp>(loc, want, slot);
        // A port without values is never read or written: no variable for it.
        if (size > 0)
          named->setAttr(c::kNameAttr, b.getStringAttr(names[i]));
        slot = named;
      }
      args.push_back(slot);
    }
    args.push_back(body->getArgument(3)); // the workspace
    if (failed(bodies->convert(b, args, {vectors, procHelpers, tables, procLanes},
                               proc.getBody().front())))
      return failure();
    b.create<emitc::ReturnOp>(loc, b.create<emitc::LiteralOp>(loc, intT, "SCALY_SUCCESS"));
    return success();
  }
};

} // namespace

std::unique_ptr<Pass>
scaly::createProgramToEmitC(const ProgramToEmitCOptions &options,
                            std::shared_ptr<const ProcedureThreads> threads,
                            std::shared_ptr<FunctionSizes> sizes) {
  return std::make_unique<ProgramToEmitCPass>(options, std::move(threads), std::move(sizes));
}
