//===- scaly-translate.cpp - MLIR in, C module out ------------------------===//
//
// scaly-translate --emit-c file.mlir prints the C module of a module at any
// stage: expression functions are lowered first, program procedures are
// converted to EmitC, and EmitC is printed as C. The translation and its
// command-line option live here, in the tool: Scaly's shared libraries
// define no global command-line options.
//
//===----------------------------------------------------------------------===//

#include "scaly/Codegen/RenderModule.h"
#include "scaly/Codegen/WasmShim.h"
#include "scaly/Conversion/Passes.h"
#include "scaly/Dialect/Program/Passes.h"
#include "scaly/InitScaly.h"
#include "scaly/Target/CEmitter.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

using namespace mlir;

static llvm::cl::opt<std::string> recipeOption(
    "recipe-cpu", llvm::cl::desc("CPU baseline named in the recipe comment (generic, native, ...)"),
    llvm::cl::init("generic"));

static llvm::cl::opt<std::string> lanesOption(
    "lanes", llvm::cl::desc("vector lanes of the recipe: 1, 2, 4, 8 or auto"), llvm::cl::init("1"));
static llvm::cl::opt<std::string> vectorLibmOption(
    "vector-libm", llvm::cl::desc("math on lanes: none or glibc"), llvm::cl::init("none"));
static llvm::cl::opt<std::string> dialectOption(
    "dialect", llvm::cl::desc("C dialect: gnu or c99"), llvm::cl::init("gnu"));
static llvm::cl::opt<bool> reciprocalOption(
    "reciprocal", llvm::cl::desc("divide by invariant divisors through reciprocals"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> lineCommentsOption(
    "line-comments",
    llvm::cl::desc("put /* file:line */ comments (the ops' locations) above the C statements"),
    llvm::cl::init(false));

/// The recipe options, checked; nullopt (after a message) when one is bad.
static std::optional<scaly::codegen::RenderOptions> recipeOptions() {
  scaly::codegen::RenderOptions options;
  options.cpu = recipeOption;
  if (lanesOption == "auto")
    options.lanes = 0;
  else if (lanesOption == "1" || lanesOption == "2" || lanesOption == "4" || lanesOption == "8")
    options.lanes = std::stoi(lanesOption);
  else {
    llvm::errs() << "--lanes=" << lanesOption << " is not one of 1, 2, 4, 8, auto\n";
    return std::nullopt;
  }
  if (vectorLibmOption != "none" && vectorLibmOption != "glibc") {
    llvm::errs() << "--vector-libm=" << vectorLibmOption << " is not one of none, glibc\n";
    return std::nullopt;
  }
  if (dialectOption != "gnu" && dialectOption != "c99") {
    llvm::errs() << "--dialect=" << dialectOption << " is not one of gnu, c99\n";
    return std::nullopt;
  }
  options.vectorLibm = vectorLibmOption;
  options.dialect = dialectOption;
  options.reciprocal = reciprocalOption;
  return options;
}

static LogicalResult emitC(ModuleOp module, llvm::raw_ostream &os) {
  std::optional<scaly::codegen::RenderOptions> options = recipeOptions();
  if (!options)
    return failure();
  bool hasExpr = !module.getOps<scaly::expr::FuncOp>().empty();
  bool hasProc = !module.getOps<scaly::prog::ProcOp>().empty();
  if (hasExpr) {
    PassManager pm(module.getContext());
    scaly::codegen::buildLoweringPipeline(pm, "", 64, options->lanes, options->reciprocal);
    if (failed(pm.run(module)))
      return failure();
    hasProc = true;
  }
  if (hasProc) {
    StringRef name = "module";
    for (auto proc : module.getOps<scaly::prog::ProcOp>())
      if (proc.getEntry())
        name = proc.getSymName();
    PassManager pm(module.getContext());
    // A module straight from scaly-lower-to-program still holds its loop
    // nests as scf.parallel: their loops are generated first (nothing
    // changes in a module whose loops are).
    for (std::unique_ptr<Pass> &pass : scaly::codegen::loopGenerationPasses())
      pm.addPass(std::move(pass));
    scaly::ProgramToEmitCOptions emitOptions;
    emitOptions.recipe = scaly::codegen::recipeText(name, *options);
    emitOptions.header = (name + ".h").str();
    emitOptions.dialect = options->dialect;
    emitOptions.autoLanes = options->lanes == 0;
    emitOptions.vectorLibm = options->vectorLibm;
    pm.addPass(scaly::createProgramToEmitC(emitOptions));
    if (failed(pm.run(module)))
      return failure();
  }
  scaly::c::PrintOptions printOptions;
  printOptions.lineComments = lineCommentsOption;
  return scaly::c::printC(module, os, printOptions);
}

static llvm::cl::opt<std::string> moduleNameOption(
    "module-name", llvm::cl::desc("--emit-wasm-shim: name of the module's files (default: the "
                                  "first entry's name)"),
    llvm::cl::init(""));

/// The WebAssembly shim of an expression module (scaly.wasm.build's
/// <module>_wasm.c): the module is rendered as render_c_module would, and
/// the shim printed for its entries.
static LogicalResult emitWasmShim(ModuleOp module, llvm::raw_ostream &os) {
  std::optional<scaly::codegen::RenderOptions> options = recipeOptions();
  if (!options)
    return failure();
  if (module.getOps<scaly::expr::FuncOp>().empty())
    return module.emitError("--emit-wasm-shim needs an expression module (expr.func entries); "
                            "the shim is printed from what rendering them yields");
  // scaly.wasm.build's recipes: lanes 1, 2 or 4, no vector math, generic CPU.
  bool lanesOk = options->lanes == 1 || options->lanes == 2 || options->lanes == 4;
  if (!lanesOk || options->vectorLibm != "none" || options->cpu != "generic")
    return module.emitError("--emit-wasm-shim renders as scaly.wasm.build does: --lanes=1, 2 "
                            "or 4, --vector-libm=none, --recipe-cpu=generic (got --lanes=" +
                            lanesOption + ", --vector-libm=" + vectorLibmOption +
                            ", --recipe-cpu=" + recipeOption + ")");
  options->moduleName = moduleNameOption;
  scaly::codegen::RenderedModule out;
  std::string error;
  if (!scaly::codegen::renderCModule(module, *options, out, error))
    return module.emitError(error);
  std::string problem = scaly::codegen::wasmNameProblem(out);
  if (!problem.empty())
    return module.emitError(problem);
  std::string shim = scaly::codegen::renderWasmShim(out, error);
  if (!error.empty())
    return module.emitError(error);
  os << shim;
  return success();
}

static void registerEmitCTranslation() {
  TranslateFromMLIRRegistration shim(
      "emit-wasm-shim", "print the WebAssembly export shim of a Scaly expression module",
      emitWasmShim, [](DialectRegistry &registry) { scaly::registerScalyDialects(registry); });
  TranslateFromMLIRRegistration reg(
      "emit-c", "print a Scaly module (expr, prog or EmitC) as a C module", emitC,
      [](DialectRegistry &registry) { scaly::registerScalyDialects(registry); });
}

int main(int argc, char **argv) {
  registerEmitCTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Scaly translation driver\n"));
}
