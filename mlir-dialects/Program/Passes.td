//===- Passes.td - passes on the program dialect -------------*- tablegen -*-===//

#ifndef SCALY_PROGRAM_PASSES
#define SCALY_PROGRAM_PASSES

include "mlir/Pass/PassBase.td"

def PlanWorkspace : Pass<"scaly-plan-workspace", "::mlir::ModuleOp"> {
  let summary = "Give every workspace window an offset at a 64-byte multiple and size each procedure's workspace";
  let dependentDialects = ["::scaly::prog::ProgDialect"];
}

def WidenLanes : Pass<"scaly-widen-lanes", "::mlir::ModuleOp"> {
  let summary = "Widen innermost loops of independent iterations to lanes-wide vector iterations plus a scalar remainder";
  let description = [{
    An innermost `prog.for` (step 1) whose iterations are independent
    becomes a loop of `lanes`-wide iterations over `vector<lanes x T>`
    values, followed by the original loop for the remaining iterations.
    Values that do not change across the iterations stay scalars; loads and
    stores through pointers advanced by the counter read and write one
    element per lane, `stride` apart. A loop is left alone when its body
    holds nested control flow, calls, reductions or matrix products, an
    operation on the lanes other than float arithmetic and math, or two
    accesses of one buffer that may touch the same element in different
    iterations. Widened loops carry `scaly.lanes`.
  }];
  let options = [Option<"lanes", "lanes", "int64_t", "8", "elements per vector iteration (2, 4 or 8)">];
  let dependentDialects = ["::scaly::prog::ProgDialect", "::mlir::vector::VectorDialect"];
}

def Reciprocal : Pass<"scaly-reciprocal", "::mlir::ModuleOp"> {
  let summary = "Divide by a constant or loop-invariant divisor as a multiplication by its reciprocal (recipe reciprocal=True)";
  let description = [{
    `x / d` becomes `x * (1 / d)` when d is a constant or does not change
    across the iterations of the innermost loop the division is in; 1 / d is
    computed once, right after d. Each quotient may then differ from the
    correctly rounded one by up to about 1.5 ulp, and overflows where 1 / d
    does (|d| below about 5.6e-309 in float64). Nothing else changes.
  }];
  let dependentDialects = ["::scaly::prog::ProgDialect", "::mlir::arith::ArithDialect"];
}

#endif // SCALY_PROGRAM_PASSES
