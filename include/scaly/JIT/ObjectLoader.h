//===- ObjectLoader.h - load compiled objects with ORC LLJIT ------*- C++ -*-===//
#ifndef SCALY_JIT_OBJECTLOADER_H
#define SCALY_JIT_OBJECTLOADER_H

#include <cstdint>
#include <memory>
#include <string>

namespace scaly::jit {

/// An object file linked into the process by ORC. Each object gets its own
/// JITDylib, so two kernels may export the same symbol name. The code lives
/// as long as the LoadedObject.
class LoadedObject {
public:
  ~LoadedObject();
  /// Address of `symbol`, or 0 with `error` set.
  uint64_t lookup(const std::string &symbol, std::string &error);

  struct Impl;
  explicit LoadedObject(std::unique_ptr<Impl> impl);

private:
  std::unique_ptr<Impl> impl;
};

/// Create the process's ORC JIT now (it is otherwise made by the first
/// loadObject). Returns false with `error` set when it cannot start.
bool prepareJIT(std::string &error);

/// Link `object` (ELF bytes) into the process. Returns null with `error`
/// set for a truncated or malformed object, or unresolved symbols.
std::unique_ptr<LoadedObject> loadObject(const std::string &object, const std::string &name,
                                         std::string &error);

} // namespace scaly::jit

#endif
