//===- scaly-lsp-server.cpp - language server for Scaly IR files ----------===//
//
// MLIR's language server (diagnostics, go-to-definition, hover, references,
// document symbols, code completion) for .mlir files holding Scaly IR: the
// expr and prog dialects and the upstream ones Scaly's lowering produces
// (arith, math, vector, emitc). Editors start it as they would
// mlir-lsp-server; see docs/design.md, "Editor support".
//
//===----------------------------------------------------------------------===//

#include "scaly/InitScaly.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

#include <cstdlib>

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  scaly::registerScalyDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry)) ? EXIT_FAILURE : EXIT_SUCCESS;
}
