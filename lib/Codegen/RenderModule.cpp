//===- RenderModule.cpp - expression module to C source and header -------===//

#include "scaly/Codegen/RenderModule.h"

#include "scaly/Conversion/Passes.h"
#include "scaly/Dialect/Expr/Passes.h"
#include "scaly/Dialect/Program/Passes.h"
#include "scaly/Target/CEmitter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>

using namespace mlir;

namespace scaly::codegen {

void buildLoweringPipeline(OpPassManager &pm, StringRef entry) {
  pm.addPass(expr::createMapToLoop());
  pm.addPass(expr::createExpandCalls());
  pm.addPass(expr::createSimplify());
  pm.addPass(createCSEPass());
  LowerToProgramOptions lowerOptions;
  lowerOptions.entry = entry.str();
  pm.addPass(createLowerToProgram(lowerOptions));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(prog::createPlanWorkspace());
}

std::string recipeText(StringRef name, const RenderOptions &o) {
  std::string march = o.cpu == "generic" ? "" : (o.cpu == "native" ? "-march=native " : "-march=" + o.cpu + " ");
  std::string cpu = o.cpu == "native" ? "host-local native CPU" : o.cpu;
  return llvm::formatv("Scaly build recipe\n"
                       " * CPU baseline: {0}\n"
                       " * lanes={1}, dialect={2}, vector_libm={3}, reciprocal={4}\n"
                       " * Math library: scalar libm\n"
                       " * gcc -O3 {5}-fno-math-errno -c {6}.c\n"
                       " * clang -O3 {5}-fno-math-errno -c {6}.c\n"
                       " * Link with: -lm",
                       cpu, o.lanes, o.dialect, o.vectorLibm, o.reciprocal ? "True" : "False",
                       march, name)
      .str();
}

namespace {

std::atomic<long> loweredCount{0}, renderedCount{0};

/// Collects diagnostics into a string while alive.
struct DiagnosticCollector {
  std::string text;
  ScopedDiagnosticHandler handler;
  explicit DiagnosticCollector(MLIRContext *ctx)
      : handler(ctx, [this](Diagnostic &d) {
          if (!text.empty())
            text += "\n";
          text += d.str();
          for (Diagnostic &note : d.getNotes())
            text += "\n  note: " + note.str();
          return success();
        }) {}
};

/// C type of a buffer element: bool buffers hold uint8_t, none is void.
std::string elementCType(Type t) {
  if (isa<NoneType>(t))
    return "void";
  if (t.isInteger(1))
    return "uint8_t";
  return c::scalarCType(t);
}

/// The header: recipe, include guard, SZ_* macros and the entry declaration.
std::string renderHeader(prog::ProcOp entry, StringRef recipe, const RenderOptions &o) {
  std::string name = entry.getSymName().str();
  Type wElem = cast<prog::PtrType>(entry.getWorkspaceArg().getType()).getElementType();
  std::string t = elementCType(wElem);
  std::string guard = "SCALY_" + llvm::StringRef(name).upper() + "_H";
  std::string s = "/* " + recipe.str() + "\n */\n";
  s += "#ifndef " + guard + "\n#define " + guard + "\n\n";
  s += "#include <stddef.h>\n#include <stdint.h>\n\n";
  s += llvm::formatv("#define {0}_SZ_ARG {1}\n#define {0}_SZ_RES {2}\n#define {0}_SZ_IW 0\n"
                     "#define {0}_SZ_W {3}\n\n",
                     name, entry.getNumInputs(), entry.getNumOutputs(), entry.getWorkspace())
           .str();
  auto names = entry.getArgNames();
  auto sizes = [&](unsigned first, ArrayRef<int64_t> n) {
    std::string list;
    for (size_t i = 0; i < n.size(); ++i) {
      Type e = cast<prog::PtrType>(entry.getArgumentTypes()[first + i]).getElementType();
      list += llvm::formatv("\n *   [{0}] {1}: {2} {3}", i,
                            cast<StringAttr>(names[first + i]).getValue(), elementCType(e), n[i])
                  .str();
    }
    return list;
  };
  s += "/* Inputs (arg), number of stored values:" + sizes(0, entry.getInputSizes()) +
       "\n * Outputs (res), number of stored values:" +
       sizes(entry.getNumInputs(), entry.getOutputSizes()) +
       "\n * Returns 0 on success, else a SCALY_ERR_* status code. */\n";
  s += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  s += llvm::formatv("int {0}(const {1}** arg, {1}** res, int* iw, {1}* w, int mem);\n\n", name, t)
           .str();
  s += "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return s;
}

} // namespace

RenderCounters renderCounters() { return {loweredCount.load(), renderedCount.load()}; }

bool printCSource(ModuleOp emitcModule, std::string &out, std::string &error) {
  DiagnosticCollector diags(emitcModule.getContext());
  llvm::raw_string_ostream os(out);
  if (failed(c::printC(emitcModule, os))) {
    error = diags.text;
    return false;
  }
  return true;
}

bool renderCModule(ModuleOp module, const RenderOptions &options, RenderedModule &out,
                   std::string &error) {
  MLIRContext *ctx = module.getContext();
  DiagnosticCollector diags(ctx);
  auto fail = [&](StringRef what) {
    error = (what + ":\n" + diags.text).str();
    return false;
  };
  ++loweredCount;
  PassManager lower(ctx);
  buildLoweringPipeline(lower);
  if (failed(lower.run(module)))
    return fail("lowering to the program dialect failed");
  prog::ProcOp entry;
  for (auto proc : module.getOps<prog::ProcOp>())
    if (proc.getEntry())
      entry = proc;
  if (!entry)
    return fail("lowering produced no entry procedure");
  out.name = entry.getSymName().str();
  out.recipe = recipeText(out.name, options);
  out.header = renderHeader(entry, out.recipe, options);

  ++renderedCount;
  PassManager toC(ctx);
  ProgramToEmitCOptions emitOptions;
  emitOptions.recipe = out.recipe;
  emitOptions.header = options.lang == "c" ? out.name + ".h" : "";
  toC.addPass(createProgramToEmitC(emitOptions));
  if (failed(toC.run(module)))
    return fail("conversion to EmitC failed");
  out.source.clear();
  llvm::raw_string_ostream os(out.source);
  if (failed(c::printC(module, os)))
    return fail("printing C failed");
  return true;
}

} // namespace scaly::codegen
