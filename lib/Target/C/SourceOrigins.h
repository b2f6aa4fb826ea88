//===- SourceOrigins.h - the Python lines a C statement comes from -------===//
//
// Each statement's origin is the file:line locations its ops carry (traced
// from the Python model): the C printer records them and, with line
// comments on, writes them above the statement as `/* model.py:6-8 */`.
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_C_SOURCEORIGINS_H
#define SCALY_TARGET_C_SOURCEORIGINS_H

#include "scaly/Target/CEmitter.h"

#include "mlir/IR/Location.h"

#include <string>
#include <vector>

namespace scaly::c {

/// The source lines `locs` name (every file:line location inside them, call
/// sites and fused locations included), sorted, each once.
std::vector<SourceLine> sourceLines(llvm::ArrayRef<mlir::Location> locs);

/// `model.py:6-8, 12` (a file's base name, then its lines with runs
/// collapsed), files separated by `; `; never contains the end of a comment.
std::string originComment(llvm::ArrayRef<SourceLine> lines);

} // namespace scaly::c

#endif
