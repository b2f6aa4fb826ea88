//===- CTypesTest.cpp - C spellings the hand-built EmitC modules rely on ---===//

#include "scaly/Target/CEmitter.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace scaly;

// The WebAssembly shim builds its functions' types from the spellings the
// printer gave the entries: reading one back and printing it is the same
// text, whatever its element, pointer depth and constness.
TEST(CTypes, TypeFromNameIsTypeNamesInverse) {
  MLIRContext ctx;
  ctx.loadDialect<emitc::EmitCDialect>();
  for (const char *element : {"double", "float", "int32_t", "int64_t", "uint32_t", "uint64_t",
                              "uint8_t", "int", "void", "rollout_in"})
    for (const char *stars : {"", "*", "**"})
      for (bool isConst : {false, true}) {
        std::string name = std::string(isConst ? "const " : "") + element + stars;
        auto [type, readConst] = c::typeFromName(&ctx, name);
        EXPECT_EQ(readConst, isConst) << name;
        EXPECT_EQ(c::typeName(type, readConst), name);
      }
  EXPECT_TRUE(c::typeFromName(&ctx, "double").first.isF64());
  EXPECT_TRUE(isa<emitc::OpaqueType>(c::typeFromName(&ctx, "int").first));
}

/// The bytes a C string literal (quotes, \" \\ and three-digit octal
/// escapes, as C reads them) stands for.
static std::string readCLiteral(const std::string &literal) {
  EXPECT_TRUE(literal.size() >= 2 && literal.front() == '"' && literal.back() == '"') << literal;
  std::string bytes;
  for (size_t i = 1; i + 1 < literal.size(); ++i) {
    if (literal[i] != '\\') {
      EXPECT_NE(literal[i], '"') << "an unescaped quote in " << literal;
      bytes += literal[i];
    } else if (literal[i + 1] >= '0' && literal[i + 1] <= '7') {
      bytes += static_cast<char>(std::stoi(literal.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      bytes += literal[++i];
    }
  }
  return bytes;
}

TEST(CTypes, StringLiteralsReadBackAsTheirText) {
  for (std::string text : {std::string("rollout"), std::string(": "), std::string(""),
                           std::string("say \"hi\"\\n"), std::string("tab\tnew\nline\x7f"),
                           std::string("SCALY_ERR_NULL_ABI (arg or res is null)")}) {
    std::string literal = c::stringLiteral(text);
    EXPECT_EQ(readCLiteral(literal), text) << literal;
    EXPECT_EQ(literal.find('\n'), std::string::npos) << "a line break in " << literal;
  }
}
