//===- Patterns.h - program-dialect procedure bodies to EmitC -*- C++ -*-===//
//
// A procedure's body becomes EmitC through MLIR's DialectConversion
// (BodyConversion.cpp): a TypeConverter (`!prog.ptr<T>` to `!emitc.ptr<T>`,
// scalars as they are; lane vectors are the lane patterns'), a
// ConversionTarget (EmitC and cdecl legal, every other op illegal) and one
// pattern per op or op family, in files named after what they convert:
//
//   ArithPatterns.cpp   scalar arith (upstream ArithToEmitC where it prints
//                       our C) and math (libm calls)
//   MemoryPatterns.cpp  loads, stores, alignment tests, offsets, windows,
//                       tables, calls, reductions and products
//   LoopPatterns.cpp    scf.for (Scaly's own, carried values in Loops.h),
//                       scf.if (upstream SCFToEmitC), scf.while
//   LanePatterns.cpp    lane vectors of widened loops
//
// Patterns that handle lane vectors take no TypeConverter: a lane vector
// read from memory is a value of its aligned(8), may_alias memory type,
// which GNU C assigns to the value type without a conversion, and a
// converter would insert the cast C does not need. Without a converter a
// pattern's operands are the values the earlier patterns produced, whatever
// their type.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_PATTERNS_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_PATTERNS_H

#include "scaly/Dialect/Program/ProgramDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "llvm/ADT/DenseMap.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace scaly::c {

class Helpers;
class LaneSupport;
class Tables;
class VectorTypes;

/// C's `void`, `int` (the ABI's iw, mem and status) and `char` (byte offsets).
mlir::Type voidType(mlir::MLIRContext *ctx);
mlir::Type intType(mlir::MLIRContext *ctx);
mlir::Type charType(mlir::MLIRContext *ctx);
/// Bytes of one element as C stores it (void, an opaque type here, counts 1).
int64_t emittedElementBytes(mlir::Type t);
/// An element type as C has it (none: void).
mlir::Type convertElement(mlir::Type t);
/// A `!prog.ptr<T>` as an EmitC pointer; other types as they are.
mlir::Type convertPtr(mlir::Type t);

/// What a body's conversion registers as it goes: vector typedefs, the
/// module's C helpers, constant tables and lane support.
struct BodyRegistries {
  VectorTypes &vectors;
  Helpers &helpers;
  const Tables &tables;
  LaneSupport &lanes;
};

/// What the patterns of one procedure's conversion share: the registries,
/// the C dialect, and the C variables of the scf.for loops being converted
/// (their yields assign them).
struct BodyState {
  BodyState(const BodyRegistries &registries, bool c99) : registries(registries), c99(c99) {}
  BodyRegistries registries;
  bool c99;
  /// emitc.for -> the variables of its scf.for's carried values (null: a
  /// value nothing reads).
  llvm::DenseMap<mlir::Operation *, llvm::SmallVector<mlir::Value>> carried;
  /// The EmitC values that replaced the procedure's arguments (before the
  /// conversion), each with the argument's `!prog.ptr` type: an entry's
  /// ports may all be read through the workspace's C type.
  llvm::DenseMap<mlir::Value, mlir::Type> argTypes;
  /// The program-dialect type of operand `v` of an op being converted.
  mlir::Type progType(mlir::Value v) const {
    mlir::Type t = argTypes.lookup(v);
    return t ? t : v.getType();
  }
};

/// The state of the body the calling thread is converting: the patterns are
/// built once per pass and thread (BodyConverter) and reused by the
/// procedures that thread converts.
BodyState &currentBody();

