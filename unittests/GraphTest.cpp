//===- GraphTest.cpp - the traced expression graph ------------------------===//

#include "scaly/Trace/Digest.h"
#include "scaly/Trace/Graph.h"

#include "scaly/Dialect/Expr/ExprDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <functional>
#include <gtest/gtest.h>

using namespace scaly::trace;

namespace {
/// The context every graph of these tests builds its ops in.
mlir::MLIRContext &context() {
  static mlir::MLIRContext ctx;
  ctx.getOrLoadDialect<scaly::expr::ExprDialect>();
  return ctx;
}
/// A traced Function `name`(x: f64[inSize]) -> y: f64[outSize] whose result
/// is value `y` of `g`.
std::shared_ptr<Function> function(const std::string &name, std::shared_ptr<Graph> g,
                                   int64_t inSize, int64_t outSize, int32_t y) {
  auto fn = std::make_shared<Function>();
  fn->name = name;
  fn->inputs = {{"x", {inSize}, DType::F64}};
  fn->outputs = {{"y", {outSize}, DType::F64}};
  fn->graph = std::move(g);
  fn->results = {y};
  return fn;
}
} // namespace

TEST(Graph, IdenticalSubexpressionsAreOneNode) {
  Graph g(context());
  int32_t x = g.input(0, {3}, DType::F64);
  int32_t a = g.math("sin", x);
  int32_t b = g.math("sin", x);
  EXPECT_EQ(a, b);
  int32_t c = g.math("cos", x);
  EXPECT_NE(a, c);
  size_t before = g.size();
  EXPECT_EQ(g.binary(BinaryKind::Add, a, c), g.binary(BinaryKind::Add, b, c));
  EXPECT_EQ(g.size(), before + 1);
}

TEST(Graph, CommutativeOpsInternAcrossOperandOrder) {
  // MLIR's OperationEquivalence compares a Commutative op's operands as a
  // set: a + b and b + a are one op (bitwise the same in IEEE arithmetic);
  // a - b and b - a are not.
  Graph g(context());
  int32_t a = g.input(0, {2}, DType::F64), b = g.input(1, {2}, DType::F64);
  EXPECT_EQ(g.binary(BinaryKind::Add, a, b), g.binary(BinaryKind::Add, b, a));
  EXPECT_EQ(g.binary(BinaryKind::Mul, a, b), g.binary(BinaryKind::Mul, b, a));
  EXPECT_NE(g.binary(BinaryKind::Sub, a, b), g.binary(BinaryKind::Sub, b, a));
}

TEST(Graph, ScalarsBroadcastAndConstantsAdoptTheDtype) {
  Graph g(context());
  int32_t x = g.input(0, {2, 2}, DType::F32);
  int32_t k = g.constant({0.5}, {}, DType::F64);
  int32_t y = g.binary(BinaryKind::Mul, k, x);
  EXPECT_EQ(g.dtype(y), DType::F32);
  EXPECT_EQ(g.shape(y), (Shape{2, 2}));
}

TEST(Graph, ConstantsPromoteAsInNumPy) {
  Graph g(context());
  int32_t i = g.input(0, {2}, DType::I64);
  // A float constant never becomes an integer: int64 * 0.5 and * 2.0 are
  // float64, as NumPy gives.
  int32_t half = g.constant({0.5}, {}, DType::F64);
  EXPECT_EQ(g.dtype(g.binary(BinaryKind::Mul, i, half)), DType::F64);
  int32_t two = g.constant({2.0}, {}, DType::F64);
  EXPECT_EQ(g.dtype(g.binary(BinaryKind::Mul, i, two)), DType::F64);
  // An integer constant that fits keeps the array's dtype (weak typing).
  int32_t x = g.input(1, {2}, DType::I32);
  int32_t three = g.constantInts({3}, {}, DType::I64);
  EXPECT_EQ(g.dtype(g.binary(BinaryKind::Mul, x, three)), DType::I32);
  // Two arrays meet at NumPy's promoted dtype.
  int32_t f = g.input(2, {2}, DType::F32);
  EXPECT_EQ(g.dtype(g.binary(BinaryKind::Add, x, f)), DType::F64);
  EXPECT_EQ(g.dtype(g.binary(BinaryKind::Add, x, i)), DType::I64);
}

