//===- scaly-opt.cpp - run Scaly's passes on MLIR files ------------------===//
//
// Every Scaly pass (and canonicalize, cse) runs alone from here, for pass
// debugging and lit tests: scaly-opt --scaly-map-to-loop file.mlir
//
//===----------------------------------------------------------------------===//

#include "scaly/InitScaly.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  scaly::registerScalyDialects(registry);
  scaly::registerScalyPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Scaly optimizer driver\n", registry));
}
