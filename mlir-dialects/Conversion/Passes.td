//===- Passes.td - conversions between Scaly's dialects ------*- tablegen -*-===//

#ifndef SCALY_CONVERSION_PASSES
#define SCALY_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def LowerToProgram : Pass<"scaly-lower-to-program", "::mlir::ModuleOp"> {
  let summary = "Lower expression functions to program procedures over pointers (expr.loop becomes scf.for)";
  let description = [{
    The entry is the expr.func named by `entry` (default: the first one).
    Every element of a small array becomes a scalar SSA value; values that
    must live in memory (operands of kept calls, loops and solvers, of a
    matrix product of a large operand, a reduction's operand, a large
    gather's source) and have none spill to workspace windows. The body of an expr.fused
    (scaly-form-fused-ops) is computed in the loops that read its value;
    any other large value is stored once. A `scaly.fused` mark outside an
    expr.fused, and a large reduction over several axes that are not the
    trailing ones, are refused, naming the pass that handles them
    (scaly-form-fused-ops, scaly-move-reduced-axes-last). Where values live is scaly-plan-placement's plan,
    which the lowering follows and requires: expr.place on each op,
    expr.next on each loop with carried values (a next value built in a
    window or as scalars), and the limit the function was planned with
    (expr.scalarize_limit on the expr.func), which is also the lowering's:
    arrays of at most that many elements are read and written element by
    element, larger ones by loops. The lowering has no limit option, so
    the plan and the lowering cannot disagree.
  }];
  let options = [Option<"entry", "entry", "std::string", "\"\"", "name of the exported function">];
  let dependentDialects = ["::scaly::prog::ProgDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect", "::mlir::scf::SCFDialect"];
}

def ProgramToEmitC : Pass<"scaly-program-to-emitc", "::mlir::ModuleOp"> {
  let summary = "Convert program procedures to EmitC functions with the pointer ABI, status codes and module layout";
  let options = [
    Option<"recipe", "recipe", "std::string", "\"\"", "build recipe comment text (without comment markers)">,
    Option<"header", "header", "std::string", "\"\"", "header file to include first (empty: none)">,
    Option<"dialect", "dialect", "std::string", "\"gnu\"", "C dialect: gnu (vector extensions) or c99 (none)">,
    Option<"autoLanes", "auto-lanes", "bool", "false", "print widened loops for SCALY_LANES, a width the preprocessor picks (lanes=auto)">,
    Option<"vectorLibm", "vector-libm", "std::string", "\"none\"", "math on lane vectors: none (libm lane by lane) or glibc (libmvec)">
  ];
  let dependentDialects = ["::mlir::emitc::EmitCDialect", "::scaly::cdecl::CDeclDialect"];
}

#endif // SCALY_CONVERSION_PASSES