TEST(Graph, IndexIsTheSliceOfARowAndItsReshape) {
  Graph g(context());
  int32_t m = g.input(0, {4, 3}, DType::F64);
  int32_t row = g.index(m, -1); // the last row, as m[3, ...]
  EXPECT_EQ(g.shape(row), (Shape{3})); // known before it is built
  EXPECT_EQ(g.value(row), g.value(g.reshape(g.slice(m, {3, 0}, {1, 1}, {1, 3}), {3})));
  EXPECT_EQ(g.value(g.index(m, 1)), g.value(g.index(m, -3)));
  size_t before = g.size();
  EXPECT_EQ(g.index(m, 4), -1); // out of range: nothing made, the caller reports it
  EXPECT_EQ(g.index(m, -5), -1);
  EXPECT_EQ(g.index(g.index(row, 0), 0), -1); // a scalar has no rows
  EXPECT_EQ(g.size(), before + 1);            // only row 0 of `row`
}

namespace {
/// step(z: f64[2], u: f64) -> z + u: the step of an unrolled loop.
std::shared_ptr<Function> stepFunction() {
  auto g = std::make_shared<Graph>(context());
  int32_t z = g->input(0, {2}, DType::F64), u = g->input(1, {}, DType::F64);
  auto fn = function("step", g, 2, 2, g->binary(BinaryKind::Add, z, u));
  fn->inputs.push_back({"u", {}, DType::F64});
  return fn;
}

/// The names of the ops `results` need, in the graph's order.
std::vector<std::string> liveOpNames(const Graph &g, const std::vector<int32_t> &results) {
  auto live = g.liveOps(results);
  std::vector<std::string> names;
  for (mlir::Operation &op : g.body())
    if (live.contains(&op))
      names.push_back(op.getName().getStringRef().str());
  return names;
}

/// Whether every live op of `results` comes after the ops its operands come from.
bool inOrder(const Graph &g, const std::vector<int32_t> &results) {
  auto live = g.liveOps(results);
  llvm::DenseSet<mlir::Operation *> seen;
  for (mlir::Operation &op : g.body()) {
    for (mlir::Value v : op.getOperands())
      if (live.contains(&op) && v.getDefiningOp() && !seen.contains(v.getDefiningOp()))
        return false;
    seen.insert(&op);
  }
  return true;
}

/// z after `n` steps z = step(z, us[k]) (states[k]: after step k).
int32_t unrolled(Graph &g, std::shared_ptr<Function> step, int64_t n,
                 std::vector<int32_t> *states = nullptr,
                 std::function<int64_t(int64_t)> row = [](int64_t k) { return k; }) {
  int32_t z = g.input(0, {2}, DType::F64), us = g.input(1, {n}, DType::F64);
  for (int64_t k = 0; k < n; ++k) {
    z = g.call(step, {z, g.index(us, row(k))})[0];
    if (states)
      states->push_back(z);
  }
  return z;
}
} // namespace

TEST(LazyValues, AnUnrolledChainIsOneScan) {
  // 40 steps asked for by their final state: one scan over `us`, whole (its
  // rows 0..39 in order), and no call, slice or reshape of a step.
  Graph g(context());
  int32_t z = unrolled(g, stepFunction(), 40);
  EXPECT_EQ(liveOpNames(g, {z}), (std::vector<std::string>{"expr.scan"}));
  auto scan = llvm::cast<scaly::expr::ScanOp>(g.value(z).getDefiningOp());
  EXPECT_EQ(scan.getCount(), 40);
}

