//===- ReservedNames.cpp - names C output must not use ---------------------===//

#include "scaly/Target/ReservedNames.h"

#include "llvm/ADT/StringSet.h"

#include <cctype>

namespace scaly::c {
namespace {

const llvm::StringSet<> &cKeywords() {
  static const llvm::StringSet<> set{
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
      "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
      "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
      "typedef", "union", "unsigned", "void", "volatile", "while", "_Alignas", "_Alignof",
      "_Atomic", "_Bool", "_Complex", "_Generic", "_Imaginary", "_Noreturn", "_Static_assert",
      "_Thread_local", "alignas", "alignof", "bool", "constexpr", "false", "nullptr",
      "static_assert", "thread_local", "true", "typeof", "typeof_unqual"};
  return set;
}

const llvm::StringSet<> &cxxKeywords() {
  static const llvm::StringSet<> set{
      "and", "and_eq", "asm", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t",
      "class", "compl", "concept", "const_cast", "consteval", "constinit", "co_await",
      "co_return", "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export",
      "friend", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or",
      "or_eq", "private", "protected", "public", "reinterpret_cast", "requires",
      "static_cast", "template", "this", "throw", "try", "typeid", "typename", "using",
      "virtual", "wchar_t", "xor", "xor_eq"};
  return set;
}

/// What glibc's math.h, stddef.h and stdint.h declare or define, the macros
/// gcc and clang predefine (linux, unix, i386) and their implicit library
/// built-ins (sincos, exp10, index, ...): derived from the real compilers
/// and headers by scripts/reserved-names.py.
const llvm::StringSet<> &headerNames() {
  static const llvm::StringSet<> set{
#include "ReservedNamesTable.inc"
  };
  return set;
}

/// Macros gcc or clang predefine without a leading underscore.
bool isPredefinedMacro(llvm::StringRef name) {
  return name == "linux" || name == "unix" || name == "i386";
}

/// Functions and macros of the C library a module or its caller has in scope:
/// the table above plus what a linked program has (main, errno, assert, ...).
const llvm::StringSet<> &libraryNames() {
  static const llvm::StringSet<> set = [] {
    llvm::StringSet<> s;
    for (const auto &entry : headerNames())
      s.insert(entry.getKey());
    const char *math[] = {
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign",
        "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma",
        "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "llrint",
        "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan",
        "nearbyint", "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint", "round",
        "scalbln", "scalbn", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc"};
    for (const char *f : math) {
      s.insert(f);
      s.insert(std::string(f) + "f");
      s.insert(std::string(f) + "l");
    }
    for (const char *n :
         {"abs", "labs", "div", "isnan", "isinf", "isfinite", "signbit", "fpclassify",
          "INFINITY", "NAN", "HUGE_VAL", "NULL", "offsetof", "size_t", "ptrdiff_t", "main",
          "malloc", "calloc", "realloc", "free", "aligned_alloc", "abort", "exit", "atexit",
          "memcpy", "memmove", "memset", "memcmp", "strlen", "printf", "fprintf", "sprintf",
          "snprintf", "puts", "errno", "assert", "int8_t", "int16_t", "int32_t", "int64_t",
          "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t"})
      s.insert(n);
    return s;
  }();
  return set;
}

/// Upper-case macros of the included headers and the families they belong
/// to (M_PI, FP_NAN, INT32_MAX, SIZE_MAX, ...), and the predefined macros.
bool isLibraryMacro(llvm::StringRef name) {
  if (isPredefinedMacro(name))
    return true;
  if (name.find_first_of("abcdefghijklmnopqrstuvwxyz") != llvm::StringRef::npos)
    return false;
  for (llvm::StringRef prefix : {"M_", "FP_", "INT", "UINT", "SIZE_", "PTRDIFF_", "WCHAR_",
                                 "WINT_", "SIG_ATOMIC_", "HUGE_", "MATH_", "EOF", "EXIT_"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

/// Identifiers the C standard reserves everywhere: `__x` and `_X`.
bool isStandardReserved(llvm::StringRef name) {
  return name.starts_with("__") ||
         (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])));
}

bool isVectorTypedef(llvm::StringRef name) {
  for (llvm::StringRef scalar : {"double", "float"})
    if (name.consume_front(scalar))
      return !name.empty() && name.find_first_not_of("0123456789") == llvm::StringRef::npos;
  return false;
}

} // namespace

bool isCKeyword(llvm::StringRef name) { return cKeywords().contains(name); }
bool isCxxKeyword(llvm::StringRef name) { return cxxKeywords().contains(name); }

std::string entryNameProblem(llvm::StringRef name) {
  if (name.empty())
    return "the name is empty";
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') ||
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
          llvm::StringRef::npos)
    return "it is not a C identifier";
  if (isCKeyword(name))
    return "it is a C keyword";
  if (isCxxKeyword(name))
    return "it is a C++ keyword";
  if (isPredefinedMacro(name))
    return "gcc and clang predefine it as a macro";
  if (libraryNames().contains(name))
    return "it is a name of the C library (math.h, stddef.h, stdint.h, stdlib.h, ...) or a "
           "built-in function of gcc and clang";
  if (name.starts_with("SCALY_") || name.starts_with("scaly_") || isVectorTypedef(name))
    return "the generated module defines it";
  if (isStandardReserved(name))
    return "the C standard reserves identifiers starting with __ or _ and a capital";
  return "";
}

std::string safeIdentifier(llvm::StringRef name) {
  // `__func__`, `__STDC__`, `_X`: drop the leading underscores the C
  // standard reserves (a name of underscores only becomes `p`).
  llvm::StringRef rest = name;
  if (isStandardReserved(rest))
    rest = rest.ltrim('_');
  std::string out = rest.str();
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "p" + out;
  // An upper-case macro-like name stays one with more underscores: give it
  // a lower-case tail instead.
  if (isLibraryMacro(out) || llvm::StringRef(out).starts_with("SCALY_"))
    out += "_v";
  while (isCKeyword(out) || isCxxKeyword(out) || libraryNames().contains(out) ||
         isLibraryMacro(out) || isVectorTypedef(out))
    out += "_";
  return out;
}

std::vector<std::string> moduleNames(llvm::StringRef entry,
                                     llvm::ArrayRef<std::string> procedures) {
  std::vector<std::string> out(procedures.begin(), procedures.end());
  for (const char *suffix : {"_SZ_ARG", "_SZ_RES", "_SZ_IW", "_SZ_W", "_in", "_out"})
    out.push_back(entry.str() + suffix);
  out.push_back(entry.str());
  return out;
}

std::vector<std::string> moduleNames(llvm::ArrayRef<std::string> entries,
                                     llvm::ArrayRef<std::string> procedures) {
  std::vector<std::string> out(procedures.begin(), procedures.end());
  for (const std::string &e : entries) {
    std::vector<std::string> one = moduleNames(llvm::StringRef(e), llvm::ArrayRef<std::string>());
    out.insert(out.end(), one.begin(), one.end());
  }
  return out;
}

std::vector<std::string> portCNames(llvm::ArrayRef<std::string> names,
                                    llvm::ArrayRef<std::string> reserved) {
  llvm::StringSet<> used{"arg", "res", "iw", "w", "mem"};
  for (const std::string &r : reserved)
    used.insert(r);
  std::vector<std::string> out;
  for (const std::string &n : names) {
    std::string c = safeIdentifier(n);
    while (!used.insert(c).second)
      c = safeIdentifier(c + "_");
    out.push_back(c);
  }
  return out;
}

} // namespace scaly::c
