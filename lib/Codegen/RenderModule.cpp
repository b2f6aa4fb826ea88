//===- RenderModule.cpp - expression module to C source and header -------===//

#include "scaly/Codegen/RenderModule.h"
#include "scaly/Codegen/CasadiInterface.h"
#include "scaly/Codegen/ModuleHeader.h"

#include "scaly/Conversion/Passes.h"
#include "scaly/Conversion/ProcedureThreads.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Expr/Passes.h"
#include "scaly/Dialect/Program/Passes.h"
#include "scaly/Target/CEmitter.h"
#include "scaly/Target/ReservedNames.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "scaly/Support/DiagnosticCollector.h"

#include "mlir/IR/Threading.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>

using namespace mlir;

namespace scaly::codegen {

namespace {
/// Adds `passes` to run on each function of type `FuncT`, each function on
/// its own (in parallel on a threaded context), as one nested pipeline. With
/// `onModule` they run on the whole module instead, one after another: the
/// same result (they read and change one function at a time), but a stage
/// observer sees the module after each. (Separate nests would not do: the
/// pass manager merges adjacent nests of one anchor into one.)
template <typename FuncT>
void addOnFunctions(OpPassManager &pm, bool onModule,
                    SmallVector<std::unique_ptr<Pass>> passes) {
  OpPassManager &target = onModule ? pm : pm.nest<FuncT>();
  for (std::unique_ptr<Pass> &pass : passes)
    target.addPass(std::move(pass));
}

template <typename... Passes>
SmallVector<std::unique_ptr<Pass>> passList(Passes... passes) {
  SmallVector<std::unique_ptr<Pass>> list;
  (list.push_back(std::move(passes)), ...);
  return list;
}
} // namespace

SmallVector<std::unique_ptr<Pass>> loopGenerationPasses() {
  // The loop transformations read the nests the lowering emits; the loops
  // are generated after them.
  return passList(prog::createAccumulateRows(), prog::createTileCopies(),
                  prog::createSumInBlocks(), prog::createParallelToLoops());
}

void buildLoweringPipeline(OpPassManager &pm, StringRef entry, int64_t scalarizeLimit,
                           int64_t lanes, bool reciprocal, bool functionPassesOnModule) {
  // Passes that read and change one function run nested on expr.func or
  // prog.proc; those that look across functions (calls, derivatives,
  // outlining, the lowering itself, the workspace) run on the module.
  pm.addPass(expr::createRollCallChains());
  pm.addPass(expr::createRollRepeats());
  pm.addPass(expr::createDifferentiate());
  pm.addPass(expr::createMapToLoop());
  pm.addPass(expr::createExpandCalls());
  addOnFunctions<expr::FuncOp>(pm, functionPassesOnModule, passList(expr::createSimplify()));
  pm.addPass(expr::createDropUnusedResults());
  expr::PlanFusionOptions fusion;
  fusion.scalarizeLimit = scalarizeLimit;
  expr::PlanLoopOrdersOptions orders;
  orders.scalarizeLimit = scalarizeLimit;
  expr::PlanPlacementOptions placement;
  placement.scalarizeLimit = scalarizeLimit;
  addOnFunctions<expr::FuncOp>(pm, functionPassesOnModule,
                               passList(createCSEPass(), expr::createHoistInvariants(),
                                        expr::createPlanFusion(fusion),
                                        expr::createPlanPlacement(placement),
                                        expr::createPlanLoopOrders(orders),
                                        expr::createMoveReducedAxesLast(),
                                        expr::createFormFusedOps()));
  LowerToProgramOptions lowerOptions;
  lowerOptions.entry = entry.str();
  pm.addPass(createLowerToProgram(lowerOptions));
  // Canonicalize's patterns through scaly-canonicalize-program: upstream's
  // driver would rerun the whole-body dead-op test of every enclosing loop
  // after each change. Upstream's LICM, through scf.for's
  // LoopLikeOpInterface: pure arithmetic that no iteration changes is
  // computed once, before the loop.
  SmallVector<std::unique_ptr<Pass>> procPasses = loopGenerationPasses();
  procPasses.push_back(prog::createCanonicalizeProgram());
  procPasses.push_back(createCSEPass());
  procPasses.push_back(createLoopInvariantCodeMotionPass());
  if (reciprocal)
    procPasses.push_back(prog::createReciprocal());
  if (lanes == 0 || lanes > 1) {
    // lanes=auto widens by 8: SCALY_LANES (2, 4 or 8) divides it.
    prog::WidenLanesOptions widen;
    widen.lanes = lanes == 0 ? 8 : lanes;
    procPasses.push_back(prog::createWidenLanes(widen));
    procPasses.push_back(prog::createSplitCalleeStores());
  }
  addOnFunctions<prog::ProcOp>(pm, functionPassesOnModule, std::move(procPasses));
  pm.addPass(prog::createSplitLongProcs());
  pm.addPass(prog::createPlanWorkspace());
}

namespace {
/// Prints the module after each pass (with its locations: file:line of the
/// Python operation each op came from), and times each pass: the wall time
/// from runBeforePass to runAfterPass, printing excluded.
struct StageObserver : public PassInstrumentation {
  std::function<void(StringRef, std::string, double)> observe;
  std::vector<std::chrono::steady_clock::time_point> started;
  explicit StageObserver(std::function<void(StringRef, std::string, double)> observe)
      : observe(std::move(observe)) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    if (isa<ModuleOp>(op))
      started.push_back(std::chrono::steady_clock::now());
  }
  void runAfterPass(Pass *pass, Operation *op) override {
    if (!isa<ModuleOp>(op))
      return;
    double seconds = 0;
    if (!started.empty()) {
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started.back())
                    .count();
      started.pop_back();
    }
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os, OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/true));
    observe(pass->getArgument(), std::move(text), seconds);
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    if (isa<ModuleOp>(op) && !started.empty())
      started.pop_back();
  }
};
} // namespace

