//===- ClangCompiler.cpp - compile C in process with Clang ---------------===//

#include "scaly/JIT/ClangCompiler.h"
#include "scaly/Dialect/Expr/MathFunctions.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/Version.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/OptBisect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>

using namespace clang;

namespace scaly::jit {
namespace {

/// The Clang this library links, as the driver's own path: the driver finds
/// its resource directory (<root>/lib/clang/19: stddef.h, stdint.h, ...)
/// from it. It is <root>/bin/clang for the libclang-cpp loaded in this
/// process at <root>/lib, the path as loaded first (Debian's
/// /usr/lib/llvm-19/lib), then with symbolic links resolved; whichever has
/// a resource directory. Empty when neither does (see clangSetupProblem).
struct LinkedClang {
  std::string library;    // the libclang-cpp this process loaded
  std::string executable; // <root>/bin/clang: the driver's path
  std::string resourceDir;
};

const LinkedClang &linkedClang() {
  static const LinkedClang found = [] {
    LinkedClang clang;
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&driver::Driver::GetResourcesPath), &info) ||
        !info.dli_fname)
      return clang;
    clang.library = info.dli_fname;
    llvm::SmallString<256> resolved;
    std::vector<std::string> candidates{clang.library};
    if (!llvm::sys::fs::real_path(clang.library, resolved))
      candidates.push_back(std::string(resolved));
    for (const std::string &library : candidates) {
      llvm::SmallString<256> executable(
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(library)));
      llvm::sys::path::append(executable, "bin", "clang");
      std::string resources = driver::Driver::GetResourcesPath(executable);
      if (llvm::sys::fs::exists(resources + "/include/stddef.h")) {
        clang.executable = std::string(executable);
        clang.resourceDir = resources;
        break;
      }
    }
    return clang;
  }();
  return found;
}

/// Why the in-process compiler cannot work here, or empty.
std::string clangSetupProblem() {
  const LinkedClang &clang = linkedClang();
  if (clang.library.empty())
    return "scaly jit: cannot tell which libclang-cpp this process loaded (dladdr failed)";
  if (clang.resourceDir.empty())
    return "scaly jit: no Clang resource directory (lib/clang/" CLANG_VERSION_MAJOR_STRING
           "/include/stddef.h) next to " +
           clang.library + " (Debian: apt install libclang-common-19-dev)";
  return "";
}
constexpr const char *kPreludeDir = "/scaly-jit/prelude";
constexpr const char *kWorkDir = "/scaly-jit/src";

/// The prelude's math.h: the C library's declarations of every math function
/// a module may call (the table of MathFunctions.h), double and float.
std::string mathHeader() {
  std::string h = "/* Scaly JIT prelude: the C library's math.h declarations a module uses. */\n"
                  "#ifndef SCALY_PRELUDE_MATH_H\n#define SCALY_PRELUDE_MATH_H\n"
                  "#define NAN (__builtin_nanf(\"\"))\n#define INFINITY (__builtin_inff())\n";
  for (const char *type : {"double", "float"})
    for (const scaly::expr::MathFunctionInfo &f : scaly::expr::mathFunctions()) {
      std::string name = f.cName + std::string(type[0] == 'f' ? "f" : "");
      h += std::string(type) + " " + name + "(" + type + (f.arity == 2 ? ", " + std::string(type) : "") + ");\n";
    }
  return h + "#endif\n";
}

constexpr const char *kStddefH = R"(/* Scaly JIT prelude: stddef.h */
#ifndef SCALY_PRELUDE_STDDEF_H
#define SCALY_PRELUDE_STDDEF_H
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
#define NULL ((void*)0)
#endif
)";

constexpr const char *kStdintH = R"(/* Scaly JIT prelude: stdint.h */
#ifndef SCALY_PRELUDE_STDINT_H
#define SCALY_PRELUDE_STDINT_H
typedef __INT8_TYPE__ int8_t;
typedef __UINT8_TYPE__ uint8_t;
typedef __INT16_TYPE__ int16_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __INT32_TYPE__ int32_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __INT64_TYPE__ int64_t;
typedef __UINT64_TYPE__ uint64_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
#define INT32_MAX __INT32_MAX__
#define INT32_MIN (-__INT32_MAX__ - 1)
#define INT64_MAX __INT64_MAX__
#define INT64_MIN (-__INT64_MAX__ - 1)
#endif
)";

constexpr const char *kStdboolH = R"(/* Scaly JIT prelude: stdbool.h */
#ifndef SCALY_PRELUDE_STDBOOL_H
#define SCALY_PRELUDE_STDBOOL_H
#define bool _Bool
#define true 1
#define false 0
#endif
)";

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

/// A file system where the prelude and the sources exist in memory, over
/// the real one (for the resource directory's headers).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> overlay(const VirtualFiles &files) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (auto &[name, text] : preludeHeaders())
    memory->addFile(std::string(kPreludeDir) + "/" + name, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(text));
  for (auto &[name, text] : files)
    memory->addFile(std::string(kWorkDir) + "/" + name, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(text));
  auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
  fs->pushOverlay(memory);
  return fs;
}

