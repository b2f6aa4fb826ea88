//===- Digest.h - content digest of a traced Function -------------*- C++ -*-===//
#ifndef SCALY_TRACE_DIGEST_H
#define SCALY_TRACE_DIGEST_H

#include "scaly/Trace/Graph.h"

#include <string>

namespace scaly::trace {

/// SHA-256 (hex) of everything that decides the code of `fn`: its name, its
/// input and output names, shapes and dtypes, the block hint, and every node
/// its results depend on (operation, type, operands, attributes, constant
/// bits), each called Function taken by its own digest. Two traces of the
/// same Python code give the same digest in any process.
std::string graphDigest(const Function &fn);

} // namespace scaly::trace

#endif
