//===- CarriedLoopTest.cpp - scf.for's carried values, compiled and run ---===//
//
// Program modules whose loops carry values (scf.for iter_args) are printed
// as C, compiled by gcc and clang-19 with -Wall -Wextra -Werror into a
// shared object, loaded and called; the results are compared against the
// same loops computed here. One module is built with createCountedLoop taking
// init values (fibonacci, whose yield a, b = b, a + b needs a temporary,
// and a swap), the others are parsed (a dot product and a sum of squares
// reading input buffers; four partial sums carried as one lane vector).
//
//===----------------------------------------------------------------------===//

#include "scaly/Conversion/Passes.h"
#include "scaly/Dialect/Program/ProgramDialect.h"
#include "scaly/InitScaly.h"
#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace mlir;
namespace pg = scaly::prog;

namespace {

using Entry = int (*)(const double **, double **, int *, double *, int);

struct CarriedLoops : ::testing::Test {
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> ctx;
  void SetUp() override {
    scaly::registerScalyDialects(registry);
    ctx = std::make_unique<MLIRContext>(registry);
    ctx->loadAllAvailableDialects();
  }

  /// The C of a program module (no recipe comment, no header include).
  std::string toC(ModuleOp module) {
    PassManager pm(ctx.get());
    pm.addPass(scaly::createProgramToEmitC(scaly::ProgramToEmitCOptions{}));
    if (failed(pm.run(module)))
      return "";
    std::string c;
    llvm::raw_string_ostream os(c);
    if (failed(scaly::c::printC(module, os)))
      return "";
    return c;
  }
};

/// A compiler on PATH, or "" when there is none of that name.
std::string findCompiler(llvm::StringRef name) {
  auto path = llvm::sys::findProgramByName(name);
  return path ? *path : "";
}

/// Compiles `source` with `compiler` into a shared object and loads it.
/// Returns the dlopen handle, or null after a test failure with the
/// compiler's messages (the temporary folder is then kept).
void *compileAndLoad(const std::string &compiler, const std::string &source,
                     const std::string &stem) {
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("scaly-carried", dir)) {
    ADD_FAILURE() << "cannot create a temporary folder";
    return nullptr;
  }
  std::string c = (dir + "/" + stem + ".c").str(), so = (dir + "/" + stem + ".so").str();
  std::string log = (dir + "/" + stem + ".log").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(c, ec);
    out << source;
  }
  std::vector<llvm::StringRef> args{compiler, "-O3", "-Wall", "-Wextra", "-Werror",
                                    "-fno-math-errno", "-ffp-contract=off", "-fPIC",
                                    "-shared", "-o", so, c, "-lm"};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log),
                                                llvm::StringRef(log)};
  int rc = llvm::sys::ExecuteAndWait(compiler, args, std::nullopt, redirects);
  if (rc != 0) {
    auto text = llvm::MemoryBuffer::getFile(log);
    ADD_FAILURE() << compiler << " failed (" << rc << "):\n"
                  << (text ? (*text)->getBuffer().str() : std::string()) << "\n"
                  << source;
    return nullptr;
  }
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    ADD_FAILURE() << "dlopen " << so << ": " << dlerror();
    return nullptr;
  }
  llvm::sys::fs::remove_directories(dir); // the loaded object stays mapped
  return handle;
}

/// gcc and clang-19, those installed (scripts/setup.sh installs both).
std::vector<std::string> compilers() {
  std::vector<std::string> found;
  for (llvm::StringRef name : {"gcc", "clang-19"})
    if (std::string path = findCompiler(name); !path.empty())
      found.push_back(path);
  return found;
}

constexpr int64_t kFibSteps = 60; // F(60) = 1548008755920 < 2^53: exact in double
constexpr int64_t kSwaps = 7;

