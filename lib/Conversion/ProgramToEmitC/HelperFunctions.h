//===- HelperFunctions.h - the C helpers of reductions and products -*- C++ -*-===//
//
// prog.reduce and prog.matmul become calls of small `static` C functions
// (scaly_sum_f64, scaly_max_i32, scaly_matmul_f32, ...) that a module defines
// once each, before its procedures, in the order first used. Each helper is
// an emitc.func built of EmitC ops (HelperFunctions.cpp), printed by the C
// printer like every other function.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_CONVERSION_PROGRAMTOEMITC_HELPERFUNCTIONS_H
#define SCALY_CONVERSION_PROGRAMTOEMITC_HELPERFUNCTIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/StringSet.h"

#include <string>
#include <vector>

namespace scaly::c {

/// The C helpers (reductions, matrix products) and the loop macro a module
/// uses, registered on first use. Each helper is `static`, so only used ones
/// are defined (an unused static function is a warning).
class Helpers {
public:
  /// Name of the helper for `kind` ("sum", "prod", "max", "min", "matmul", "matvec")
  /// on elements of type `elem`, registering it (a float sum registers the
  /// pairwise sum it calls first).
  std::string use(llvm::StringRef kind, mlir::Type elem);
  /// Define the macro SCALY_NO_UNROLL (a Clang loop pragma; nothing under
  /// other compilers), and return its name: the line before a loop
  /// (cdecl.macro_line).
  llvm::StringRef useNoUnroll();
  /// Define the macro SCALY_STREAM_STORE(address, value...): Clang's
  /// nontemporal store, a plain store under other compilers (GCC has no
  /// such builtin). Variadic: the value is a compound literal, whose commas
  /// would split a macro argument.
  void useStreamStore();
  /// Adds what `other` registered and this did not, in `other`'s order: the
  /// helpers of procedures translated apart, merged in procedure order, come
  /// out as if translated in one go.
  void append(const Helpers &other);
  /// Inserts at `b`'s insertion point what was registered, in the order
  /// first used, each followed by a blank line (after one first with
  /// `blankLineFirst`: lane support or tables come before): the macro as a
  /// cdecl.if_defined, each helper as an emitc.func.
  void define(mlir::OpBuilder &b, mlir::Location loc, bool blankLineFirst) const;
  /// The names of the helper functions registered.
  std::vector<std::string> functionNames() const;

private:
  struct Item {
    std::string name;
    /// "pairwise", "sum", ... ; empty for a macro (SCALY_NO_UNROLL,
    /// SCALY_STREAM_STORE), which its name picks.
    std::string kind;
    mlir::Type elem;
  };
  llvm::StringSet<> seen;
  std::vector<Item> items;
  void add(Item item);
};

} // namespace scaly::c

#endif
