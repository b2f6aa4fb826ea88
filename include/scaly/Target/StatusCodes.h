//===- StatusCodes.h - the status codes a Scaly entry returns -----*- C++ -*-===//
//
// One table for every place that spells them: the module's #defines (source
// and header), the WebAssembly shim's messages and the manifest.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_STATUSCODES_H
#define SCALY_TARGET_STATUSCODES_H

#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/IR/Builders.h"

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

/// `#define SCALY_SUCCESS 0` and the others, one cdecl.define each, at the
/// builder's insertion point (the C module and its header both define them).
inline void defineStatusCodes(mlir::OpBuilder &b, mlir::Location loc) {
  for (const StatusCode &code : kStatusCodes)
    b.create<cdecl::DefineOp>(loc, code.name, b.getI64IntegerAttr(code.value));
}

} // namespace scaly::c

#endif
