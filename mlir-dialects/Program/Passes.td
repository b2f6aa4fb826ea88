//===- Passes.td - passes on the program dialect -------------*- tablegen -*-===//

#ifndef SCALY_PROGRAM_PASSES
#define SCALY_PROGRAM_PASSES

include "mlir/Pass/PassBase.td"

def PlanWorkspace : Pass<"scaly-plan-workspace", "::mlir::ModuleOp"> {
  let summary = "Give every workspace window an offset at a 64-byte multiple and size each procedure's workspace";
  let dependentDialects = ["::scaly::prog::ProgDialect"];
}

#endif // SCALY_PROGRAM_PASSES
