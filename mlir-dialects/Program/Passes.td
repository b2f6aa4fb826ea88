//===- Passes.td - passes on the program dialect -------------*- tablegen -*-===//

#ifndef SCALY_PROGRAM_PASSES
#define SCALY_PROGRAM_PASSES

include "mlir/Pass/PassBase.td"

def PlanWorkspace : Pass<"scaly-plan-workspace", "::mlir::ModuleOp"> {
  let summary = "Give every workspace window an offset at a 64-byte multiple and size each procedure's workspace";
  let dependentDialects = ["::scaly::prog::ProgDialect"];
}

def CanonicalizeProgram : Pass<"scaly-canonicalize-program"> {
  let summary = "Upstream canonicalize's patterns and folders on a procedure, each loop or branch simplified once after its body instead of after every change inside it";
  let description = [{
    Applies what `canonicalize` applies (every loaded dialect's and
    registered op's canonicalization patterns, the folders, constants
    hoisted and unified; not its region simplification, which finds
    nothing the driver's erasure of unused ops leaves), in rounds until one
    changes nothing (at most 10): the ops without regions first, in
    pre-order, through `applyOpPatternsAndFold` restricted to them and the
    ops the rewrites create; then the ops holding a body (`scf.for`,
    `scf.if`, `scf.while`), innermost first. Upstream's driver re-enqueues
    every enclosing op after each change, and for an op with
    `RecursiveMemoryEffects` its dead-op test walks its whole body: this
    pass does that once per round. It runs on each `prog.proc` in the op it
    is given (the op itself included).
  }];
}

def AccumulateRows : Pass<"scaly-accumulate-rows"> {
  let summary = "Interchange each row loop marked scaly.accumulate_rows with the nest around it: the first row stored into the result, later rows combined into it in order, a few per pass, with contiguous inner loops";
  let description = [{
    For a reduction over an axis that is not the last (`X.sum(axis=0)`,
    marked "rows" by scaly-plan-loop-orders) the lowering emits a nest over
    the result's elements whose body reduces one column: the first row's
    element, an `scf.for` over the later rows carrying the accumulator
    (marked `scaly.accumulate_rows`), and the result stored after it, the
    nest's last op. That reads with a stride of a row. This pass moves the
    row loop outside the nest: one nest stores the first row into the
    result; a loop over the later rows, `rows-per-pass` at a time, holds a
    nest that loads the result, combines the rows into it in order and
    stores it back; the rows left over, one by one. The operations and
    their order are the row loop's, so the result is the same bit for bit
    (NumPy's own order: rows combined one after another). A marked loop
    that is not in a nest's body, does not carry one accumulator between
    constant bounds by 1, whose result is not stored by the nest's last op
    into an array defined outside it, or whose nest or body holds an op
    that writes memory, is refused by name.
  }];
  let options = [Option<"rowsPerPass", "rows-per-pass", "int64_t", "4",
                        "rows combined into the result per pass over it: fewer loads and stores of "
                        "the result, the same order of operations">];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::scaly::prog::ProgDialect"];
}

def TileCopies : Pass<"scaly-tile-copies"> {
  let summary = "Write each nest carrying a copy plan (a value computed through a transpose) in register blocks and tiles, ordered as the plan says";
  let description = [{
    A nest the lowering handed a copy plan (`scaly.copy_plan`, the
    `expr.copy_plan` of `scaly-plan-loop-orders`) writes one array, each
    element at its row-major position, computed from the nest's counters
    through a transpose that moves the last axis. Its last two dimensions
    are tiled into blocks of the plan's shape: each element of a block
    computed into a named value (`b<row><column>`), column by column, then
    each block row one store (`streaming`, `element_aligned` as the plan's
    stores say). The block loops go rows or columns outermost, or in tiles
    of `tile` columns; the rows and columns left over are plain loops; the
    leading dimensions are loops around it all. Streamed lines run under a
    run-time test that the array is 64-byte aligned (`prog.is_aligned` in
    an `scf.if`), the plan's `unaligned` nest in the other branch. A plan
    the dialect would refuse for the nest's shape, or a nest that does not
    end with the store of its element at its row-major position, is refused
    by name. Runs before `scaly-parallel-to-loops`.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::scaly::prog::ProgDialect"];
}

def SumInBlocks : Pass<"scaly-sum-in-blocks"> {
  let summary = "Compute and sum a large value one helper block at a time: a sum marked scaly.sum_in_blocks of a window a nest writes whole becomes a loop over blocks of 8192, each computed into a window of one block and summed there, the block sums added in order";
  let description = [{
    The lowering writes the operand of a float sum of every element of a
    value computed where it is read (more than 8192 elements) whole into a
    workspace window, with one nest, and sums it with the module's helper
    (`prog.reduce "sum"`, marked `scaly.sum_in_blocks`), which adds pairwise
    within blocks of 8192 elements and the block sums in order from zero.
    This pass strip-mines the nest by those blocks and contracts the window
    to one block: a loop over the blocks (`block`) carries the total from
    zero, each iteration computes its block into the window (a loop `i`, the
    nest's body cloned at `block * 8192 + i`) and adds the helper's sum of
    it; the elements left over, the same way. The same additions in the
    same order, so the same result bit for bit, with 64 KiB of workspace
    where there were 8 bytes per element. A marked sum that is not a float
    sum of more than 8192 consecutive elements of a window of exactly that
    size, written by one 1-D nest before it in its block that stores
    element k at k and does nothing else, is refused by name.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
                           "::scaly::prog::ProgDialect"];
}

def ParallelToLoops : Pass<"scaly-parallel-to-loops"> {
  let summary = "Generate the loops of each scf.parallel nest the lowering made: scf.for over i64 counters, its first dimension outermost, named as scaly.names says";
  let description = [{
    `scaly-lower-to-program` does not build the loop nests that compute the
    elements of a large array: it emits the nest's iteration space as an
    upstream `scf.parallel` (constant bounds, no reductions; every
    iteration writes its own elements) whose body computes element `(i, j,
    ...)` from the counters, cast to i64 at its start. This pass generates
    the loops: one `scf.for` per dimension, the first outermost, over an
    i64 counter named by the nest's `scaly.names` (the C names, one per
    dimension), the body moved into the innermost loop and the casts
    replaced by the counters. A nest that carries reduced values, has a
    bound that is not a constant or a `scaly.names` that is not one string
    per dimension is refused. The loop transformations that need the whole
    iteration space run before it, on the nests: scaly-accumulate-rows,
    scaly-tile-copies, scaly-sum-in-blocks.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def WidenLanes : Pass<"scaly-widen-lanes"> {
  let summary = "Widen innermost loops of independent iterations to lanes-wide vector iterations plus a scalar remainder";
  let description = [{
    An innermost `scf.for` (step 1) whose iterations are independent
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

def Reciprocal : Pass<"scaly-reciprocal"> {
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

def SplitCalleeStores : Pass<"scaly-split-callee-stores"> {
  let summary = "In procedures other than the entry, store several floats one element at a time, so C compilers vectorize the loops they are inlined into (recipes with lanes)";
  let description = [{
    A called procedure is `static inline` in C and is inlined into its
    caller's loop (a vmap's). A store of several floats is a vector-typed
    store in C, which keeps LLVM's loop vectorizer off the whole loop, libm
    calls included; one store per element does not. The render pipeline
    runs this pass when lanes are on. Streaming stores and the entry's
    stores (register blocks, scalarized outputs) are left alone.
  }];
  let dependentDialects = ["::scaly::prog::ProgDialect"];
}

def SplitLongProcs : Pass<"scaly-split-long-procs", "::mlir::ModuleOp"> {
  let summary = "Cut procedures longer than max-ops operations into noinline parts called in order, so C compile time stays linear";
  let description = [{
    The top-level block of a procedure with more than `max-ops` operations
    (nested ones counted) is cut into consecutive parts, each a procedure
    `<name>_part<k>` marked `scaly.outlined` (printed noinline) that takes
    the parent's inputs and outputs, one carried-values buffer per element
    type (f64, f32, i64, i32) and the workspace. Values used after the part
    that computes them travel through slots of those buffers, windows of
    the parent's workspace; constants, offsets, tables and nulls are
    recomputed instead. A cut waits while a lane vector, an i1 or a
    workspace window is live across it. Run before scaly-plan-workspace.
  }];
  let options = [Option<"maxOps", "max-ops", "int64_t", "2000",
                        "operations per procedure above which it is cut">];
  let dependentDialects = ["::scaly::prog::ProgDialect", "::mlir::arith::ArithDialect"];
}

def MergeEntryModules : Pass<"scaly-merge-entry-modules", "::mlir::ModuleOp"> {
  let summary = "Move the symbols of the nested modules made by scaly-outline-entries back into their parent, keeping one copy of identical functions and renaming different ones of the same name";
  let description = [{
    Nested modules are merged in the order of their `scaly.entry_index`
    (set by scaly-outline-entries; modules without it first, in their
    order), all at the place of the first one; within each, ops keep their
    order.
    A symbol whose name the merged module already has is dropped when the
    two ops are identical (locations included), which is what a function
    reached from several entries usually is. Otherwise one of the two is
    renamed `<name>_<k>` with the lowest free k, and the references of its
    own module follow: the incoming one, unless it is its module's entry
    procedure, whose name the C interface fixes. Declarations (ops without a
    region, such as `prog.extern`) are compared without their locations and
    never renamed: two different declarations of one name are an error.
  }];
}

#endif // SCALY_PROGRAM_PASSES
