//===- StatusCodes.h - the status codes a Scaly entry returns -----*- C++ -*-===//
//
// One table for every place that spells them: the module's #defines (source
// and header), the WebAssembly shim's messages and the manifest.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_STATUSCODES_H
#define SCALY_TARGET_STATUSCODES_H

#include <string>

namespace scaly::c {

struct StatusCode {
  int value;
  const char *name;
  const char *meaning;
};

inline constexpr StatusCode kStatusCodes[] = {
    {0, "SCALY_SUCCESS", "success"},
    {1, "SCALY_ERR_NULL_ABI", "arg or res is null"},
    {2, "SCALY_ERR_NULL_WORK", "the workspace w is null"},
    {3, "SCALY_ERR_NULL_RESULT", "an output pointer is null"},
    {4, "SCALY_ERR_NULL_INPUT", "an input pointer is null"},
};

/// `#define SCALY_SUCCESS 0` and the others, one line each.
inline std::string statusCodeDefines() {
  std::string s;
  for (const StatusCode &code : kStatusCodes)
    s += std::string("#define ") + code.name + " " + std::to_string(code.value) + "\n";
  return s;
}

} // namespace scaly::c

#endif
