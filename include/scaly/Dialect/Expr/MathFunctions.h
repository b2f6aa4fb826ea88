//===- MathFunctions.h - the elementwise math functions, as a table -*- C++ -*-===//
//
// One row per function of expr.math and expr.math2, generated from the
// records of mlir-dialects/Expr/MathFunctions.td (the same records are the
// MathFn and Math2Fn enums' cases). Everything that depends on which math
// functions exist reads this table: constant folding, the lowering's upstream
// ops, the C names, glibc's vector variants, the JIT's math.h prelude.
// Header-only, so the C printer and the JIT use it without linking the
// expression dialect.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_DIALECT_EXPR_MATHFUNCTIONS_H
#define SCALY_DIALECT_EXPR_MATHFUNCTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cmath>

namespace scaly::expr {

struct MathFunctionInfo {
  /// The name in the IR and in Python (expr.math sin, sc.sin).
  const char *name;
  /// 1 for expr.math, 2 for expr.math2.
  int arity;
  /// The MathFn (arity 1) or Math2Fn (arity 2) enum value.
  int value;
  /// The C library's function for double; float's has an `f` suffix.
  const char *cName;
  /// The upstream op the lowering to the program dialect builds ("math.sin").
  const char *upstreamOp;
  /// The glibc release whose libmvec has the x86-64 vector variants (222 for
  /// 2.22, 235 for 2.35); 0: none.
  int glibcVectorSince;
  /// Whether derivatives have a rule (false: zero almost everywhere).
  bool differentiable;
  /// The function on doubles, for constant folding (y unused at arity 1).
  double (*apply)(double x, double y);
};

inline constexpr MathFunctionInfo kMathFunctions[] = {
#include "scaly/Dialect/Expr/MathFunctions.h.inc"
};

inline llvm::ArrayRef<MathFunctionInfo> mathFunctions() { return kMathFunctions; }

/// The row of the function called `name` in the IR and Python, taking
/// `arity` operands (0: either); null when there is none.
inline const MathFunctionInfo *mathFunction(llvm::StringRef name, int arity = 0) {
  for (const MathFunctionInfo &f : kMathFunctions)
    if (name == f.name && (arity == 0 || arity == f.arity))
      return &f;
  return nullptr;
}

/// The row of the function of that arity and enum value.
inline const MathFunctionInfo &mathFunction(int arity, int value) {
  for (const MathFunctionInfo &f : kMathFunctions)
    if (f.arity == arity && f.value == value)
      return f;
  return kMathFunctions[0]; // unreachable: every enum value has its row
}

/// The row whose upstream op is `opName` ("math.sin"); null when none.
inline const MathFunctionInfo *mathFunctionForOp(llvm::StringRef opName) {
  for (const MathFunctionInfo &f : kMathFunctions)
    if (opName == f.upstreamOp)
      return &f;
  return nullptr;
}

} // namespace scaly::expr

#endif
