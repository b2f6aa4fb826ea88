//===- ExprDialect.h - Scaly expression dialect -------------------*- C++ -*-===//
#ifndef SCALY_DIALECT_EXPR_EXPRDIALECT_H
#define SCALY_DIALECT_EXPR_EXPRDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "scaly/Dialect/Expr/Dependencies.h"
#include "scaly/Dialect/Expr/Differentiation.h"
#include "scaly/Dialect/Expr/ExprDialect.h.inc"
#include "scaly/Dialect/Expr/ExprEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "scaly/Dialect/Expr/ExprAttrs.h.inc"

#include "scaly/Dialect/Expr/ExprInterfaces.h.inc"

#define GET_OP_CLASSES
#include "scaly/Dialect/Expr/ExprOps.h.inc"

namespace scaly::expr {
/// Number of elements of a static shaped type (1 for a scalar).
int64_t numElements(mlir::Type type);
/// Whether the element count of the shaped `type` fits in int64.
bool hasCountableElements(mlir::Type type);
/// C name of a math function for the given element type (sin / sinf).
std::string cMathName(llvm::StringRef fn, mlir::Type elementType);
/// `type` (a ranked tensor) with a leading axis of length `count` added: the
/// type a map or scan stacks its iterations' values into.
mlir::RankedTensorType withLeadingAxis(mlir::Type type, int64_t count);
/// The functions a module exports: those marked `entry`, else its first.
llvm::SmallVector<FuncOp> entryFunctions(mlir::ModuleOp module);
/// When `slice` picks one contiguous run of its operand's row-major
/// elements, the offset of the first (the slice is then a pointer into its
/// operand's storage); otherwise nothing.
std::optional<int64_t> contiguousStart(SliceOp slice);
/// Whether `op` is an elementwise expr op (add, mul, math, cmp, select,
/// cast, ...: the Elementwise trait).
inline bool isElementwise(mlir::Operation *op) {
  return llvm::isa<ExprDialect>(op->getDialect()) && op->hasTrait<mlir::OpTrait::Elementwise>();
}
/// The mark scaly-plan-fusion puts on an op whose large result its consumers
/// compute where they read it (never stored on its own).
inline constexpr llvm::StringLiteral kFusedAttr = "scaly.fused";
/// Whether `op` may be computed where it is read (may be marked scaly.fused,
/// may sit in an expr.fused body): an elementwise op, a view, a
/// concatenation or a gather.
bool isFusible(mlir::Operation *op);
/// Whether the result of `op` is computed where it is read: `op` is
/// marked scaly.fused (before scaly-form-fused-ops), is an expr.fused or is
/// in the body of one.
bool isComputedWhereRead(mlir::Operation *op);
/// Whether lowering computes `v` where it is read, as scaly-plan-fusion's
/// marks say: a value above `limit` elements of a marked op or of an
/// expr.fused (scaly-form-fused-ops), a reshape of
/// such a value, or a large splat constant (Plans.cpp).
bool computedInPlace(mlir::Value v, int64_t limit);
/// Whether row accumulation applies to `o`: one reduced axis, not the last,
/// at least two rows of at least two contiguous elements, operand and
/// result above `limit` elements (Plans.cpp).
bool accumulatesRows(ReduceOp o, int64_t limit);
/// Elements a float sum adds pairwise before adding the next block to the
/// total: NumPy's buffer size, and the block of Scaly's sum helper.
inline constexpr int64_t kSumBlock = 8192;
/// Whether `o` sums all the elements of a float value of more than one
/// block: the lowering then computes the operand one block at a time into a
/// window of one block, and sums each there (Plans.cpp).
bool sumsInBlocks(ReduceOp o);
/// Whether the axes `o` reduces are the operand's last ones, in order: the
/// lowering then reads each reduced run where the operand is stored
/// (Plans.cpp).
bool reducesTrailingAxes(ReduceOp o);
/// The loop order scaly-plan-loop-orders picked for an op ("rows": a
/// reduction by row accumulation).
inline constexpr llvm::StringLiteral kLoopOrderAttr = "scaly.loop_order";
/// How scaly-plan-loop-orders has the result of an op computed through a
/// transpose written (CopyPlan.cpp): a dictionary such as
/// `{block = [8, 8], order = "rows", stores = "lines", unaligned = {...}}`,
/// verified by the dialect against the op's result type. The lowering hands
/// it to the nest that writes the result (scaly.copy_plan), which
/// scaly-tile-copies transforms as it says.
inline constexpr llvm::StringLiteral kCopyPlanAttr = "expr.copy_plan";
/// The line a streamed block row fills whole (64 bytes on x86-64 and
/// AArch64): no line is read from memory only to be overwritten.
inline constexpr int64_t kCacheLineBytes = 64;
/// How the rows of a copy plan's blocks are stored.
enum class CopyStores {
  plain,    ///< ordinary stores
  lines,    ///< streaming stores of whole 64-byte-aligned lines
  elements, ///< streaming stores aligned to one element
};
/// Which loop of a copy plan's blocks is outermost.
enum class CopyOrder {
  rows,    ///< block rows outer, block columns inner
  columns, ///< block columns outer
  tiles,   ///< tiles of `tile` columns outer, then block rows, then the tile's columns
};
/// One loop nest of blocks: each block `blockRows` x `blockCols` elements of
/// the last two axes, each block row one store of `blockCols` values.
struct CopyNest {
  int64_t blockRows = 4, blockCols = 4;
  CopyStores stores = CopyStores::plain;
  CopyOrder order = CopyOrder::rows;
  int64_t tile = 0; ///< columns per tile (CopyOrder::tiles only)
};
/// A copy plan: the nest, and for lines the nest used when the result's
/// memory is not 64-byte aligned (tested at run time).
struct CopyPlan {
  CopyNest nest;
  std::optional<CopyNest> unaligned;
};
/// The expr.copy_plan attribute of `plan`.
mlir::DictionaryAttr copyPlanAttr(mlir::MLIRContext *ctx, const CopyPlan &plan);
/// The copy plan `attr` for a value of type `type` (a float tensor of rank 2
/// or more), or nothing with `why` set. Loop passes read the plan a nest
/// carries with it, against the nest's shape.
std::optional<CopyPlan> readCopyPlan(mlir::Attribute attr, mlir::Type type, std::string &why);
/// The dialect's check of an expr.copy_plan on `op`: a well-formed plan for
/// its one float result of rank 2 or more (lines only for rows of whole
/// lines), else an error on `op`.
mlir::LogicalResult verifyCopyPlan(mlir::Operation *op, mlir::Attribute plan);
/// Whether `t` moves the last axis: reading its result along a row then
/// reads its operand with a stride.
bool movesLastAxis(TransposeOp t);
/// The ops a copy plan's value may be computed with, besides views and
/// constants: arithmetic, comparisons, selects and casts (no libm call,
/// whose plain nest widens into vector lanes).
bool isCopyArithmetic(mlir::Operation *op);
/// Where scaly-plan-placement put the results of an op: an array of one
/// #expr.place per result (verified by the dialect).
inline constexpr llvm::StringLiteral kPlaceAttr = "expr.place";
/// Whether scaly-plan-placement plans `op`, and lowering needs its plan: an
/// expr op with results (Plans.cpp).
bool needsPlacement(mlir::Operation *op);
/// The plan for `v` (a result of an op that carries expr.place), or null: a
/// block argument, or an op without a plan.
PlaceAttr placeOf(mlir::Value v);
/// The scalarize limit a function was planned with, recorded on the expr.func
/// by scaly-plan-placement: arrays of at most this many elements are
/// scalars. scaly-lower-to-program reads it (it has no limit of its own), so
/// the plans and the lowering cannot disagree.
inline constexpr llvm::StringLiteral kScalarizeLimitAttr = "expr.scalarize_limit";
/// The recorded limit of `func`, or nothing when it was never planned.
std::optional<int64_t> scalarizeLimitOf(FuncOp func);
/// Where scaly-plan-placement builds the next value of each carried value of
/// an expr.loop: an array of one #expr.place per carried value, `workspace`
/// (a window of its own, copied into the carried memory at the end of the
/// body; what a `yield K` plan in the body means for carried K) or
/// `registers` (its scalars, stored there once all are read). Verified by
/// the dialect; absent on a loop without carried values.
inline constexpr llvm::StringLiteral kNextAttr = "expr.next";
/// Whether expr.next builds the next value of carried value `k` of `loop`
/// in a window of its own (false without a plan).
bool nextInWindow(LoopOp loop, unsigned k);
/// Whether lowering may give the result `r` memory of its own when it is in
/// no output or slice: results of calls, solvers and loops (always in
/// memory), large values (but a sum of all elements: one scalar), a matrix
/// product of a large operand. Every other value is scalars only
/// (Plans.cpp).
bool mayNeedMemory(mlir::OpResult r, int64_t limit);
/// The plan passes' check of their scalarize-limit option: a negative one is
/// an error on `op` naming `pass` (Plans.cpp).
mlir::LogicalResult checkScalarizeLimit(mlir::Operation *op, llvm::StringRef pass, int64_t limit);
/// The shortest chain of calls that becomes one expr.scan (shorter chains
/// keep their calls): the rule of scaly-roll-call-chains, and of the tracer,
/// which rolls a chain as it is traced.
inline constexpr size_t kMinRolledChain = 16;
} // namespace scaly::expr

#endif
