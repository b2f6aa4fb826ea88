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

static LogicalResult emitC(ModuleOp module, llvm::raw_ostream &os) {
  bool hasExpr = !module.getOps<scaly::expr::FuncOp>().empty();
  bool hasProc = !module.getOps<scaly::prog::ProcOp>().empty();
  if (hasExpr) {
    PassManager pm(module.getContext());
    scaly::codegen::buildLoweringPipeline(pm);
    if (failed(pm.run(module)))
      return failure();
    hasProc = true;
  }
  if (hasProc) {
    StringRef name = "module";
    for (auto proc : module.getOps<scaly::prog::ProcOp>())
      if (proc.getEntry())
        name = proc.getSymName();
    scaly::codegen::RenderOptions options;
    options.cpu = recipeOption;
    PassManager pm(module.getContext());
    scaly::ProgramToEmitCOptions emitOptions;
    emitOptions.recipe = scaly::codegen::recipeText(name, options);
    emitOptions.header = (name + ".h").str();
    pm.addPass(scaly::createProgramToEmitC(emitOptions));
    if (failed(pm.run(module)))
      return failure();
  }
  return scaly::c::printC(module, os);
}

static void registerEmitCTranslation() {
  TranslateFromMLIRRegistration reg(
      "emit-c", "print a Scaly module (expr, prog or EmitC) as a C module", emitC,
      [](DialectRegistry &registry) { scaly::registerScalyDialects(registry); });
}

int main(int argc, char **argv) {
  registerEmitCTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Scaly translation driver\n"));
}
