//===- scaly-translate.cpp - MLIR in, C module out ------------------------===//
//
// scaly-translate --emit-c file.mlir prints the C module of a module at any
// stage: expression functions are lowered first, program procedures are
// converted to EmitC, and EmitC is printed as C.
//
//===----------------------------------------------------------------------===//

#include "scaly/Target/CEmitter.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  scaly::c::registerEmitCTranslation();
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "Scaly translation driver\n"));
}
