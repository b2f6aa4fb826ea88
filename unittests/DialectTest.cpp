//===- DialectTest.cpp - rules every expression op must follow ------------===//

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace scaly::expr;

// An op cannot be added to the expression dialect without saying how it is
// differentiated: a rule (DifferentiableOpInterface) or an explicit marker.
TEST(ExprDialect, EveryOpHasADerivativeRuleOrAMarker) {
  MLIRContext ctx;
  ctx.loadDialect<ExprDialect>();
  int ops = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != ExprDialect::getDialectNamespace())
      continue;
    ++ops;
    bool rule = name.hasInterface<DifferentiableOpInterface>();
    bool zero = name.hasTrait<ZeroDerivative>();
    bool byPass = name.hasTrait<DifferentiatedByPass>();
    bool refused = name.hasTrait<NotDifferentiable>();
    EXPECT_EQ(int(rule) + int(zero) + int(byPass) + int(refused), 1)
        << name.getStringRef().str()
        << " needs exactly one of: derivative rules, ZeroDerivative, DifferentiatedByPass, "
           "NotDifferentiable";
  }
  EXPECT_GT(ops, 20); // the dialect was really enumerated (29 ops today)
}

// Nor without saying how its derivative's sparsity follows from its
// operands': the shared elementwise rule, its own rule
// (SparsityRuleOpInterface), or a marker saying it carries no dependency
// (ZeroDerivative), is gone before the analysis (DifferentiatedByPass) or
// refuses derivatives (NotDifferentiable).
TEST(ExprDialect, EveryOpHasASparsityRuleOrAMarker) {
  MLIRContext ctx;
  ctx.loadDialect<ExprDialect>();
  int ops = 0, own = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != ExprDialect::getDialectNamespace())
      continue;
    ++ops;
    bool rule = name.hasInterface<SparsityRuleOpInterface>();
    bool elementwise = name.hasTrait<OpTrait::Elementwise>();
    bool marker = name.hasTrait<ZeroDerivative>() || name.hasTrait<DifferentiatedByPass>() ||
                  name.hasTrait<NotDifferentiable>();
    own += rule;
    EXPECT_TRUE(rule || elementwise || marker)
        << name.getStringRef().str()
        << " needs a sparsity rule: Elementwise, SparsityRuleOpInterface or a marker";
    EXPECT_FALSE(rule && elementwise)
        << name.getStringRef().str() << " has two sparsity rules (Elementwise and its own)";
  }
  EXPECT_GT(ops, 20);
  EXPECT_GE(own, 12); // reshape ... scan (12 today)
}
