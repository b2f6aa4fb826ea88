//===- ReservedNames.h - names C output must not use ---------------*- C++ -*-===//
#ifndef SCALY_TARGET_RESERVEDNAMES_H
#define SCALY_TARGET_RESERVEDNAMES_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace scaly::c {

/// A C keyword (C11 through C23), e.g. `int`, `double`, `restrict`.
bool isCKeyword(llvm::StringRef name);
/// A C++ keyword that is not a C keyword, e.g. `class`, `new`, `this`.
bool isCxxKeyword(llvm::StringRef name);
/// Why `name` cannot be the exported symbol of a module, or "" when it can.
/// Refused: C and C++ keywords, functions and macros of the C library the
/// module includes (math.h, stddef.h, stdint.h) or that a linked program
/// has (main, malloc, ...), names the module itself defines (SCALY_*,
/// vector typedefs), and identifiers the C standard reserves (_X, __x).
std::string entryNameProblem(llvm::StringRef name);
/// `name`, or `name` with underscores appended, so that it is no keyword.
std::string safeIdentifier(llvm::StringRef name);

} // namespace scaly::c

#endif