std::unique_ptr<PassInstrumentation>
makeStageObserver(std::function<void(StringRef, std::string, double)> observe) {
  return std::make_unique<StageObserver>(std::move(observe));
}

/// Tracing names a solver wrapper by a digest of its structure
/// (scaly_qp_<16 hex digits>, scaly_nlp_<...>); the module calls it
/// <module>_qp<k> or <module>_nlp<k>, k counting every wrapper in the order
/// the source declares them, so that two modules linked into one program
/// never share a symbol. Renames the declarations and the calls; returns
/// (traced name, C name) pairs.
static std::vector<std::pair<std::string, std::string>>
nameSolverWrappers(ModuleOp module, StringRef moduleName) {
  auto kindOf = [](StringRef name) -> StringRef {
    for (StringRef kind : {"qp", "nlp"}) {
      StringRef digest = name;
      if (digest.consume_front(("scaly_" + kind + "_").str()) && digest.size() == 16 &&
          llvm::all_of(digest, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); }))
        return kind;
    }
    return "";
  };
  std::vector<std::pair<std::string, std::string>> names;
  llvm::StringMap<std::string> renamed;
  // Declarations sit inside the module's cdecl regions too (functionsIn
  // finds them there).
  for (emitc::FuncOp fn : c::functionsIn(*module.getBody())) {
    StringRef kind = kindOf(fn.getSymName());
    if (!fn.isExternal() || kind.empty())
      continue;
    std::string name = (moduleName + "_" + kind + Twine(names.size())).str();
    names.emplace_back(fn.getSymName().str(), name);
    renamed[fn.getSymName()] = name;
    fn.setSymName(name);
  }
  if (!names.empty())
    module.walk([&](emitc::CallOpaqueOp call) {
      if (auto it = renamed.find(call.getCallee()); it != renamed.end())
        call.setCallee(it->second);
    });
  return names;
}