TEST(LazyValues, RowsNotEvenlySpacedAreOneGather) {
  // Step k reads us[k // 2]: one gather of the rows in step order, then the
  // scan over it; no call, slice or reshape of a step.
  Graph g(context());
  int32_t z = unrolled(g, stepFunction(), 40, nullptr, [](int64_t k) { return k / 2; });
  EXPECT_EQ(liveOpNames(g, {z}), (std::vector<std::string>{"expr.gather", "expr.scan"}));
  auto scan = llvm::cast<scaly::expr::ScanOp>(g.value(z).getDefiningOp());
  auto gather = scan.getOperand(1).getDefiningOp<scaly::expr::GatherOp>();
  ASSERT_TRUE(gather);
  std::vector<int64_t> rows;
  for (int64_t k = 0; k < 40; ++k)
    rows.push_back(k / 2);
  EXPECT_EQ(std::vector<int64_t>(gather.getIndices().begin(), gather.getIndices().end()), rows);
}

TEST(LazyValues, AShortChainKeepsItsCalls) {
  Graph g(context());
  int32_t z = unrolled(g, stepFunction(), scaly::expr::kMinRolledChain - 1);
  auto names = liveOpNames(g, {z});
  EXPECT_EQ(std::count(names.begin(), names.end(), "expr.call"),
            static_cast<long>(scaly::expr::kMinRolledChain - 1));
  EXPECT_EQ(names.front(), "expr.slice"); // each step's row, then its call, as traced
  EXPECT_EQ(names[2], "expr.call");
}

TEST(LazyValues, AnIntermediateStateAskedForAfterTheRollUndoesIt) {
  // The final state used first (rolled), then the state after step 5: the
  // calls are built before the scan and replace it, also in the op that
  // already uses it; nothing uses the scan any more.
  Graph g(context());
  std::vector<int32_t> states;
  int32_t z = unrolled(g, stepFunction(), 20, &states);
  int32_t negated = g.neg(z);
  int32_t sum = g.binary(BinaryKind::Add, negated, states[5]);
  auto names = liveOpNames(g, {sum});
  EXPECT_EQ(std::count(names.begin(), names.end(), "expr.call"), 20);
  EXPECT_EQ(std::count(names.begin(), names.end(), "expr.scan"), 0);
  EXPECT_EQ(g.value(z).getDefiningOp()->getName().getStringRef(), "expr.call");
  EXPECT_TRUE(inOrder(g, {sum}));
}

TEST(LazyValues, ResultsAskedForTogetherSeeOneGraph) {
  // The final state and a kept state returned together: the live ops are
  // those of the unrolled calls, whichever result is asked for first.
  Graph g(context());
  std::vector<int32_t> states;
  int32_t z = unrolled(g, stepFunction(), 20, &states);
  auto names = liveOpNames(g, {z, states[5]});
  EXPECT_EQ(std::count(names.begin(), names.end(), "expr.call"), 20);
  EXPECT_EQ(std::count(names.begin(), names.end(), "expr.scan"), 0);
  EXPECT_TRUE(inOrder(g, {z, states[5]}));
}

TEST(LazyValues, PendingRecordsAreBuiltInTracedOrder) {
  // m[0] + 2 * m[1]: the rows are built before the ops that follow them, in
  // the order they were asked for, as if built at once.
  Graph g(context());
  int32_t m = g.input(0, {2, 3}, DType::F64);
  int32_t a = g.index(m, 0), b = g.index(m, 1);
  int32_t two = g.constant({2.0}, {}, DType::F64);
  int32_t y = g.binary(BinaryKind::Add, a, g.binary(BinaryKind::Mul, two, b));
  EXPECT_EQ(liveOpNames(g, {y}),
            (std::vector<std::string>{"expr.slice", "expr.reshape", "expr.slice", "expr.reshape",
                                      "expr.constant", "expr.broadcast", "expr.mul",
                                      "expr.add"}));
}