/// Converts procedure bodies, with the type converter, target and patterns
/// built once per thread that converts (a procedure's share of building them
/// was most of a small procedure's conversion).
class BodyConverter {
public:
  BodyConverter(mlir::MLIRContext *ctx, bool c99);
  ~BodyConverter();
  /// Converts the ops of `body` (a procedure's block, without its
  /// terminator) to EmitC and moves them to the builder's insertion point.
  /// `args` holds the EmitC values of the procedure's arguments.
  mlir::LogicalResult convert(mlir::OpBuilder &b, mlir::ValueRange args,
                              const BodyRegistries &registries, mlir::Block &body) const;

private:
  struct Impl;
  /// Takes a set of converter, target and patterns no other thread is
  /// using (made when none is free), and gives it back.
  std::unique_ptr<Impl> acquire() const;
  void release(std::unique_ptr<Impl> impl) const;
  mlir::MLIRContext *ctx;
  /// The sets made so far, those not in use: at most one per thread that
  /// converts at once. A TypeConverter takes a lock on its cache for every
  /// type it converts on a threaded context; one shared by the threads
  /// made each procedure's conversion 40% slower on 2 cores.
  mutable std::vector<std::unique_ptr<Impl>> free;
  mutable std::mutex freeMutex;
  bool c99;
};

/// The pattern families (benefit: Scaly's own patterns that override an
/// upstream one for some ops have kOverride, lane patterns kLanes). `lanes`:
/// the bodies have lane vectors, so the scalar patterns check their ops.
constexpr int kOverride = 2;
constexpr int kLanes = 3;
void populateArithPatterns(mlir::TypeConverter &converter, bool lanes,
                           mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(mlir::TypeConverter &converter, mlir::RewritePatternSet &patterns);
void populateLoopPatterns(mlir::RewritePatternSet &patterns);
void populateLanePatterns(mlir::RewritePatternSet &patterns);

/// The patterns of `from`, each applied only to the ops `accepts` lets
/// through (moved into `to`): upstream's conversion of an op prints our C
/// for some of its forms only, and a test made here, before the framework
/// looks up a conversion pattern's operands, is cheaper than a failed match.
void addRestricted(mlir::RewritePatternSet &from, mlir::RewritePatternSet &to,
                   std::function<bool(mlir::Operation *)> accepts);
/// Fails with an error naming the predicate when the arith.cmpf or
/// arith.cmpi `op` has no C operator (C compares ordered, its integers
/// signed).
mlir::LogicalResult checkCompare(mlir::Operation *op);
/// The C operator of a float compare checkCompare accepts (une is `!=`).
mlir::emitc::CmpPredicate cmpPredicate(mlir::arith::CmpFPredicate p);
/// C's operator for an integer compare (signed and unsigned alike: which
/// ones C can print is checkCompare's).
mlir::emitc::CmpPredicate cmpPredicate(mlir::arith::CmpIPredicate p);
/// Whether no operand or result of `op` is a lane vector.
bool isScalarOp(mlir::Operation *op);

/// Small builders the patterns share.
inline mlir::Value indexConstant(mlir::OpBuilder &b, int64_t k, mlir::Location loc) {
  return b.create<mlir::emitc::ConstantOp>(loc, b.getI64Type(), b.getI64IntegerAttr(k));
}
/// `ptr + k` as an EmitC expression (ptr itself when k == 0).
inline mlir::Value advance(mlir::OpBuilder &b, mlir::Value ptr, int64_t k, mlir::Location loc) {
  if (k == 0)
    return ptr;
  return b.create<mlir::emitc::AddOp>(loc, ptr.getType(), ptr, indexConstant(b, k, loc));
}
inline mlir::Value callOpaque(mlir::OpBuilder &b, llvm::StringRef fn, mlir::Type t,
                              mlir::ValueRange args, mlir::Location loc) {
  return b.create<mlir::emitc::CallOpaqueOp>(loc, mlir::TypeRange{t}, fn, args).getResult(0);
}
/// A lane vector's C type (an opaque EmitC type, its typedef registered);
/// scalars stay as they are.
mlir::Type laneValueType(LaneSupport &lanes, mlir::Type t);

} // namespace scaly::c

#endif