std::string recipeText(StringRef name, const RenderOptions &o,
                       ArrayRef<std::string> newerGlibcFunctions) {
  std::string march = o.cpu == "generic" ? "" : (o.cpu == "native" ? "-march=native " : "-march=" + o.cpu + " ");
  // Contraction of a*b + c into one FMA changes results (gcc fuses across
  // statements by default, clang within one), so the recipe states it
  // wherever it can matter: fp_contract="off" is spelled out for the
  // baselines with FMA; generic and x86-64-v2 have no FMA instruction, so
  // their commands need no flag and stay as they were.
  bool hasFma = o.cpu != "generic" && o.cpu != "x86-64-v2";
  std::string contract =
      o.fpContract == "off" ? (hasFma ? "-ffp-contract=off " : "") : "-ffp-contract=" + o.fpContract + " ";
  std::string standard = o.dialect == "c99" ? "-std=c99 " : "";
  std::string cpu = o.cpu == "native" ? "host-local native CPU" : o.cpu;
  bool glibc = o.vectorLibm == "glibc";
  std::string mathLibrary = glibc ? "glibc x86-64" : "scalar libm";
  if (glibc && !newerGlibcFunctions.empty())
    mathLibrary += "; " + llvm::join(newerGlibcFunctions, ", ") +
                   (newerGlibcFunctions.size() == 1 ? " requires" : " require") +
                   " glibc >= 2.35";
  std::string lanes = o.lanes == 0 ? "auto" : std::to_string(o.lanes);
  return llvm::formatv("Scaly build recipe\n"
                       " * CPU baseline: {0}\n"
                       " * lanes={1}, dialect={2}, vector_libm={3}, reciprocal={4}\n"
                       " * Math library: {8}\n"
                       " * gcc -O3 {5}{7}{9}-fno-math-errno -c {6}.c\n"
                       " * clang -O3 {5}{7}{9}-fno-math-errno {10}-c {6}.c\n"
                       " * Link with: {11}-lm",
                       cpu, lanes, o.dialect, o.vectorLibm, o.reciprocal ? "True" : "False",
                       march, name, contract, mathLibrary, standard,
                       glibc ? "-fveclib=libmvec " : "", glibc ? "-lmvec " : "")
      .str();
}

/// The glibc vector math functions a lowered module calls that glibc added
/// in 2.35 (the recipe names them).
static std::vector<std::string> newerGlibcFunctions(ModuleOp module) {
  std::set<std::string> names;
  module.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || !isa<VectorType>(op->getResult(0).getType()) ||
        op->getName().getDialectNamespace() != "math")
      return;
    std::string fn = op->getName().stripDialect().str();
    if (c::glibcVectorMathSince(fn) == 235)
      names.insert(fn);
  });
  return {names.begin(), names.end()};
}

namespace {

std::atomic<long> loweredCount{0}, renderedCount{0};
thread_local bool countRenders = true;

/// The ports of each entry, read from its expr.func before lowering.
std::vector<EntryPorts> entryPorts(ModuleOp module) {
  std::vector<EntryPorts> out;
  for (expr::FuncOp root : expr::entryFunctions(module)) {
    EntryPorts e;
    e.name = root.getSymName().str();
    for (auto [t, n] : llvm::zip(root.getArgumentTypes(), root.getArgNames())) {
      auto tt = cast<RankedTensorType>(t);
      e.ins.push_back({cast<StringAttr>(n).str(), SmallVector<int64_t>(tt.getShape()),
                       tt.getElementType()});
    }
    for (auto [k, t, n] :
         llvm::enumerate(root.getResultTypes(), root.getResNames())) {
      auto tt = cast<RankedTensorType>(t);
      DictionaryAttr sparse = {};
      if (auto attrs = root.getResAttrsAttr())
        sparse = cast<DictionaryAttr>(attrs[k]).getAs<DictionaryAttr>("expr.sparse");
      e.outs.push_back({cast<StringAttr>(n).str(), SmallVector<int64_t>(tt.getShape()),
                        tt.getElementType(), sparse});
    }
    out.push_back(std::move(e));
  }
  return out;
}

/// The struct fields of an entry's inputs then outputs: the C names the
/// source gives the ports.
std::vector<std::string> portFields(prog::ProcOp entry, const std::vector<Port> &ins,
                                    const std::vector<Port> &outs,
                                    const std::vector<std::string> &entries) {
  std::vector<std::string> all;
  for (const Port &p : ins)
    all.push_back(p.name);
  for (const Port &p : outs)
    all.push_back(p.name);
  std::vector<std::string> procedures;
  for (auto p : entry->getParentOfType<ModuleOp>().getOps<prog::ProcOp>())
    procedures.push_back(p.getSymName().str());
  return c::portCNames(all, c::moduleNames(entries, procedures));
}

/// Ports as data, with their struct fields and sparse tables.
std::vector<RenderedPort> renderedPorts(const std::vector<Port> &ports,
                                        ArrayRef<std::string> fields) {
  std::vector<RenderedPort> out;
  for (auto [p, field] : llvm::zip(ports, fields)) {
    RenderedPort r{p.name, field, elementCType(p.element),
                   std::vector<int64_t>(p.shape.begin(), p.shape.end()), {}};
    if (p.sparse)
      for (StringRef table : indexTableNames(p.sparse))
        if (int64_t length = indexTable(p.sparse, table).length)
          r.tables.emplace_back(table.upper(), length);
    out.push_back(std::move(r));
  }
  return out;
}

} // namespace

