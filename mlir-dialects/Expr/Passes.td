//===- Passes.td - passes on the expression dialect ----------*- tablegen -*-===//

#ifndef SCALY_EXPR_PASSES
#define SCALY_EXPR_PASSES

include "mlir/Pass/PassBase.td"

def Differentiate : Pass<"scaly-differentiate", "::mlir::ModuleOp"> {
  let summary = "Replace each expr.jvp and expr.vjp by a call of a generated forward or reverse derivative function, built from every op's derivative rule";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def RollCallChains : Pass<"scaly-roll-call-chains", "::mlir::ModuleOp"> {
  let summary = "Turn a chain of at least 16 calls of one function, each taking the previous one's first result first and a same value or the next evenly spaced slice of one array otherwise, into one expr.scan";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def RollRepeats : Pass<"scaly-roll-repeats", "::mlir::ModuleOp"> {
  let summary = "Turn a run of at least min-iterations identical copies of a few operations, each reading the copy before (a plain Python loop, traced unrolled), into one expr.scan of a function holding one copy";
  let description = [{
    Copy t of a run must match copy t-1 operation by operation; each operand
    is a value of the same copy, of the copy before (carried state, whose
    initial values copy 0 reads from before the run), or one value from
    before the run read by every copy (passed whole). A value used beyond
    the next copy ends the run there; the last copy's values used after the
    run come from the scan's final state. Several carried values are packed
    into one vector (one element type, else no roll). Operations with
    regions or side effects are never rolled. Linear in the function's size.
  }];
  let options = [
    Option<"minIterations", "min-iterations", "int64_t", "16", "fewest copies rolled">,
    Option<"minOps", "min-ops", "int64_t", "512", "fewest operations (copies times period) rolled">,
    Option<"maxPeriod", "max-period", "int64_t", "256", "most operations in one copy">,
  ];
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def MapToLoop : Pass<"scaly-map-to-loop", "::mlir::ModuleOp"> {
  let summary = "Turn each expr.map and expr.scan into an expr.loop whose body calls the function (a scan carries its state)";
  let description = [{
    A module pass: each map or scan reads its callee's signature (argument
    and result types, names), another function of the module, which a pass
    nested on functions must not look at while others run on it.
  }];
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def ExpandCalls : Pass<"scaly-expand-calls", "::mlir::ModuleOp"> {
  let summary = "Inline every expr.call without the block hint and drop functions left unused";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def DropUnusedResults : Pass<"scaly-drop-unused-results", "::mlir::ModuleOp"> {
  let summary = "Remove each result of a kept (non-entry) function that no call uses, from the function and its calls, with the work that fed only it";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def HoistInvariants : Pass<"scaly-hoist-invariants"> {
  let summary = "Move ops of an expr.loop body whose operands are all defined outside the loop before it, through its LoopLikeOpInterface (constants stay), and split off the part of an inner loop invariant in its outer loop";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def Simplify : Pass<"scaly-simplify"> {
  let summary = "Algebraic simplification and constant folding of expressions (x*1, x+0, --x, gather of gather) and the canonicalization patterns of expr ops (dead results of expr.loop)";
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

def PlanFusion : Pass<"scaly-plan-fusion"> {
  let summary = "Mark each op whose large result its consumers compute where they read it (scaly.fused): views unless their one reader reads memory, an elementwise op, concatenation or gather when its result has one use";
  let description = [{
    Arrays above `scalarize-limit` elements lower to loops. A marked op is
    never stored on its own: scaly-form-fused-ops groups the marked ops into
    expr.fused ops, whose elements scaly-lower-to-program computes in the
    loop of each consumer (a chain of single-use elementwise ops is one
    loop); it stores the large values without the mark, and a marked one
    only where a reader needs it in memory (a view that a matrix product and
    an elementwise op both read). Broadcast,
    transpose and slice are marked whatever their uses, except one whose
    only reader reads it from memory (stored where it is made); reshape never (it reads its
    operand's storage, or is read through when its operand is). A value
    whose one consumer reads it from memory (a gather, a matrix product, a
    call, a loop, a solver; a reduction over
    trailing axes or one axis, not by row accumulation, nor a float sum of
    every element of more than one block of 8192, which computes it block
    by block) is not marked: the lowering stores it. Marks left by an earlier run are recomputed.
  }];
  let options = [Option<"scalarizeLimit", "scalarize-limit", "int64_t", "64",
                        "arrays with at most this many elements are scalarized (never marked)">];
}

def PlanLoopOrders : Pass<"scaly-plan-loop-orders"> {
  let summary = "Mark the loop orders that avoid large strides, which the loop passes on the lowering's nests execute (scaly-accumulate-rows, scaly-tile-copies): scaly.loop_order = `rows` on a reduction over one axis that is not the last into a large result (row accumulation), expr.copy_plan on an op whose large float result is computed through a transpose that moves the last axis (register blocks: block shape, stores, loop order)";
  let description = [{
    Row accumulation copies the first row into the result and combines each
    later row into it with a contiguous inner loop (NumPy's order, so its
    sums bit for bit), where one loop per result axis would read with a
    large stride. It applies to a reduction over one axis that is not the
    last, of at least two rows of at least two contiguous elements, whose
    operand and result are above `scalarize-limit`.

    A float result above `scalarize-limit` of at least 4 x 4 in its last two
    axes, computed with arithmetic only (add, sub, mul, div, neg, cast, cmp,
    select; no libm call) from views, constants and stored values through a
    transpose that moves the last axis (`X.T + 0`, `2 * X.T - Y`), gets an
    expr.copy_plan: register blocks of its last two axes, each block row one
    store. Below `stream-bytes`, or when it is not an output:
    `{block = [4, 4], order = "rows", stores = "plain"}`. An output of at
    least `stream-bytes` whose rows are whole 64-byte lines: streamed lines
    under a run-time test that the output is 64-byte aligned, in 8 x 8
    blocks rows outermost for doubles up to `cached-bytes`, else blocks of 4
    rows by one line columns outermost; `unaligned` (the test's other
    branch) and any other output of at least `stream-bytes`: 4 x 4 blocks
    with element-aligned streaming stores, in tiles of `tile-columns`
    columns, `order = "tiles"`. Reading "through arithmetic only" follows
    scaly-plan-fusion's scaly.fused marks (a view read several times counts
    as possibly stored too); the lowering checks it again when it writes the
    value, hands the plan to the nest that writes it (scaly.copy_plan, which
    scaly-tile-copies executes) and leaves the plain nest where it no
    longer holds (a transpose a
    matrix product stored first is read contiguously). Needs
    scaly-plan-placement's expr.place on each op it plans (an error
    otherwise). Marks left by an earlier run are recomputed.
  }];
  let options = [
    Option<"scalarizeLimit", "scalarize-limit", "int64_t", "64",
           "arrays with at most this many elements are scalarized (never marked)">,
    Option<"streamBytes", "stream-bytes", "int64_t", "1 << 20",
           "outputs from this many bytes up are streamed past the caches (default 1 MiB, half the "
           "development machine's 2 MiB L2: a smaller result is likely still in cache when its "
           "consumer reads it)">,
    Option<"cachedBytes", "cached-bytes", "int64_t", "16 << 20",
           "streamed double outputs with rows of whole lines up to this many bytes go rows "
           "outermost in 8 x 8 blocks (default 16 MiB, half the development machine's 32 MiB "
           "last-level cache: their source is likely still in cache, so the strided side is "
           "the reads; larger ones go columns outermost)">,
    Option<"tileColumns", "tile-columns", "int64_t", "256",
           "columns per tile of element-aligned streamed blocks, a positive multiple of 4 "
           "(default 256: the 256 source rows of 32 bytes a block row reads, 8 KiB, stay in "
           "the first-level cache from one block row to the next)">];
}

def PlanPlacement : Pass<"scaly-plan-placement"> {
  let summary = "Mark expr.place on each op: per result, the output or loop slice (at an offset) it is produced in, else a workspace window or registers; expr.next on loops (where next values are built) and the limit on each function";
  let description = [{
    Destination passing, decided before lowering: a returned value, a
    yielded one (a stacked result's slice, a large carried value's next
    window), a reshape's single-use operand and the single-use parts of a
    leading-axis concatenation (at their offsets) are produced where they
    end (a small value only when it is then in memory there: a call's or a
    loop's result, a stack of such). Every other result is planned into a
    workspace window if it may need memory (results of calls, solvers and
    loops, values above `scalarize-limit`, a matrix product of a large
    operand), else into registers. Each expr.loop with carried values gets
    expr.next, one #expr.place per carried value: `workspace` when it is
    above `scalarize-limit` (its next value is built in a window of its own,
    the one its `yield K` operand is produced in, then copied over it),
    else `registers` (scalars, stored over it once all are read). Each
    expr.func gets `expr.scalarize_limit`, the limit the plans follow,
    which the lowering reads as its own (it has no option for it).
    scaly-lower-to-program reads the plan (registers: scalars; anything
    else: loops, into the planned memory) and refuses a function without
    one. Plans left by an earlier run are recomputed.
  }];
  let options = [Option<"scalarizeLimit", "scalarize-limit", "int64_t", "64",
                        "arrays with at most this many elements are scalarized (registers); recorded on each function for the lowering">];
}

def MoveReducedAxesLast : Pass<"scaly-move-reduced-axes-last"> {
  let summary = "Give a large reduction over several axes that are not the trailing ones a transpose of its operand with them last (planned into a workspace window: stored), so it reduces trailing axes";
  let description = [{
    The reduction helpers read a contiguous run, or one strided run (one
    axis). A reduction of an operand above the function's
    expr.scalarize_limit over several axes that are not the trailing ones
    reads neither: it reduces instead a transpose with the kept axes first
    and the reduced ones last, in order, planned #expr.place<workspace>
    (unmarked: stored), and its axes become the trailing ones. The lowering
    stores that transpose where it is made (one nest in the transposed
    order, reading a marked operand where it reads it) and reduces
    contiguous runs of it. Runs after the
    plans, so the transpose carries no register-block copy plan (its source
    stride is that of the reduced axes, often a few elements, where blocks
    measured slower), and before scaly-form-fused-ops. A function without
    expr.scalarize_limit is refused.
  }];
}

def FormFusedOps : Pass<"scaly-form-fused-ops"> {
  let summary = "Carry out scaly-plan-fusion's marks on the expression level: each group of marked ops that computes a value where it is read becomes one expr.fused op";
  let description = [{
    A marked op (scaly.fused), and a reshape of one in its block, is
    computed where it is read. Such an op read once, by another of its
    block, joins that one's group; any other (read by an unmarked op, a terminator, an op of
    a nested block, or more than once) roots a group: it and the members it
    reads, transitively, move into the body of an expr.fused put where it
    was, which its readers read instead (the ops in the body lose the mark:
    the body says it). Nothing is cloned: a view read
    twice is one group that both readers read (and that a reader needing
    memory stores once). The expr.fused takes the root's plan (expr.place)
    and location; a marked op read by nothing is erased, and a mark on an op
    that cannot be computed where it is read (a reduction, a call) is an
    error. scaly-lower-to-program computes exactly the bodies of expr.fused
    where they are read, and refuses a marked op outside one.
    Run after the plans (scaly-plan-placement, scaly-plan-loop-orders),
    which read the marks.
  }];
}

def OutlineEntries : Pass<"scaly-outline-entries", "::mlir::ModuleOp"> {
  let summary = "Move each entry of a module of several, with a copy of every function it reaches, into a nested builtin.module of its own, so a nested pipeline lowers the entries in parallel";
  let description = [{
    A module with fewer than two entries (expr.func with `entry`) is left
    alone. Otherwise each entry becomes the only entry of its own nested
    module, which also holds a copy of each function the entry reaches
    through symbol references (calls, maps, scans, derivatives, solver
    oracles). A reached function that is another entry is copied without
    its `entry` mark. The original functions are then erased. The nested
    modules need no symbol from outside, so a pass pipeline nested on
    `builtin.module` runs on them independently (in parallel when the
    context is threaded); `scaly-merge-entry-modules` puts them back.
    The modules are listed largest first (by operation count), since the
    pass manager hands them to its threads in order, and each carries its
    entry's index among the module's entries as `scaly.entry_index`.
  }];
  let dependentDialects = ["::scaly::expr::ExprDialect"];
}

#endif // SCALY_EXPR_PASSES
