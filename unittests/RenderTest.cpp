//===- RenderTest.cpp - C module rendering through the C++ API ------------===//

#include "scaly/Codegen/RenderModule.h"
#include "scaly/InitScaly.h"
#include "scaly/Trace/BuildModule.h"
#include "scaly/Trace/Graph.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace scaly;
using trace::DType;
using trace::BinaryKind;

namespace {

std::shared_ptr<trace::Function> scaledSine(mlir::MLIRContext &ctx, bool block) {
  auto g = std::make_shared<trace::Graph>(ctx);
  int32_t x = g->input(0, {4}, DType::F64);
  int32_t y = g->binary(BinaryKind::Mul, g->math("sin", x), g->constant({3.0}, {}, DType::F64));
  auto fn = std::make_shared<trace::Function>();
  fn->name = "scaled_sine";
  fn->inputs = {{"x", {4}, DType::F64}};
  fn->outputs = {{"y", {4}, DType::F64}};
  fn->graph = g;
  fn->results = {y};
  fn->block = block;
  return fn;
}

struct Render : ::testing::Test {
  mlir::DialectRegistry registry;
  std::unique_ptr<mlir::MLIRContext> ctx;
  void SetUp() override {
    registerScalyDialects(registry);
    ctx = std::make_unique<mlir::MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }
};

} // namespace

TEST_F(Render, EntryHeaderAndStores) {
  auto module = trace::buildExprModule(*ctx, *scaledSine(*ctx, false));
  codegen::RenderedModule out;
  std::string error;
  ASSERT_TRUE(codegen::renderCModule(*module, {}, out, error)) << error;
  EXPECT_EQ(out.name, "scaled_sine");
  EXPECT_NE(out.source.find("int scaled_sine(const double** arg, double** res, int* iw, double* w, int mem) {"),
            std::string::npos);
  EXPECT_NE(out.source.find("*(double4*)(res[0]) = (double4){"), std::string::npos) << out.source;
  EXPECT_NE(out.header.find("#define scaled_sine_SZ_W 0"), std::string::npos);
  EXPECT_EQ(out.source.rfind("/* Scaly build recipe", 0), 0u);
}

TEST_F(Render, CallingAnUnknownFunctionIsADiagnosticNotACrash) {
  const char *text = R"(
    expr.func @f(%x: tensor<2xf64>) -> tensor<2xf64> attributes {arg_names = ["x"], res_names = ["y"]} {
      %0 = expr.call @missing(%x) : (tensor<2xf64>) -> tensor<2xf64>
      expr.return %0 : tensor<2xf64>
    })";
  // The verifier rejects the call when parsing...
  mlir::ParserConfig verifying(ctx.get());
  EXPECT_FALSE(mlir::parseSourceString<mlir::ModuleOp>(text, verifying));
  // ...and a module built without verification is refused by rendering with
  // a diagnostic that names the callee, not a crash.
  mlir::ParserConfig unverified(ctx.get(), /*verifyAfterParse=*/false);
  auto parsed = mlir::parseSourceString<mlir::ModuleOp>(text, unverified);
  ASSERT_TRUE(parsed);
  std::string error;
  codegen::RenderedModule out;
  EXPECT_FALSE(codegen::renderCModule(*parsed, {}, out, error));
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
}

TEST_F(Render, IndexTablesTravelAsLengthsUnlessTheyAreWritten) {
  // A csc output whose pattern is the identity of 4 x 4.
  auto fn = scaledSine(*ctx, false);
  auto sparse = std::make_shared<trace::SparseLayout>();
  sparse->nrow = sparse->ncol = 4;
  auto table = [](std::vector<int32_t> values) {
    return std::make_shared<const std::vector<int32_t>>(std::move(values));
  };
  sparse->tables = {{"colind", table({0, 1, 2, 3, 4})}, {"row", table({0, 1, 2, 3})}};
  fn->outputs[0].sparse = sparse;

  // Built for the JIT: the module carries the tables' lengths, enough for a
  // header without them and for the ports' data, and nothing else.
  auto lengths = trace::buildExprModule(*ctx, *fn, /*tableValues=*/false);
  codegen::RenderOptions jit;
  jit.sparseTables = false;
  codegen::RenderedModule out;
  std::string error;
  ASSERT_TRUE(codegen::renderCModule(*lengths, jit, out, error)) << error;
  EXPECT_NE(out.header.find("#define scaled_sine_y_NNZ 4"), std::string::npos) << out.header;
  EXPECT_EQ(out.header.find("_COLIND"), std::string::npos);
  ASSERT_EQ(out.entries[0].outputs[0].tables.size(), 2u);
  EXPECT_EQ(out.entries[0].outputs[0].tables[0], std::make_pair(std::string("COLIND"), int64_t(5)));
  EXPECT_EQ(out.entries[0].outputs[0].tables[1], std::make_pair(std::string("ROW"), int64_t(4)));

  // Writing the tables from such a module is a clear error, not empty macros.
  auto again = trace::buildExprModule(*ctx, *fn, /*tableValues=*/false);
  codegen::RenderedModule refused;
  EXPECT_FALSE(codegen::renderCModule(*again, {}, refused, error));
  EXPECT_NE(error.find("index table 'colind', not its values"), std::string::npos) << error;

  // Built for an export: the values, written as macros.
  auto values = trace::buildExprModule(*ctx, *fn);
  codegen::RenderedModule exported;
  ASSERT_TRUE(codegen::renderCModule(*values, {}, exported, error)) << error;
  EXPECT_NE(exported.header.find("#define scaled_sine_y_COLIND { \\\n    0, 1, 2, 3, 4 }"),
            std::string::npos)
      << exported.header;
  EXPECT_NE(exported.header.find("#define scaled_sine_y_ROW { \\\n    0, 1, 2, 3 }"),
            std::string::npos);

  // A table of another element type (64-bit, as modules once carried) is
  // refused by name, not read as an empty table.
  std::string text;
  llvm::raw_string_ostream os(text);
  trace::buildExprModule(*ctx, *fn)->print(os); // rendering lowered `values` in place
  std::string i32 = "colind = array<i32:";
  size_t at = text.find(i32);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, i32.size(), "colind = array<i64:");
  mlir::ParserConfig unverified(ctx.get(), /*verifyAfterParse=*/false);
  auto wide = mlir::parseSourceString<mlir::ModuleOp>(text, unverified);
  ASSERT_TRUE(wide);
  codegen::RenderedModule wrong;
  EXPECT_FALSE(codegen::renderCModule(*wide, {}, wrong, error));
  EXPECT_NE(error.find("index table 'colind' must be its values (array<i32: ...>)"),
            std::string::npos)
      << error;
}