/// The cc1 command line the driver makes of `clang <flags> <file>`. Asking
/// the driver costs about a millisecond (it looks for GCC installations on
/// disk), and its answer depends only on the flags, the file's name (its
/// extension chooses the language) and the working directory: it is built
/// once per flag list, extension and working directory for a placeholder
/// file, whose path and name are then substituted. (The driver's own
/// warnings, such as an unused flag, are therefore printed by the first
/// compile with a flag list only.)
bool cc1Arguments(const std::vector<std::string> &flags, const std::string &file,
                  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs, DiagnosticsEngine &diags,
                  llvm::raw_ostream &diagOS, std::vector<std::string> &cc1) {
  static std::mutex memoMutex;
  static std::map<std::vector<std::string>, std::vector<std::string>> memo;
  std::string extension = llvm::sys::path::extension(file).str();
  std::string placeholderName = "scaly-placeholder" + extension;
  std::string placeholder = std::string(kWorkDir) + "/" + placeholderName;
  std::vector<std::string> key = flags;
  key.push_back(extension);
  if (auto cwd = fs->getCurrentWorkingDirectory())
    key.push_back(*cwd);
  std::unique_lock<std::mutex> lock(memoMutex);
  auto it = memo.find(key);
  if (it == memo.end()) {
    lock.unlock();
    std::vector<std::string> argStore{linkedClang().executable};
    argStore.insert(argStore.end(), flags.begin(), flags.end());
    argStore.push_back(placeholder);
    std::vector<const char *> args;
    for (auto &a : argStore)
      args.push_back(a.c_str());
    driver::Driver driver(linkedClang().executable, llvm::sys::getDefaultTargetTriple(), diags,
                          "scaly jit", fs);
    driver.setCheckInputsExist(false);
    std::unique_ptr<driver::Compilation> compilation(driver.BuildCompilation(args));
    if (!compilation || diags.hasErrorOccurred())
      return false;
    const driver::JobList &jobs = compilation->getJobs();
    if (jobs.size() != 1 || !isa<driver::Command>(*jobs.begin())) {
      diagOS << "scaly jit: the clang driver did not produce exactly one compile job\n";
      return false;
    }
    const auto &made = cast<driver::Command>(*jobs.begin()).getArguments();
    lock.lock();
    if (memo.size() >= 64) // callers varying their flags (e.g. -D) every time
      memo.clear();
    it = memo.emplace(key, std::vector<std::string>(made.begin(), made.end())).first;
  }
  cc1 = it->second;
  lock.unlock();
  std::string name = llvm::sys::path::filename(file).str();
  for (size_t i = 0; i < cc1.size(); ++i) {
    if (cc1[i] == placeholder)
      cc1[i] = file;
    else if (cc1[i] == "-main-file-name" && i + 1 < cc1.size() && cc1[i + 1] == placeholderName)
      cc1[++i] = name;
  }
  return true;
}

/// Build a compiler instance for `clang <flags> <file>` through the driver.
std::unique_ptr<CompilerInstance> makeInstance(const std::vector<std::string> &flags,
                                               const std::string &file,
                                               llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs,
                                               llvm::raw_ostream &diagOS, bool &ok) {
  ok = false;
  if (std::string problem = clangSetupProblem(); !problem.empty()) {
    diagOS << problem << "\n";
    return nullptr;
  }
  auto diagOpts = llvm::makeIntrusiveRefCnt<DiagnosticOptions>();
  auto *printer = new TextDiagnosticPrinter(diagOS, &*diagOpts);
  auto diagIDs = llvm::makeIntrusiveRefCnt<DiagnosticIDs>();
  DiagnosticsEngine diags(diagIDs, &*diagOpts, printer);

  std::vector<std::string> all = flags;
  // The prelude shadows the C library's headers; nothing else changes.
  all.push_back("-nostdlibinc");
  all.push_back(std::string("-isystem") + kPreludeDir);
  std::vector<std::string> cc1Store;
  if (!cc1Arguments(all, file, fs, diags, diagOS, cc1Store))
    return nullptr;
  std::vector<const char *> cc1;
  for (auto &a : cc1Store)
    cc1.push_back(a.c_str());
  auto instance = std::make_unique<CompilerInstance>();
  instance->createDiagnostics(new TextDiagnosticPrinter(diagOS, &*diagOpts), true);
  if (!CompilerInvocation::CreateFromArgs(instance->getInvocation(), cc1,
                                          instance->getDiagnostics(),
                                          linkedClang().executable.c_str()))
    return nullptr;
  // The driver asks cc1 to leak its AST, Sema and code generator at exit (a
  // compiler process is about to end anyway). This process is not: without
  // freeing them, every compile kept 0.4-1.2 MB, and the next compile paid
  // page faults for fresh memory instead of reusing it.
  instance->getFrontendOpts().DisableFree = false;
  instance->getCodeGenOpts().DisableFree = false;
  // Clearing the AST before the backend is meant for -disable-free (nothing
  // destroys it afterwards); with freeing on, keep it until it is destroyed.
  instance->getCodeGenOpts().ClearASTBeforeBackend = false;
  instance->createFileManager(fs);
  ok = true;
  return instance;
}

