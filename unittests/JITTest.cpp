//===- JITTest.cpp - in-process Clang and the ORC loader -------------------===//

#include "scaly/JIT/ClangCompiler.h"
#include "scaly/JIT/ObjectLoader.h"

#include <cmath>
#include <cstdio>
#include <malloc.h>
#include <gtest/gtest.h>

using namespace scaly::jit;

namespace {
const char *kSource = R"(#include <math.h>
int twice_sin(const double** arg, double** res, int* iw, double* w, int mem) {
  (void)iw; (void)w; (void)mem;
  res[0][0] = 2.0 * sin(arg[0][0]);
  return 0;
}
)";
using Entry = int (*)(const double **, double **, int *, double *, int);
} // namespace

TEST(JIT, CompileLoadAndCall) {
  std::string object, diagnostics;
  ASSERT_TRUE(compileToObject({{"twice_sin.c", kSource}}, {"-O2", "-fno-math-errno"}, object,
                              diagnostics))
      << diagnostics;
  std::string error;
  auto loaded = loadObject(object, "twice_sin", error);
  ASSERT_TRUE(loaded) << error;
  auto fn = reinterpret_cast<Entry>(loaded->lookup("twice_sin", error));
  ASSERT_TRUE(fn) << error;
  double x = 0.3, y = 0;
  const double *arg[] = {&x};
  double *res[] = {&y};
  EXPECT_EQ(fn(arg, res, nullptr, nullptr, 0), 0);
  EXPECT_DOUBLE_EQ(y, 2.0 * std::sin(0.3));
}

TEST(JIT, CompileErrorsCarryDiagnostics) {
  std::string object, diagnostics;
  EXPECT_FALSE(compileToObject({{"bad.c", "int f( { return 0; }"}}, {"-O2"}, object, diagnostics));
  EXPECT_NE(diagnostics.find("error"), std::string::npos) << diagnostics;
}

TEST(JIT, GarbageObjectsAreRejected) {
  std::string error;
  EXPECT_FALSE(loadObject("definitely not an ELF file", "junk", error));
  EXPECT_FALSE(error.empty());
  std::string object, diagnostics;
  ASSERT_TRUE(compileToObject({{"twice_sin.c", kSource}}, {"-O2"}, object, diagnostics));
  EXPECT_FALSE(loadObject(object.substr(0, object.size() / 3), "truncated", error));
}

TEST(JIT, ProbeSeesTheTargetMacros) {
  std::string macros, diagnostics;
  ASSERT_TRUE(probeMacros({"-march=x86-64-v3"}, macros, diagnostics)) << diagnostics;
  EXPECT_NE(macros.find("#define __AVX2__ 1"), std::string::npos);
  ASSERT_TRUE(probeMacros({"-march=x86-64"}, macros, diagnostics)) << diagnostics;
  EXPECT_EQ(macros.find("#define __AVX2__ 1"), std::string::npos);
}

// Clang's driver asks cc1 to leak its AST and code generator (a compiler
// process exits right after); in process that kept ~0.7 MB per compile.
TEST(JIT, RepeatedCompilesDoNotKeepMemory) {
  std::string object, diagnostics;
  std::vector<std::string> flags{"-O2", "-fno-math-errno"};
  for (int i = 0; i < 3; ++i) // warm up: targets, the driver's answer
    ASSERT_TRUE(compileToObject({{"twice_sin.c", kSource}}, flags, object, diagnostics));
  size_t before = mallinfo2().uordblks;
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(compileToObject({{"twice_sin.c", kSource}}, flags, object, diagnostics));
  size_t after = mallinfo2().uordblks;
  EXPECT_LT(after, before + (1u << 20)) << "20 compiles kept " << (after - before) << " bytes";
}

// The driver's command line is remembered per flag list; the file name and
// the language its extension selects must still be those of each compile.
TEST(JIT, RememberedCommandLinesKeepEachFilesNameAndLanguage) {
  std::string object, diagnostics;
  std::vector<std::string> flags{"-O1"};
  ASSERT_TRUE(compileToObject({{"first.c", "int f(void) { return 1; }"}}, flags, object,
                              diagnostics));
  EXPECT_FALSE(compileToObject({{"second.c", "int g(void) { return undeclared; }"}}, flags,
                               object, diagnostics));
  EXPECT_NE(diagnostics.find("second.c:1:"), std::string::npos) << diagnostics;
  diagnostics.clear();
  // C++ only: a reference parameter. As C this is an error.
  ASSERT_TRUE(compileToObject({{"third.cpp", "int h(int &x) { return x; }"}}, flags, object,
                              diagnostics))
      << diagnostics;
  EXPECT_FALSE(compileToObject({{"fourth.c", "int h(int &x) { return x; }"}}, flags, object,
                               diagnostics));
  // With debug information the object names its source (-main-file-name).
  std::vector<std::string> debug{"-O1", "-g"};
  ASSERT_TRUE(compileToObject({{"fifth.c", "int f(void) { return 5; }"}}, debug, object,
                              diagnostics));
  ASSERT_TRUE(compileToObject({{"sixth.c", "int f(void) { return 6; }"}}, debug, object,
                              diagnostics));
  EXPECT_NE(object.find("sixth.c"), std::string::npos);
  EXPECT_EQ(object.find("fifth.c"), std::string::npos);
  EXPECT_EQ(object.find("scaly-placeholder"), std::string::npos);
}

// The resource directory comes from the libclang-cpp this process loaded; it
// must be the one the clang-19 executable of the same installation reports.
TEST(JIT, ResourceDirectoryOfTheLinkedClang) {
  std::string dir = clangResourceDir();
  ASSERT_FALSE(dir.empty());
  FILE *pipe = popen("clang-19 -print-resource-dir 2>/dev/null", "r");
  if (!pipe)
    GTEST_SKIP() << "no clang-19 executable to compare with";
  char line[512] = {0};
  bool got = fgets(line, sizeof line, pipe) != nullptr;
  pclose(pipe);
  if (!got)
    GTEST_SKIP() << "clang-19 -print-resource-dir printed nothing";
  std::string expected(line);
  while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r'))
    expected.pop_back();
  EXPECT_EQ(dir, expected);
}
