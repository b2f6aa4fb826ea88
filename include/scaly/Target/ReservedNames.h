//===- ReservedNames.h - names C output must not use ---------------*- C++ -*-===//
#ifndef SCALY_TARGET_RESERVEDNAMES_H
#define SCALY_TARGET_RESERVEDNAMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>
#include <vector>

namespace scaly::c {

/// A C keyword (C11 through C23), e.g. `int`, `double`, `restrict`.
bool isCKeyword(llvm::StringRef name);
/// A C++ keyword that is not a C keyword, e.g. `class`, `new`, `this`.
bool isCxxKeyword(llvm::StringRef name);
/// Why `name` cannot be the exported symbol of a module, or "" when it can.
/// Refused: C and C++ keywords, every name glibc's math.h, stddef.h and
/// stdint.h declare or define (gamma, j0, M_PI, INT32_MAX, math_errhandling,
/// ...), the macros gcc and clang predefine (linux, unix, i386), their
/// implicit library built-ins (sincos, exp10, ...), names a linked program
/// has (main, malloc, ...), names the module itself defines (SCALY_*,
/// vector typedefs), and identifiers the C standard reserves (_X, __x).
std::string entryNameProblem(llvm::StringRef name);
/// `name`, or `name` with underscores appended (`_v` for a macro-like name),
/// so that it is neither a C or C++ keyword nor a name of the C library or
/// the compilers (a port called `sin` or `NULL` would hide the function or
/// be expanded as a macro); the leading underscores of an identifier the C
/// standard reserves are dropped (`__func__` becomes `func__`).
std::string safeIdentifier(llvm::StringRef name);

/// C names of a procedure's ports, in order: each made safe, none equal to
/// the ABI's own names (arg, res, iw, w, mem) or to `moduleNames` (what the
/// module itself defines), all distinct (`int` and `int_` become `int_` and
/// `int__`). The source and the header both use these.
std::vector<std::string> portCNames(llvm::ArrayRef<std::string> names,
                                    llvm::ArrayRef<std::string> moduleNames);

/// The names a module defines that ports must not take: its procedures and,
/// for the entry, the header's `<entry>_SZ_*` macros and `<entry>_in/_out`.
std::vector<std::string> moduleNames(llvm::StringRef entry,
                                     llvm::ArrayRef<std::string> procedures);
/// The same for a module with several entries: every entry's names.
std::vector<std::string> moduleNames(llvm::ArrayRef<std::string> entries,
                                     llvm::ArrayRef<std::string> procedures);

} // namespace scaly::c

#endif
