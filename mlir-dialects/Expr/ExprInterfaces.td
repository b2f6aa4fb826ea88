//===- ExprInterfaces.td - derivative and sparsity rules of expression ops -*- tablegen -*-===//
//
// Every expression op says how it is differentiated: either it implements
// DifferentiableOpInterface (a forward and a reverse rule), or it carries
// one of two explicit markers. An op with neither is refused by
// scaly-differentiate and by the unit test that lists the dialect's ops.
// Likewise every op says how its derivative's sparsity follows from its
// operands': the Elementwise trait, its own SparsityRuleOpInterface, or a
// marker.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_EXPR_INTERFACES
#define SCALY_EXPR_INTERFACES

include "mlir/IR/OpBase.td"

def Expr_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::scaly::expr";
  let description = [{
    The derivative rules of one op, written as expression ops built through
    a `Differentiator` (which owns the builder and makes the derivative
    functions of callees). A null Value stands for an all-zero tangent or
    cotangent, so rules skip work on inputs that do not vary.
  }];
  let methods = [
    InterfaceMethod<[{
        Forward mode: given one tangent per operand (null: zero), build and
        return one tangent per result (null: zero).
      }], "::llvm::SmallVector<::mlir::Value>", "jvp",
      (ins "::scaly::expr::Differentiator &":$d,
           "::mlir::ArrayRef<::mlir::Value>":$tangents)>,
    InterfaceMethod<[{
        Reverse mode: given one cotangent per result (null: zero), build and
        return one cotangent per operand (null: zero). Operand values are
        available; results may be used (they are already computed).
      }], "::llvm::SmallVector<::mlir::Value>", "vjp",
      (ins "::scaly::expr::Differentiator &":$d,
           "::mlir::ArrayRef<::mlir::Value>":$cotangents)>,
  ];
}

def Expr_SparsityRuleOpInterface : OpInterface<"SparsityRuleOpInterface"> {
  let cppNamespace = "::scaly::expr";
  let description = [{
    The structural sparsity rule of one op that is not elementwise: from
    the dependency sets of its operands' elements, the sets of its results'
    elements (Dependencies.h). Elementwise ops share one rule through the
    Elementwise trait; an op with neither, and no ZeroDerivative or
    DifferentiatedByPass marker, is refused by the analysis and by the unit
    test that lists the dialect's ops.
  }];
  let methods = [
    InterfaceMethod<[{
        Set every result's dependency sets from the operands' (the context
        gives null for an operand that depends on nothing).
      }], "::mlir::LogicalResult", "propagateDependencies",
      (ins "::scaly::expr::DependencyContext &":$ctx)>,
  ];
}

// The op's results do not vary with its operands where they are
// differentiable (comparisons are piecewise constant; a constant has no
// operands): every derivative through it is zero.
def Expr_ZeroDerivative : NativeOpTrait<"ZeroDerivative"> {
  let cppNamespace = "::scaly::expr";
}

// Structure the differentiation pass handles itself (functions, returns,
// the derivative ops it eliminates) or that only exists after it runs
// (loops from scaly-map-to-loop).
def Expr_DifferentiatedByPass : NativeOpTrait<"DifferentiatedByPass"> {
  let cppNamespace = "::scaly::expr";
}

// Not differentiable yet: a derivative through it is refused with a message
// naming the op (a solver's sensitivities, say, have no rule so far).
def Expr_NotDifferentiable : NativeOpTrait<"NotDifferentiable"> {
  let cppNamespace = "::scaly::expr";
}

#endif // SCALY_EXPR_INTERFACES