namespace {
thread_local const std::atomic<bool> *renderCancel = nullptr;
} // namespace

CancellableRenders::CancellableRenders(const std::atomic<bool> *flag) { renderCancel = flag; }
CancellableRenders::~CancellableRenders() { renderCancel = nullptr; }
bool renderCancelled() { return renderCancel && renderCancel->load(std::memory_order_relaxed); }

RenderCounters renderCounters() { return {loweredCount.load(), renderedCount.load()}; }
UncountedRenders::UncountedRenders() { countRenders = false; }
UncountedRenders::~UncountedRenders() { countRenders = true; }

namespace {
/// Threads `ctx` (shared by the whole process, single-threaded otherwise:
/// uniquing then takes no locks) for as long as it lives, when `on`.
class ThreadedContext {
public:
  ThreadedContext(MLIRContext *ctx, bool on)
      : ctx(ctx), switched(on && !ctx->isMultithreadingEnabled()) {
    if (switched)
      ctx->enableMultithreading();
  }
  ~ThreadedContext() {
    if (switched)
      ctx->disableMultithreading();
  }
  ThreadedContext(const ThreadedContext &) = delete;
  ThreadedContext &operator=(const ThreadedContext &) = delete;

private:
  MLIRContext *ctx;
  bool switched;
};
} // namespace

namespace {
/// Records which thread of the pool runs each entry's module through the
/// lowering pipeline. All its module passes run on that one thread, which
/// allocates most of its procedures' ops (the passes nested on procedures
/// may run on another thread when one is idle).
class EntryThreads : public PassInstrumentation {
public:
  void runBeforePass(Pass *, Operation *op) override {
    if (!isa<ModuleOp>(op) || !op->getParentOp())
      return;
    std::lock_guard<std::mutex> lock(mutex);
    threads.try_emplace(op, std::this_thread::get_id());
  }
  /// The thread of each procedure of the entries' modules.
  std::shared_ptr<ProcedureThreads> procedures(ModuleOp module) {
    auto made = std::make_shared<ProcedureThreads>();
    std::lock_guard<std::mutex> lock(mutex);
    for (ModuleOp part : module.getOps<ModuleOp>())
      if (auto it = threads.find(part.getOperation()); it != threads.end())
        for (prog::ProcOp proc : part.getOps<prog::ProcOp>())
          (*made)[proc.getOperation()] = it->second;
    return made;
  }

private:
  std::mutex mutex;
  llvm::DenseMap<Operation *, std::thread::id> threads;
};
} // namespace

void eraseRenderedModule(OwningOpRef<ModuleOp> &module) {
  if (!module)
    return;
  // Erasing op by op is a large module's last serial step (17-25 ms for the
  // 8 entries of bench/entries.py): the functions' bodies, each isolated
  // from the others, are freed in parallel first.
  SmallVector<Operation *> functions;
  for (Operation &op : module->getBody()->getOperations())
    if (op.getNumRegions() && !isa_and_nonnull<cdecl::CDeclDialect>(op.getDialect()))
      functions.push_back(&op);
  // A C module's functions sit in its extern "C" block.
  for (emitc::FuncOp fn : c::functionsIn(*module->getBody()))
    if (fn->getParentOp() != module->getOperation())
      functions.push_back(fn);
  if (functions.size() >= 8) {
    MLIRContext *ctx = module->getContext();
    ThreadedContext threads(ctx, true);
    parallelForEach(ctx, functions, [](Operation *op) {
      for (Region &region : op->getRegions()) {
        region.dropAllReferences();
        region.getBlocks().clear();
      }
    });
  }
  module = nullptr;
}

bool verifyEachPass() {
  const char *setting = std::getenv("SCALY_VERIFY_EACH");
  return setting && *setting && StringRef(setting) != "0";
}

std::string printBuiltC(ModuleOp module, StringRef problem, std::string &error) {
  std::string s, diagnostics;
  llvm::raw_string_ostream os(s), diag(diagnostics);
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    diag << d << "\n";
    return success();
  });
  if ((verifyEachPass() && failed(verify(module))) || failed(c::printC(module, os)))
    error = (problem + " (a bug in Scaly): " + diagnostics).str();
  return s;
}

