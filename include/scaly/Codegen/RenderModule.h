//===- RenderModule.h - expression module to C source and header --*- C++ -*-===//
#ifndef SCALY_CODEGEN_RENDERMODULE_H
#define SCALY_CODEGEN_RENDERMODULE_H

#include "scaly/Target/CEmitter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include <atomic>
#include <string>

namespace scaly::codegen {

/// The build recipe a module is rendered for (seed 000, "Build recipe").
struct RenderOptions {
  std::string cpu = "generic";
  /// Elements per vector iteration of widened loops: 1 (no widening), 2, 4,
  /// 8, or 0 for "auto" (the preprocessor picks 2, 4 or 8).
  int lanes = 1;
  std::string dialect = "gnu";
  std::string vectorLibm = "none";
  /// Divide by constant and loop-invariant divisors through their
  /// reciprocal (scaly-reciprocal).
  bool reciprocal = false;
  std::string lang = "c";
  /// Arrays with at most this many elements become one scalar per element;
  /// larger ones lower to loops.
  int64_t scalarizeLimit = 64;
  /// Floating-point contraction (a*b + c as one FMA): "off" (the results of
  /// the written operations, as NumPy computes them) or "fast" (the
  /// compilers' -ffp-contract=fast).
  std::string fpContract = "off";
  /// Name of the module's files and header guard (empty: the first entry's).
  std::string moduleName;
  /// Also export CasADi's external function API for each entry (whose own
  /// five-argument entry is then named <entry>_scaly); float64 ports only.
  bool casadi = false;
  /// Record the IR before the first pass and after every pass
  /// (RenderedModule::stages), through MLIR's pass instrumentation.
  bool recordStages = false;
  /// Write the sparse outputs' index tables into the header as macros
  /// (<entry>_<out>_COLIND and the like). The JIT leaves them out: the
  /// source never uses them, and at n = 10^5 they are megabytes to render,
  /// hash, write and lex; its Python side holds the pattern as arrays.
  bool sparseTables = true;
  /// Put `/* model.py:12 */` comments above the C statements (printC's
  /// lineComments).
  bool lineComments = false;
  /// Fill RenderedModule::origins (also done with lineComments and
  /// recordStages).
  bool lineOrigins = false;
  /// A specifier the header puts before each entry's declaration (a macro
  /// name: the solver wrapper unit's SCALY_WRAPPER_HIDDEN, which hides its
  /// NLP oracles; the definition takes the declaration's visibility).
  std::string entrySpecifier;
  /// Whether the source starts by including its header. The wrapper unit
  /// puts the oracles' header text right before their source instead.
  bool includeHeader = true;
};

/// One input or output of an entry as the header declares it.
struct RenderedPort {
  /// The Python name, and the field of the typed <entry>_in/_out struct.
  std::string name, field;
  /// Element type in C (double, float, int32_t, int64_t, uint8_t for bool).
  std::string cType;
  std::vector<int64_t> shape;
  /// A sparse output's index tables, by the suffix of their header macro
  /// (<entry>_<field>_<TABLE>), with their lengths; empty when dense.
  std::vector<std::pair<std::string, int64_t>> tables;
};

/// What the runtime needs of one exported entry, as data.
struct RenderedEntry {
  std::string name;
  std::vector<RenderedPort> inputs, outputs;
  /// Bytes of `w` the entry needs (SZ_W elements of its pointer type).
  int64_t workspaceBytes = 0;
  /// The C type the entry's pointers point to: double, float or void.
  std::string pointerType;
};

struct RenderedModule {
  /// The module's name: its files are <name>.c and <name>.h.
  std::string name;
  std::vector<RenderedEntry> entries;
  /// Every function the source defines, entries and procedures, in order.
  std::vector<c::FunctionSignature> functions;
  std::string source;
  std::string header;
  /// The recipe comment that opens both files.
  std::string recipe;
  /// With RenderOptions::recordStages: (stage, IR text) in pipeline order,
  /// from "input" (the traced expression module) through every pass.
  std::vector<std::pair<std::string, std::string>> stages;
  /// The wall time of each stage's pass in seconds, parallel to `stages`
  /// ("input" is 0).
  std::vector<double> stageSeconds;
  /// With RenderOptions::lineOrigins (or lineComments, recordStages): the
  /// source lines of each statement of `source`, by C line.
  std::vector<c::StatementOrigin> origins;
  /// Whether the render recorded `origins` (else they are empty, not absent).
  bool originsRecorded = false;
  /// The solver wrappers the source calls: (the name tracing gave it, its C
  /// name in this module), in the order the source declares them.
  std::vector<std::pair<std::string, std::string>> solverNames;
};

/// The lowering pipeline from the expression dialect to the program dialect:
/// roll-call-chains, roll-repeats, differentiate, map-to-loop, expand-calls,
/// simplify (on each expr.func), drop-unused-results, then on each expr.func
/// cse, hoist-invariants, plan-fusion, plan-placement, plan-loop-orders (after
/// placement: a transposed copy's stores depend on where its result goes);
/// lower-to-program,
/// then on each prog.proc the loop generation passes (loopGenerationPasses),
/// canonicalize-program, cse, loop-invariant-code-motion, with
/// `reciprocal` reciprocal, with `lanes` > 1 (or 0, auto: 8) widen-lanes;
/// split-long-procs and plan-workspace. Each run of function passes is one
/// nested pipeline, or with `functionPassesOnModule` runs on the module (the
/// same result; a stage observer then records the module after every pass,
/// which renderCModule's record_stages does). (renderCModule nests
/// it on each entry's module, between outline-entries and
/// merge-entry-modules, for a module of several.)
/// The passes that turn the loop nests scaly-lower-to-program emits
/// (scf.parallel) into loops, in order: accumulate-rows, tile-copies,
/// sum-in-blocks (loop transformations on the nests), parallel-to-loops.
/// Each reads and changes one procedure.
llvm::SmallVector<std::unique_ptr<mlir::Pass>> loopGenerationPasses();

void buildLoweringPipeline(mlir::OpPassManager &pm, llvm::StringRef entry = "",
                           int64_t scalarizeLimit = 64, int64_t lanes = 1,
                           bool reciprocal = false, bool functionPassesOnModule = false);

/// Pass instrumentation that calls `observe(pass argument, IR, seconds)` after
/// every pass that runs on a module (the hook the visualizer records through);
/// `seconds` is the pass's wall time, the printing of the IR not included.
std::unique_ptr<mlir::PassInstrumentation>
makeStageObserver(std::function<void(llvm::StringRef, std::string, double)> observe);

/// Recipe comment text (without /* */) for `name` and `options`.
/// `newerGlibcFunctions`: vector math the module calls that needs glibc >= 2.35.
std::string recipeText(llvm::StringRef name, const RenderOptions &options,
                       llvm::ArrayRef<std::string> newerGlibcFunctions = {});

/// Erases a module renderCModule is done with; a large one's functions are
/// freed in parallel.
void eraseRenderedModule(mlir::OwningOpRef<mlir::ModuleOp> &module);

/// Whether renders verify the module after every pass of the lowering
/// pipeline (SCALY_VERIFY_EACH set and not "0"); otherwise once, after it.
bool verifyEachPass();

/// A module of C built by hand (the WebAssembly shim, the solver wrappers)
/// as C; with SCALY_VERIFY_EACH (the test suite's setting) it is verified
/// first. A failure of either is a bug in Scaly: `error` gets `problem`
/// ("the shim is invalid EmitC or has no C form") and the diagnostics.
std::string printBuiltC(mlir::ModuleOp module, llvm::StringRef problem, std::string &error);

/// Lower, convert and print `exprModule` (consumed). On failure returns
/// false and puts the diagnostics in `error`.
bool renderCModule(mlir::ModuleOp exprModule, const RenderOptions &options, RenderedModule &out,
                   std::string &error);

/// How many times this process lowered and rendered a module (tests use
/// these to prove that a cache hit did neither).
struct RenderCounters {
  long lowered = 0;
  long rendered = 0;
};
RenderCounters renderCounters();
/// While alive, renders on this thread are not counted (the JIT's warm-up).
struct UncountedRenders {
  UncountedRenders();
  ~UncountedRenders();
};

/// While alive, renders on this thread stop early, failing with the error
/// "cancelled", once `*flag` is true (checked between the stages of a render:
/// expanding, lowering, converting, printing each procedure).
struct CancellableRenders {
  explicit CancellableRenders(const std::atomic<bool> *flag);
  ~CancellableRenders();
};
/// Whether the render running on this thread was asked to stop.
bool renderCancelled();


} // namespace scaly::codegen

#endif