TEST(Graph, ShapeErrorsNameBothShapes) {
  Graph g(context());
  int32_t a = g.input(0, {3}, DType::F64);
  int32_t b = g.input(1, {2}, DType::F64);
  try {
    g.binary(BinaryKind::Add, a, b);
    FAIL() << "expected a shape error";
  } catch (const std::invalid_argument &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("(3,)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(2,)"), std::string::npos) << msg;
  }
  EXPECT_THROW(g.reshape(a, {2, 2}), std::invalid_argument);
  EXPECT_THROW(g.gather(a, {3}, {}), std::out_of_range);
  EXPECT_THROW(g.math("sine", a), std::invalid_argument);
  EXPECT_THROW(parseDType("float16"), std::invalid_argument);
}

TEST(Digest, SameTraceSameDigestAndNamesMatter) {
  auto build = [](const std::string &name, double k) {
    auto g = std::make_shared<Graph>(context());
    int32_t x = g->input(0, {2}, DType::F64);
    int32_t y = g->binary(BinaryKind::Mul, x, g->constant({k}, {}, DType::F64));
    g->math("cos", x); // dead node: must not change the digest
    return function(name, g, 2, 2, y);
  };
  auto a = build("f", 2.0), b = build("f", 2.0);
  EXPECT_EQ(graphDigest(*a), graphDigest(*b));
  EXPECT_NE(graphDigest(*a), graphDigest(*build("g", 2.0)));
  EXPECT_NE(graphDigest(*a), graphDigest(*build("f", 3.0)));
  EXPECT_EQ(graphDigest(*a).size(), 64u);
}

TEST(Digest, RepeatedAttributesAndTypesAreBackReferencesNotMerged) {
  // The digest writes a repeated type or attribute as a back-reference: two
  // graphs that differ only in which slice comes first, or in whether two
  // slices share their offsets, must still differ.
  auto build = [](int64_t first, int64_t second) {
    auto g = std::make_shared<Graph>(context());
    int32_t x = g->input(0, {4}, DType::F64);
    int32_t a = g->slice(x, {first}, {1}, {2});
    int32_t b = g->slice(x, {second}, {1}, {2});
    int32_t y = g->binary(BinaryKind::Sub, a, b);
    return function("f", g, 4, 2, y);
  };
  std::string d01 = graphDigest(*build(0, 1));
  EXPECT_EQ(d01, graphDigest(*build(0, 1)));
  EXPECT_NE(d01, graphDigest(*build(1, 0)));
  EXPECT_NE(d01, graphDigest(*build(0, 2)));
  EXPECT_NE(graphDigest(*build(1, 1)), graphDigest(*build(2, 2)));
}

TEST(Digest, CalleesCountByContentNotByObject) {
  // Two Functions traced alike are one callee: f calling g twice digests as
  // f calling g and its twin (a cache hit either way), and not as f calling
  // g and a different function.
  auto callee = [](double k) {
    auto g = std::make_shared<Graph>(context());
    int32_t x = g->input(0, {2}, DType::F64);
    int32_t y = g->binary(BinaryKind::Mul, x, g->constant({k}, {}, DType::F64));
    return function("g", g, 2, 2, y);
  };
  auto caller = [](std::shared_ptr<Function> a, std::shared_ptr<Function> b) {
    auto g = std::make_shared<Graph>(context());
    int32_t x = g->input(0, {2}, DType::F64);
    int32_t first = g->call(a, {x})[0], second = g->call(b, {g->math("sin", x)})[0];
    int32_t y = g->binary(BinaryKind::Add, first, second);
    return function("f", g, 2, 2, y);
  };
  auto g = callee(2.0);
  std::string same = graphDigest(*caller(g, g));
  EXPECT_EQ(same, graphDigest(*caller(g, callee(2.0))));
  EXPECT_NE(same, graphDigest(*caller(g, callee(3.0))));
}
