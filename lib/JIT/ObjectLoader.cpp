//===- ObjectLoader.cpp - load compiled objects with ORC LLJIT -----------===//

#include "scaly/JIT/ObjectLoader.h"

#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <atomic>
#include <mutex>

using namespace llvm;
using namespace llvm::orc;

namespace scaly::jit {
namespace {

/// One LLJIT per process; each loaded object gets a JITDylib of its own.
LLJIT *processJIT(std::string &error) {
  static std::once_flag once;
  static std::unique_ptr<LLJIT> jit;
  static std::string creationError;
  std::call_once(once, [] {
    InitializeNativeTarget();
    InitializeNativeTargetAsmPrinter();
    auto created = LLJITBuilder().create();
    if (!created) {
      creationError = toString(created.takeError());
      return;
    }
    jit = std::move(*created);
  });
  if (!jit)
    error = "cannot start the ORC JIT: " + creationError;
  return jit.get();
}

} // namespace

bool prepareJIT(std::string &error) { return processJIT(error) != nullptr; }

struct LoadedObject::Impl {
  LLJIT *jit;
  JITDylib *dylib;
};

LoadedObject::LoadedObject(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}

LoadedObject::~LoadedObject() {
  if (impl && impl->dylib)
    consumeError(impl->jit->getExecutionSession().removeJITDylib(*impl->dylib));
}

uint64_t LoadedObject::lookup(const std::string &symbol, std::string &error) {
  auto addr = impl->jit->lookup(*impl->dylib, symbol);
  if (!addr) {
    error = toString(addr.takeError());
    return 0;
  }
  return addr->getValue();
}

std::unique_ptr<LoadedObject> loadObject(const std::string &object, const std::string &name,
                                         std::string &error) {
  LLJIT *jit = processJIT(error);
  if (!jit)
    return nullptr;
  // Validate before handing the bytes to the linker: a truncated or garbage
  // file must be an error, never a crash.
  auto buffer = MemoryBuffer::getMemBufferCopy(object, name);
  auto parsed = object::ObjectFile::createObjectFile(buffer->getMemBufferRef());
  if (!parsed) {
    error = "not a valid object file: " + toString(parsed.takeError());
    return nullptr;
  }
  static std::atomic<unsigned> counter{0};
  std::string dylibName = "scaly." + name + "." + std::to_string(counter++);
  auto dylib = jit->createJITDylib(dylibName);
  if (!dylib) {
    error = toString(dylib.takeError());
    return nullptr;
  }
  // libm and libc resolve from the process (Python has both loaded).
  auto generator = DynamicLibrarySearchGenerator::GetForCurrentProcess(
      jit->getDataLayout().getGlobalPrefix());
  if (!generator) {
    error = toString(generator.takeError());
    return nullptr;
  }
  dylib->addGenerator(std::move(*generator));
  if (auto err = jit->addObjectFile(*dylib, std::move(buffer))) {
    error = toString(std::move(err));
    consumeError(jit->getExecutionSession().removeJITDylib(*dylib));
    return nullptr;
  }
  return std::make_unique<LoadedObject>(
      std::make_unique<LoadedObject::Impl>(LoadedObject::Impl{jit, &*dylib}));
}

} // namespace scaly::jit
