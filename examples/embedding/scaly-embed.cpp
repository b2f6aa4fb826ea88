//===- scaly-embed.cpp - an MLIR tool that embeds an installed Scaly ------===//
//
// Registers Scaly's dialects and passes next to upstream ones, parses a
// module, runs a pass pipeline on it (by default Scaly's whole lowering, then
// the conversion to EmitC) and prints the C, or the IR when the pipeline
// stops before EmitC:
//
//   scaly-embed model.mlir [pipeline]
//
//===----------------------------------------------------------------------===//

#include "scaly/InitScaly.h"
#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: scaly-embed <file.mlir> [pass pipeline]\n";
    return 2;
  }
  mlir::DialectRegistry registry;
  scaly::registerScalyDialects(registry);
  registry.insert<mlir::func::FuncDialect>(); // an upstream dialect beside Scaly's
  scaly::registerScalyPasses();
  mlir::registerSymbolDCEPass(); // an upstream pass beside Scaly's

  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1; // the parser has printed why

  std::string pipeline =
      argc == 3 ? argv[2] : "scaly-lower,scaly-program-to-emitc";
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(pipeline, pm, llvm::errs())))
    return 1;
  if (mlir::failed(pm.run(*module)))
    return 1;
  // C once the pipeline has reached EmitC (and Scaly's cdecl ops for what
  // EmitC cannot say); the IR where it stopped before.
  bool allEmitC = llvm::all_of(module->getBody()->getOperations(), [](mlir::Operation &op) {
    llvm::StringRef ns = op.getDialect() ? op.getDialect()->getNamespace() : "";
    return ns == "emitc" || ns == "cdecl";
  });
  if (!allEmitC) {
    module->print(llvm::outs());
    return 0;
  }
  return mlir::failed(scaly::c::printC(*module, llvm::outs())) ? 1 : 0;
}