/// @fib: y = [F(n), F(n+1), the pair (1.5, -2.5) swapped kSwaps times],
/// built with createCountedLoop taking init values.
OwningOpRef<ModuleOp> buildFib(MLIRContext *ctx) {
  const char *skeleton = R"(
    prog.proc @fib(%y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["y", "w"], entry, input_sizes = array<i64>, output_sizes = array<i64: 4>} {
      prog.return
    })";
  auto module = parseSourceString<ModuleOp>(skeleton, ctx);
  if (!module)
    return module;
  auto proc = *module->getOps<pg::ProcOp>().begin();
  Value y = proc.getBody().getArgument(0);
  Location loc = proc.getLoc();
  OpBuilder b(proc.getBody().front().getTerminator());
  auto constant = [&](double v) -> Value {
    return b.create<arith::ConstantOp>(loc, b.getF64FloatAttr(v));
  };
  Value zero = constant(0.0), one = constant(1.0);
  // a, b = b, a + b
  auto fib = pg::createCountedLoop(b, loc, 0, kFibSteps, 1, "i", ValueRange{zero, one});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(pg::yieldOf(fib));
    auto args = fib.getRegionIterArgs();
    Value next = b.create<arith::AddFOp>(loc, args[0], args[1]);
    pg::yieldOf(fib)->setOperands(ValueRange{args[1], next});
  }
  // p, q = q, p
  Value first = constant(1.5), second = constant(-2.5);
  auto swap = pg::createCountedLoop(b, loc, 0, kSwaps, 1, "k", ValueRange{first, second});
  auto args = swap.getRegionIterArgs();
  pg::yieldOf(swap)->setOperands(ValueRange{args[1], args[0]});
  SmallVector<Value> out{fib.getResult(0), fib.getResult(1), swap.getResult(0), swap.getResult(1)};
  b.create<pg::StoreOp>(loc, out, y, b.getI64IntegerAttr(0));
  return module;
}

constexpr int64_t kDotSize = 1000;

/// @dot: y = [sum x[k] * z[k], sum x[k]^2], two values carried by one loop.
const char *kDot = R"(
  prog.proc @dot(%x: !prog.ptr<const f64>, %z: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "z", "y", "w"], entry, input_sizes = array<i64: 1000, 1000>, output_sizes = array<i64: 2>} {
    %zero = arith.constant 0.0 : f64
    %lo1 = arith.constant 0 : i64
    %hi1 = arith.constant 1000 : i64
    %st1 = arith.constant 1 : i64
    %r:2 = scf.for %k = %lo1 to %hi1 step %st1 iter_args(%dot = %zero, %sq = %zero) -> (f64, f64) : i64 {
      %xk = prog.offset %x[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %zk = prog.offset %z[%k] : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %u = prog.load %xk[0] : !prog.ptr<const f64> -> f64
      %v = prog.load %zk[0] : !prog.ptr<const f64> -> f64
      %m = arith.mulf %u, %v : f64
      %d = arith.addf %dot, %m : f64
      %uu = arith.mulf %u, %u : f64
      %s = arith.addf %sq, %uu : f64
      scf.yield %d, %s : f64, f64
    } {scaly.name = "k"}
    prog.store %r#0, %r#1 to %y[0] : f64, f64 into !prog.ptr<f64>
    prog.return
  })";

/// @partial: four partial sums carried as one lane vector (vector<4xf64>),
/// y[k] = sum over i of x[4 * i + k].
const char *kPartial = R"(
  prog.proc @partial(%x: !prog.ptr<const f64>, %y: !prog.ptr<f64>, %w: !prog.ptr<f64>) attributes {arg_names = ["x", "y", "w"], entry, input_sizes = array<i64: 64>, output_sizes = array<i64: 4>} {
    %zero = arith.constant 0.0 : f64
    %z4 = vector.broadcast %zero : f64 to vector<4xf64>
    %lo2 = arith.constant 0 : i64
    %hi2 = arith.constant 16 : i64
    %st2 = arith.constant 1 : i64
    %acc = scf.for %i = %lo2 to %hi2 step %st2 iter_args(%s = %z4) -> (vector<4xf64>) : i64 {
      %xi = prog.offset %x[%i] {scale = 4 : i64} : !prog.ptr<const f64> -> !prog.ptr<const f64>
      %v = prog.load %xi[0] : !prog.ptr<const f64> -> vector<4xf64>
      %s2 = arith.addf %s, %v : vector<4xf64>
      scf.yield %s2 : vector<4xf64>
    } {scaly.name = "i"}
    prog.store %acc to %y[0] : vector<4xf64> into !prog.ptr<f64>
    prog.return
  })";

} // namespace