bool renderCModule(ModuleOp module, const RenderOptions &options, RenderedModule &out,
                   std::string &error) {
  MLIRContext *ctx = module.getContext();
  DiagnosticCollector diags(ctx);
  auto fail = [&](StringRef what) {
    error = (what + ":\n" + diags.str()).str();
    return false;
  };
  if (countRenders)
    ++loweredCount;
  auto cancelled = [&] {
    error = "cancelled";
    return false;
  };
  if (renderCancelled())
    return cancelled();
  // Options first: a bad one is refused before the lowering's work.
  if (!options.entrySpecifier.empty() && !cdecl::isIdentifier(options.entrySpecifier))
    return fail("entry_specifier '" + options.entrySpecifier +
                "' is not a C identifier (a macro's name)");
  std::vector<EntryPorts> ports = entryPorts(module);
  // Tables written out (the header's macros, CasADi's sparsities) need their
  // values in the module, not only their lengths.
  for (const EntryPorts &e : ports)
    for (const Port &p : e.outs)
      if (p.sparse)
        for (StringRef table : indexTableNames(p.sparse)) {
          if (!isa_and_nonnull<DenseI32ArrayAttr, IntegerAttr>(p.sparse.get(table)))
            return fail(("output '" + p.name + "' of " + e.name + ": index table '" + table +
                         "' must be its values (array<i32: ...>) or its length (an integer)")
                            .str());
          if ((options.sparseTables || options.casadi) && !indexTable(p.sparse, table).values)
            return fail(("output '" + p.name + "' of " + e.name + ": the module carries the " +
                         "length of its index table '" + table + "', not its values; render " +
                         "it without sparse tables, or build it with them")
                            .str());
        }
  out.stages.clear();
  out.stageSeconds.clear();
  auto record = [&](StringRef stage, std::string text, double seconds) {
    out.stages.emplace_back(stage.str(), std::move(text));
    out.stageSeconds.push_back(seconds);
  };
  if (options.recordStages) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo(true, /*prettyForm=*/true));
    record("input", std::move(text), 0.0);
  }
  // Several entries lower in parallel, each in a module of its own
  // (scaly-outline-entries; the pipeline nested on builtin.module runs on
  // them on the context's threads; scaly-merge-entry-modules). A recording
  // keeps them together, so that each stage shows the whole module.
  // Solver calls keep the entries together: a solve's wrapper is named after
  // the module and numbered in order (<module>_qp0, ...), one numbering for
  // the whole module.
  auto reachesSolver = [&] {
    return module
        .walk([](Operation *op) {
          return isa<expr::QpSolveOp, expr::NlpSolveOp>(op) ? WalkResult::interrupt()
                                                             : WalkResult::advance();
        })
        .wasInterrupted();
  };
  // (The walk only for several entries: a single-entry render, the JIT's, skips it.)
  bool perEntry = ports.size() > 1 && !options.recordStages && !reachesSolver();
  // Outlining and merging only move functions (and merging renames them):
  // the checkpoint below verifies each entry's module, so the whole module
  // is not verified again around them.
  auto runUnverified = [&](std::unique_ptr<Pass> pass) {
    PassManager pm(ctx);
    pm.enableVerifier(false);
    pm.addPass(std::move(pass));
    return pm.run(module);
  };
  // Verifying the whole module after each of the pipeline's twenty passes
  // took about half of a render (bench/entries.py's 8 models rendered one
  // by one: 1118 -> 596 ms without it). The module is verified once after
  // the pipeline instead; SCALY_VERIFY_EACH=1 verifies after every pass, to
  // name the pass that broke it (the test suite sets it).
  bool verifyEach = verifyEachPass();
  PassManager lower(ctx);
  lower.enableVerifier(verifyEach);
  if (options.recordStages)
    lower.addInstrumentation(makeStageObserver(record));
  // Which thread lowers each entry: scaly-program-to-emitc converts a
  // procedure on the thread that allocated its ops (ProcedureThreads.h).
  EntryThreads *entryThreads = nullptr;
  if (perEntry) {
    auto recorder = std::make_unique<EntryThreads>();
    entryThreads = recorder.get();
    lower.addInstrumentation(std::move(recorder));
  }
  buildLoweringPipeline(perEntry ? lower.nest<ModuleOp>() : lower, "", options.scalarizeLimit,
                        options.lanes, options.reciprocal, /*functionPassesOnModule=*/options.recordStages);
  // Threaded from here to the printed C (one thread pool per render): the
  // entries lower, their procedures translate and functions print in parallel.
  ThreadedContext threads(ctx, perEntry);
  LogicalResult lowered = success();
  if (perEntry)
    lowered = runUnverified(expr::createOutlineEntries());
  if (succeeded(lowered))
    lowered = lower.run(module);
  if (failed(lowered))
    return fail("the lowering pipeline (derivatives, plans, lowering, loop passes) failed");
  // The checkpoint: each entry's module on its own (in parallel; a module's
  // verification walks its symbol uses in one thread), before the merge,
  // which only moves and renames functions.
  if (!verifyEach) {
    auto verifyPart = [](ModuleOp part) { return verify(part); };
    LogicalResult valid =
        perEntry ? failableParallelForEach(ctx, llvm::to_vector(module.getOps<ModuleOp>()),
                                           verifyPart)
                 : verify(module);
    if (failed(valid))
      return fail("lowering produced invalid IR (a bug in Scaly: SCALY_VERIFY_EACH=1 names the "
                  "pass)");
  }
  std::shared_ptr<ProcedureThreads> procedureThreads =
      entryThreads ? entryThreads->procedures(module) : nullptr;
  if (perEntry && failed(runUnverified(prog::createMergeEntryModules())))
    return fail("lowering to the program dialect failed");
  if (procedureThreads) {
    // The merge erased the copies it found identical: no key may outlive
    // its procedure.
    ProcedureThreads kept;
    for (prog::ProcOp proc : module.getOps<prog::ProcOp>())
      if (auto it = procedureThreads->find(proc.getOperation()); it != procedureThreads->end())
        kept.insert(*it);
    *procedureThreads = std::move(kept);
  }
  if (renderCancelled())
    return cancelled();
  SmallVector<prog::ProcOp> entries;
  for (const EntryPorts &e : ports) {
    auto proc = SymbolTable::lookupNearestSymbolFrom<prog::ProcOp>(
        module, StringAttr::get(ctx, e.name));
    if (!proc || !proc.getEntry())
      return fail("lowering produced no entry procedure '" + e.name + "'");
    entries.push_back(proc);
    RenderedEntry info;
    info.name = e.name;
    Type wElem = cast<prog::PtrType>(proc.getWorkspaceArg().getType()).getElementType();
    int64_t wBytes = prog::elementBytes(wElem);
    info.workspaceBytes = (proc.getWorkspace() + wBytes - 1) / wBytes * wBytes;
    info.pointerType = elementCType(wElem);
    out.entries.push_back(info);
  }
  if (entries.empty())
    return fail("lowering produced no entry procedure");
  std::vector<CasadiEntry> casadiEntries;
  if (options.casadi) {
    // CasADi's evaluation function takes the entry's name; Scaly's own entry
    // becomes <entry>_scaly, which it calls.
    SymbolTable symbols(module);
    for (auto [proc, e] : llvm::zip(entries, ports)) {
      CasadiEntry c;
      c.name = e.name;
      c.scalyEntry = e.name + "_scaly";
      if (symbols.lookup(c.scalyEntry))
        return fail("casadi=True needs the name '" + c.scalyEntry + "' for the entry of " +
                    e.name + ", but a function of the module already has it");
      if (failed(symbols.rename(proc, StringAttr::get(ctx, c.scalyEntry))))
        return fail("renaming entry '" + e.name + "' failed");
      c.scalyWorkDoubles = (proc.getWorkspace() + 7) / 8;
      auto port = [](const Port &p) -> std::optional<CasadiPort> {
        CasadiPort q{p.name, std::vector<int64_t>(p.shape.begin(), p.shape.end())};
        if (p.sparse) {
          // CasADi exchanges compressed-column values only (Python refuses
          // the other layouts with a clear message first).
          if (p.sparse.getAs<StringAttr>("layout").getValue() != "csc")
            return std::nullopt;
          q.nrow = p.sparse.getAs<IntegerAttr>("nrow").getInt();
          q.ncol = p.sparse.getAs<IntegerAttr>("ncol").getInt();
          IndexTable colind = indexTable(p.sparse, "colind"), row = indexTable(p.sparse, "row");
          if (!colind.values || !row.values)
            return std::nullopt;
          q.colind.assign(colind.values->begin(), colind.values->end());
          q.row.assign(row.values->begin(), row.values->end());
        }
        return q;
      };
      for (const Port &p : e.ins)
        c.ins.push_back(*port(p));
      for (const Port &p : e.outs) {
        auto q = port(p);
        if (!q)
          return fail("casadi=True: output '" + p.name + "' of " + e.name +
                      " is not compressed-column; CasADi takes csc values only");
        c.outs.push_back(std::move(*q));
      }
      casadiEntries.push_back(std::move(c));
    }
  }
  // The fields the header gives the ports (after any casadi renaming: the
  // names of the module's procedures as printed).
  std::vector<std::string> entryNames;
  for (const EntryPorts &e : ports)
    entryNames.push_back(e.name);
  for (auto [info, proc, e] : llvm::zip(out.entries, entries, ports)) {
    std::vector<std::string> fields = portFields(proc, e.ins, e.outs, entryNames);
    info.inputs = renderedPorts(e.ins, ArrayRef(fields).take_front(e.ins.size()));
    info.outputs = renderedPorts(e.outs, ArrayRef(fields).drop_front(e.ins.size()));
  }
  out.name = options.moduleName.empty() ? entries.front().getSymName().str() : options.moduleName;
  out.recipe = recipeText(out.name, options,
                          options.vectorLibm == "glibc" ? newerGlibcFunctions(module)
                                                        : std::vector<std::string>{});
  // CasADi's layer is a module of its own, printed after the model's: the
  // model's function signatures and line records stay the model's alone.
  OwningOpRef<ModuleOp> casadi;
  if (options.casadi) {
    casadi = casadiModule(ctx, casadiEntries);
    if (verifyEach && failed(verify(*casadi)))
      return fail("the CasADi layer is invalid EmitC (a bug in Scaly)");
  }
  // The header: a module of declarations (its CasADi part declares the
  // layer's functions), printed by the C printer.
  OwningOpRef<ModuleOp> header = headerModule(out.name, entries, ports, out.entries, out.recipe,
                                              options, casadi ? *casadi : ModuleOp());
  if (verifyEach && failed(verify(*header)))
    return fail("the header's declarations are invalid (a bug in Scaly)");
  out.header.clear();
  out.header.reserve(headerTablesSize(ports, options));
  {
    llvm::raw_string_ostream headerOs(out.header);
    if (failed(c::printC(*header, headerOs)))
      return fail("printing the header failed");
  }

  if (countRenders)
    ++renderedCount;
  // The EmitC module is verified with SCALY_VERIFY_EACH only: its
  // verification walks every symbol use of the module in one thread (28 ms
  // of an 8-entry render, 8 ms of a Jacobian's), and the conversion is
  // checked after every render of the test suite, which sets it.
  PassManager toC(ctx);
  toC.enableVerifier(verifyEach);
  ProgramToEmitCOptions emitOptions;
  emitOptions.recipe = out.recipe;
  emitOptions.header = options.lang == "c" && options.includeHeader ? out.name + ".h" : "";
  emitOptions.dialect = options.dialect;
  emitOptions.autoLanes = options.lanes == 0;
  emitOptions.vectorLibm = options.vectorLibm;
  if (options.recordStages)
    toC.addInstrumentation(makeStageObserver(record));
  // Each function's size, for the printer's order (several entries only).
  auto functionSizes = procedureThreads ? std::make_shared<FunctionSizes>() : nullptr;
  toC.addPass(createProgramToEmitC(emitOptions, procedureThreads, functionSizes));
  if (failed(toC.run(module)))
    return fail("conversion to EmitC failed");
  if (renderCancelled())
    return cancelled();
  out.solverNames = nameSolverWrappers(module, out.name);
  out.functions = c::functionSignatures(module);
  out.source.clear();
  llvm::raw_string_ostream os(out.source);
  c::PrintOptions printOptions;
  printOptions.lineComments = options.lineComments;
  out.origins.clear();
  out.originsRecorded = options.lineOrigins || options.lineComments || options.recordStages;
  if (out.originsRecorded)
    printOptions.origins = &out.origins;
  printOptions.functionSizes = functionSizes.get();
  if (failed(c::printC(module, os, printOptions)))
    return fail("printing C failed");
  if (casadi) {
    if (failed(c::printC(*casadi, os)))
      return fail("printing the CasADi layer failed");
  }
  if (renderCancelled())
    return cancelled();
  return true;
}

} // namespace scaly::codegen
