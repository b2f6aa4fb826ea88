//===- Differentiation.h - what derivative rules build with ------*- C++ -*-===//
//
// The op rules (DifferentiableOpInterface, lib/Dialect/Expr/IR/Derivatives.cpp)
// build expression ops through a Differentiator: it holds the builder and
// location, offers the small algebra rules need (a null Value is zero), and
// makes the forward or reverse derivative function of a callee, which only
// the scaly-differentiate pass can do.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_DIALECT_EXPR_DIFFERENTIATION_H
#define SCALY_DIALECT_EXPR_DIFFERENTIATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace scaly::expr {

class FuncOp;

/// Marker: every derivative through the op is zero (see ExprInterfaces.td).
template <typename ConcreteType>
class ZeroDerivative : public mlir::OpTrait::TraitBase<ConcreteType, ZeroDerivative> {};

/// Derivatives through the op are refused (no rule yet).
template <typename ConcreteType>
class NotDifferentiable : public mlir::OpTrait::TraitBase<ConcreteType, NotDifferentiable> {};

/// Marker: scaly-differentiate handles the op itself.
template <typename ConcreteType>
class DifferentiatedByPass
    : public mlir::OpTrait::TraitBase<ConcreteType, DifferentiatedByPass> {};

class Differentiator {
public:
  Differentiator(mlir::OpBuilder &builder, mlir::Location loc) : b(builder), loc(loc) {}
  virtual ~Differentiator();

  mlir::OpBuilder &b;
  mlir::Location loc;

  /// The function computing the tangents of `f`'s results from its inputs
  /// and one tangent per input in `wrt` (its arguments: f's, then those).
  virtual FuncOp jvpFunction(FuncOp f, llvm::ArrayRef<bool> wrt) = 0;
  /// The function computing the cotangents of `f`'s inputs in `wrt` from its
  /// inputs and one cotangent per result in `of`.
  virtual FuncOp vjpFunction(FuncOp f, llvm::ArrayRef<bool> wrt, llvm::ArrayRef<bool> of) = 0;
  /// A new function next to `near` (same block hint), named after `name`
  /// (made unique), with its entry block and no terminator yet.
  virtual FuncOp newFunction(FuncOp near, llvm::StringRef name, mlir::TypeRange ins,
                             llvm::ArrayRef<std::string> inNames, mlir::TypeRange outs,
                             llvm::ArrayRef<std::string> outNames) = 0;
  /// Set when a rule cannot be applied; the pass reports it.
  virtual void fail(mlir::Operation *op, const llvm::Twine &why) = 0;

  // The algebra of rules. Arguments may be null (zero) where noted.
  static bool isFloat(mlir::Value v);
  mlir::Value zeros(mlir::Type type);
  mlir::Value constant(mlir::Type type, double value);
  mlir::Value add(mlir::Value a, mlir::Value b);        ///< null-aware
  mlir::Value sub(mlir::Value a, mlir::Value b);        ///< null-aware
  mlir::Value neg(mlir::Value a);                       ///< null-aware
  mlir::Value mul(mlir::Value a, mlir::Value b);        ///< null if either is
  mlir::Value div(mlir::Value a, mlir::Value b);        ///< null if a is
  mlir::Value math(llvm::StringRef fn, mlir::Value a);
  mlir::Value cmp(llvm::StringRef predicate, mlir::Value a, mlir::Value b);
  mlir::Value select(mlir::Value cond, mlir::Value a, mlir::Value b); ///< null-aware
  mlir::Value convert(mlir::Value a, mlir::Type elementType);
  mlir::Value reshape(mlir::Value a, llvm::ArrayRef<int64_t> shape);
  mlir::Value broadcast(mlir::Value a, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value a, llvm::ArrayRef<int64_t> perm);
  mlir::Value slice(mlir::Value a, llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> steps,
                    llvm::ArrayRef<int64_t> sizes);
  mlir::Value concat(llvm::ArrayRef<mlir::Value> parts, std::optional<int64_t> axis,
                     mlir::Type resultType);
  mlir::Value reduce(llvm::StringRef kind, mlir::Value a, llvm::ArrayRef<int64_t> axes);
  mlir::Value matmul(mlir::Value a, mlir::Value b);
  /// Sum `a` over axes so that it has `shape` again (reverse of a broadcast).
  mlir::Value unbroadcast(mlir::Value a, llvm::ArrayRef<int64_t> shape);
  /// Element `index` of `a` along its leading axis (the axis dropped).
  mlir::Value takeLeading(mlir::Value a, int64_t index);
  /// `a` with its leading axis reversed.
  mlir::Value reverseLeading(mlir::Value a);
  /// Swap the last two axes.
  mlir::Value swapLastAxes(mlir::Value a);
  /// A zero array of `shape` holding `a` at the positions of a strided slice
  /// (reverse of expr.slice), built from reshapes, concats and slices.
  mlir::Value stridedInsert(mlir::Value a, llvm::ArrayRef<int64_t> starts,
                            llvm::ArrayRef<int64_t> steps, llvm::ArrayRef<int64_t> shape);
  /// Products of a linear value (a tangent or cotangent, `lin`) with a
  /// factor the rules computed from the primal values. In exact-zeros mode
  /// (`exactZeros`, set by scaly-differentiate for an expr.jvp / expr.vjp
  /// with the `exact_zeros` attribute) a zero of `lin`, or an element of a
  /// constant factor that is zero, contributes exactly zero even where the
  /// other side is infinite or NaN: the compressed sweeps of a Jacobian or
  /// Hessian seed several columns at once with zeros elsewhere, and 0 * NaN
  /// would spread a non-finite entry into its colour group. Otherwise they
  /// are plain products. Null-aware (null `lin`: null).
  mlir::Value scale(mlir::Value lin, mlir::Value factor);
  /// lin / divisor; a zero of `lin` gives zero in exact-zeros mode.
  mlir::Value scaleDiv(mlir::Value lin, mlir::Value divisor);
  /// lin @ other (`linLeft`) or other @ lin, exact with zeros as `scale`.
  mlir::Value scaleMatmul(mlir::Value lin, mlir::Value other, bool linLeft);
  /// Whether products with linear values are exact with zeros (see `scale`).
  bool exactZeros = false;

  /// `a` (null: zero) as a value of `type`.
  mlir::Value orZeros(mlir::Value a, mlir::Type type) { return a ? a : zeros(type); }

  /// select(cond, a, 0) when `taken`, else select(cond, 0, a): a branch's
  /// cotangent through a select, marked (kMaskAttr on the select) as zero
  /// where its branch is not taken. Products, quotients, negations and casts
  /// of a marked value, and sums of values marked alike, are selected again,
  /// so the untaken branch's local derivative (NaN or inf where it is
  /// undefined, as sqrt'(-1)) never turns that zero into NaN: reverse mode
  /// then agrees with forward mode, which selects after multiplying.
  mlir::Value maskedSelect(mlir::Value cond, mlir::Value a, bool taken);

  /// The discardable attribute of a marked select (true: zero where cond is
  /// false); scaly-differentiate removes it when it is done.
  static constexpr const char *kMaskAttr = "expr.mask";

private:
  /// `result` selected again by each mark `from` carries (marks of equal shape).
  mlir::Value remask(mlir::Value result, llvm::ArrayRef<std::pair<mlir::Value, bool>> marks);
  /// The marks of `v`: (cond, taken) of each marked select it is nested in.
  static llvm::SmallVector<std::pair<mlir::Value, bool>> marksOf(mlir::Value v);
};

} // namespace scaly::expr

#endif