TEST_F(CarriedLoops, FibonacciAndSwapCompileAndRun) {
  auto module = buildFib(ctx.get());
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(verify(*module)));
  std::string c = toC(*module);
  ASSERT_FALSE(c.empty());
  double a = 0, bb = 1;
  for (int64_t i = 0; i < kFibSteps; ++i) {
    double next = a + bb;
    a = bb;
    bb = next;
  }
  EXPECT_EQ(a, 1548008755920.0); // F(60)
  auto list = compilers();
  if (list.empty())
    GTEST_SKIP() << "neither gcc nor clang-19 is installed";
  for (const std::string &cc : list) {
    SCOPED_TRACE(cc);
    void *lib = compileAndLoad(cc, c, "fib");
    ASSERT_TRUE(lib);
    auto fn = reinterpret_cast<Entry>(dlsym(lib, "fib"));
    ASSERT_TRUE(fn);
    double y[4] = {-1, -1, -1, -1};
    double *res[] = {y};
    double dummy = 0;
    const double *arg[] = {&dummy};
    EXPECT_EQ(fn(arg, res, nullptr, nullptr, 0), 0);
    EXPECT_EQ(y[0], a);
    EXPECT_EQ(y[1], bb);
    EXPECT_EQ(y[2], -2.5); // an odd number of swaps
    EXPECT_EQ(y[3], 1.5);
    dlclose(lib);
  }
}

TEST_F(CarriedLoops, DotProductCompilesAndRuns) {
  auto module = parseSourceString<ModuleOp>(kDot, ctx.get());
  ASSERT_TRUE(module);
  std::string c = toC(*module);
  ASSERT_FALSE(c.empty());
  std::vector<double> x(kDotSize), z(kDotSize);
  for (int64_t k = 0; k < kDotSize; ++k) {
    x[k] = std::sin(0.1 * k) + 0.25;
    z[k] = std::cos(0.37 * k) * 3.0 - 1.0;
  }
  double dot = 0, sq = 0;
  for (int64_t k = 0; k < kDotSize; ++k) {
    dot += x[k] * z[k];
    sq += x[k] * x[k];
  }
  auto list = compilers();
  if (list.empty())
    GTEST_SKIP() << "neither gcc nor clang-19 is installed";
  for (const std::string &cc : list) {
    SCOPED_TRACE(cc);
    void *lib = compileAndLoad(cc, c, "dot");
    ASSERT_TRUE(lib);
    auto fn = reinterpret_cast<Entry>(dlsym(lib, "dot"));
    ASSERT_TRUE(fn);
    double y[2] = {-1, -1};
    const double *arg[] = {x.data(), z.data()};
    double *res[] = {y};
    EXPECT_EQ(fn(arg, res, nullptr, nullptr, 0), 0);
    // The same additions in the same order, without contraction: equal.
    EXPECT_DOUBLE_EQ(y[0], dot);
    EXPECT_DOUBLE_EQ(y[1], sq);
    dlclose(lib);
  }
}

TEST_F(CarriedLoops, LaneVectorSumsCompileAndRun) {
  auto module = parseSourceString<ModuleOp>(kPartial, ctx.get());
  ASSERT_TRUE(module);
  std::string c = toC(*module);
  ASSERT_NE(c.find("scaly_f64x4 v0 = scaly_splat_f64x4(0.0);"), std::string::npos) << c;
  std::vector<double> x(64);
  for (int k = 0; k < 64; ++k)
    x[k] = 1.0 / (k + 1);
  double want[4] = {0, 0, 0, 0};
  for (int i = 0; i < 16; ++i)
    for (int k = 0; k < 4; ++k)
      want[k] += x[4 * i + k];
  auto list = compilers();
  if (list.empty())
    GTEST_SKIP() << "neither gcc nor clang-19 is installed";
  for (const std::string &cc : list) {
    SCOPED_TRACE(cc);
    void *lib = compileAndLoad(cc, c, "partial");
    ASSERT_TRUE(lib);
    auto fn = reinterpret_cast<Entry>(dlsym(lib, "partial"));
    ASSERT_TRUE(fn);
    double y[4] = {-1, -1, -1, -1};
    const double *arg[] = {x.data()};
    double *res[] = {y};
    EXPECT_EQ(fn(arg, res, nullptr, nullptr, 0), 0);
    for (int k = 0; k < 4; ++k)
      EXPECT_EQ(y[k], want[k]) << "lane " << k;
    dlclose(lib);
  }
}
