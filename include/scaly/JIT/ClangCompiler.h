//===- ClangCompiler.h - compile C in process with Clang ----------*- C++ -*-===//
//
// The JIT compiles the same C text render_c_module writes, in process: the
// Clang driver builds the cc1 command line (so the target, CPU and resource
// directory are what `clang -c` would use), the source and its header are
// supplied as in-memory files, and EmitObjAction writes the object into a
// string.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_JIT_CLANGCOMPILER_H
#define SCALY_JIT_CLANGCOMPILER_H

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace scaly::jit {

/// In-memory files: path -> contents. The first is the one compiled.
using VirtualFiles = std::vector<std::pair<std::string, std::string>>;

/// Compile `files[0]` to an ELF object with `flags` (e.g. -O2
/// -march=native -fno-math-errno). On failure returns false and puts Clang's
/// diagnostics in `diagnostics`.
bool compileToObject(const VirtualFiles &files, const std::vector<std::string> &flags,
                     std::string &object, std::string &diagnostics);

/// While alive, compiles on this thread skip every optimization and code
/// generation pass that may be skipped once `*flag` is true, and then fail
/// with "cancelled" (an interrupted JIT compile ends soon and writes nothing).
struct CancellableCompiles {
  explicit CancellableCompiles(const std::atomic<bool> *flag);
  ~CancellableCompiles();
};

/// How many times this process ran compileToObject (uncounted: the warm-up).
long compileCount();
/// Compile without counting it (the JIT's warm-up).
bool compileUncounted(const VirtualFiles &files, const std::vector<std::string> &flags,
                      std::string &object, std::string &diagnostics);

/// The predefined macros of `clang -dM -E` with `flags` (the host recipe
/// probe), run by the in-process compiler once per process and flag list.
bool probeMacros(const std::vector<std::string> &flags, std::string &macros,
                 std::string &diagnostics);

/// The host CPU as -march=native sees it: LLVM's name for it and its
/// enabled features, e.g. "znver5 +avx512f +fma ...". This is what decides
/// the predefined macros of the host recipe probe, obtained without running
/// the compiler (the in-process compiler's probe).
std::string hostCPU();

/// Clang's version string, e.g. "clang version 19.1.7 (...)".
std::string clangVersion();

/// The resource directory of the Clang this process links (found from where
/// libclang-cpp was loaded, not from a fixed path), e.g.
/// /usr/lib/llvm-19/lib/clang/19; empty when there is none.
std::string clangResourceDir();

/// Declarations of the C library that generated modules use (math.h,
/// stddef.h, stdint.h), exactly as the C standard declares them. The JIT
/// puts these in front of the system's headers: parsing glibc's math.h is
/// most of the time of compiling a small kernel.
const VirtualFiles &preludeHeaders();
/// Changes whenever the prelude's text changes (part of the cache key).
std::string preludeVersion();

} // namespace scaly::jit

#endif