/// `clang -E -dM` into a string: PrintPreprocessedAction always writes to
/// its output file, so this action prints to a stream of ours.
class MacroDumpAction : public PreprocessorFrontendAction {
public:
  explicit MacroDumpAction(std::string &out) : out(out) {}

protected:
  void ExecuteAction() override {
    CompilerInstance &ci = getCompilerInstance();
    llvm::raw_string_ostream os(out);
    DoPrintPreprocessedInput(ci.getPreprocessor(), &os, ci.getPreprocessorOutputOpts());
  }

private:
  std::string &out;
};

} // namespace

const VirtualFiles &preludeHeaders() {
  static const VirtualFiles files{{"math.h", mathHeader()},
                                  {"stddef.h", kStddefH},
                                  {"stdint.h", kStdintH},
                                  {"stdbool.h", kStdboolH}};
  return files;
}

std::string preludeVersion() {
  llvm::SHA256 hash;
  for (auto &[name, text] : preludeHeaders()) {
    hash.update(name);
    hash.update(text);
  }
  auto digest = hash.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), 8), true);
}

static thread_local const std::atomic<bool> *compileCancel = nullptr;
CancellableCompiles::CancellableCompiles(const std::atomic<bool> *flag) { compileCancel = flag; }
CancellableCompiles::~CancellableCompiles() { compileCancel = nullptr; }

namespace {
/// Lets LLVM skip every optional pass once the compile was cancelled.
struct CancelGate : llvm::OptPassGate {
  const std::atomic<bool> *flag;
  explicit CancelGate(const std::atomic<bool> *flag) : flag(flag) {}
  bool shouldRunPass(const llvm::StringRef, llvm::StringRef) override {
    return !flag->load(std::memory_order_relaxed);
  }
  bool isEnabled() const override { return true; }
};
} // namespace

static std::atomic<long> compiles{0};
static thread_local bool countCompiles = true;
long compileCount() { return compiles.load(); }

bool compileUncounted(const VirtualFiles &files, const std::vector<std::string> &flags,
                      std::string &object, std::string &diagnostics) {
  countCompiles = false;
  bool ok = compileToObject(files, flags, object, diagnostics);
  countCompiles = true;
  return ok;
}

std::string clangResourceDir() { return linkedClang().resourceDir; }

std::string clangVersion() { return getClangFullVersion(); }

std::string hostCPU() {
  std::string out = llvm::sys::getHostCPUName().str();
  std::vector<std::string> features;
  for (auto &f : llvm::sys::getHostCPUFeatures())
    if (f.second)
      features.push_back(f.first().str());
  std::sort(features.begin(), features.end());
  for (auto &f : features)
    out += " +" + f;
  return out;
}

bool compileToObject(const VirtualFiles &files, const std::vector<std::string> &flags,
                     std::string &object, std::string &diagnostics) {
  if (countCompiles)
    ++compiles;
  initializeTargets();
  llvm::raw_string_ostream diagOS(diagnostics);
  std::vector<std::string> all{"-c"};
  all.insert(all.end(), flags.begin(), flags.end());
  all.push_back("-o");
  all.push_back("/scaly-jit/out.o");
  bool ok;
  auto instance = makeInstance(all, std::string(kWorkDir) + "/" + files.front().first,
                               overlay(files), diagOS, ok);
  if (!ok)
    return false;
  llvm::SmallString<0> buffer;
  instance->setOutputStream(std::make_unique<llvm::raw_svector_ostream>(buffer));
  const std::atomic<bool> *cancel = compileCancel;
  llvm::LLVMContext context;
  std::optional<CancelGate> gate;
  if (cancel) {
    gate.emplace(cancel);
    context.setOptPassGate(*gate);
  }
  EmitObjAction action(&context);
  if (!instance->ExecuteAction(action) || instance->getDiagnostics().hasErrorOccurred())
    return false;
  if (cancel && cancel->load()) {
    diagnostics += "cancelled";
    return false;
  }
  object.assign(buffer.begin(), buffer.end());
  return !object.empty();
}

bool probeMacros(const std::vector<std::string> &flags, std::string &macros,
                 std::string &diagnostics) {
  // The answer cannot change within a process: remember it per flag list.
  static std::mutex memoMutex;
  static std::map<std::vector<std::string>, std::string> memo;
  {
    std::lock_guard<std::mutex> lock(memoMutex);
    auto it = memo.find(flags);
    if (it != memo.end()) {
      macros = it->second;
      return true;
    }
  }
  initializeTargets();
  llvm::raw_string_ostream diagOS(diagnostics);
  std::vector<std::string> all{"-E", "-dM"};
  all.insert(all.end(), flags.begin(), flags.end());
  bool ok;
  auto instance = makeInstance(all, std::string(kWorkDir) + "/probe.c",
                               overlay({{"probe.c", ""}}), diagOS, ok);
  if (!ok)
    return false;
  macros.clear();
  MacroDumpAction action(macros);
  if (!instance->ExecuteAction(action))
    return false;
  std::lock_guard<std::mutex> lock(memoMutex);
  memo[flags] = macros;
  return true;
}

} // namespace scaly::jit
