//===- InitScaly.cpp - register Scaly's dialects and passes ---------------===//

#include "scaly/InitScaly.h"

#include "scaly/Codegen/RenderModule.h"
#include "scaly/Conversion/Passes.h"
#include "scaly/Dialect/CDecl/CDeclDialect.h"
#include "scaly/Dialect/Expr/Passes.h"
#include "scaly/Dialect/Program/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

void scaly::registerScalyDialects(mlir::DialectRegistry &registry) {
  registry.insert<expr::ExprDialect, prog::ProgDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::scf::SCFDialect, mlir::vector::VectorDialect,
                  mlir::emitc::EmitCDialect, cdecl::CDeclDialect>();
}

void scaly::registerScalyPasses() {
  expr::registerExprPasses();
  prog::registerProgramPasses();
  registerConversionPasses();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerLoopInvariantCodeMotionPass();
  mlir::PassPipelineRegistration<>(
      "scaly-lower", "The whole lowering from the expression to the program dialect",
      [](mlir::OpPassManager &pm) { codegen::buildLoweringPipeline(pm); });
}
