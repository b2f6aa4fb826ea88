//===- CEmitter.h - print an EmitC module as C --------------------*- C++ -*-===//
//
// MLIR 19's EmitC translator prints `bool` and C++'s functional casts where
// C has neither, reads a subscript after a write between the read and its
// use, and names every value v<N>, argument names included
// (test/Target/C/upstream-translator.mlir). Scaly's C module needs C that
// reads like the seed: named parameters, const inputs, expressions inlined
// where a value is used once, vector stores through may_alias types. This
// printer handles the EmitC subset that scaly-program-to-emitc produces and
// the cdecl dialect's ops; every C construct it writes is an op's. A call of
// an emitc.func with a result is an expression, as a call_opaque with one is:
// such a function only reads memory (the module's reduction helpers).
//
//===----------------------------------------------------------------------===//
#ifndef SCALY_TARGET_CEMITTER_H
#define SCALY_TARGET_CEMITTER_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace mlir::emitc {
class FuncOp;
class GlobalOp;
class ArrayType;
} // namespace mlir::emitc

namespace scaly::c {

/// Discardable attribute naming a value, loop counter or argument in C.
inline constexpr const char *kNameAttr = "scaly.name";
/// Unit attribute on a pointer argument or result (in the function's
/// argument or result attributes), on an emitc.variable of a pointer or of an
/// array of pointers, or on an emitc.cast to a pointer: its innermost element
/// is const.
inline constexpr const char *kConstAttr = "scaly.const";
/// Integer attribute on an emitc.global: its alignment in bytes, printed
/// `_Alignas(n)` after the storage specifiers.
inline constexpr const char *kAlignAttr = "scaly.align";
/// Unit attribute on a pointer argument: printed `T* __restrict name`, the
/// function's pointers never alias (the matrix product's operands).
inline constexpr const char *kRestrictAttr = "scaly.restrict";

/// The vector typedefs a module uses (double2, float4, ...), each declared
/// aligned to one element and may_alias, so stores never assume more
/// alignment than the caller's buffer has.
class VectorTypes {
public:
  /// Name of the vector of `width` elements of `elem`, recording its use.
  std::string use(mlir::Type elem, int width);
  /// The same vector with its natural alignment (the whole vector's size),
  /// `double4_aligned`: the type of a streaming store's address, which the
  /// program has tested to be aligned.
  std::string useAligned(mlir::Type elem, int width);
  /// Builds a cdecl.typedef at `b` for each vector type used, in order.
  void define(mlir::OpBuilder &b, mlir::Location loc) const;
  /// Records the types `other` used too.
  void merge(const VectorTypes &other) { used.insert(other.used.begin(), other.used.end()); }

private:
  /// (scalar, width, naturally aligned)
  std::set<std::tuple<std::string, int, bool>> used;
};

/// C name of a scalar element type (double, float, int64_t, ...).
std::string scalarCType(mlir::Type t);

/// The type C spells `name` (`const double**`, `int32_t`, `rollout_in*`),
/// and whether its innermost element is const: typeName's inverse for the
/// names it prints. Unknown element names (`int`, `void`, `uint8_t`, a
/// struct's) are opaque types.
std::pair<mlir::Type, bool> typeFromName(mlir::MLIRContext *ctx, llvm::StringRef name);

/// The C spelling of type `t`; `isConst`: its innermost element is const.
std::string typeName(mlir::Type t, bool isConst);

/// Whether `t` is C's `void` (an opaque type): a cast to it prints as the
/// statement `(void)x;`.
bool isVoid(mlir::Type t);

/// The declarator suffix of an array type: `[2][3]`.
std::string arrayDims(mlir::emitc::ArrayType array);

/// The C definition of a file-scope variable (lib/Target/C/Globals.cpp);
/// empty when its type or initial value has no C form.
std::string globalDefinition(mlir::emitc::GlobalOp g);

/// The C string literal of `text` (quotes and backslashes escaped, other
/// bytes below 0x20 and 0x7f in octal).
std::string stringLiteral(llvm::StringRef text);

/// The C initializer of an array of `values` (integers or floats), 8 values
/// a line: `{\n  1, 2,\n  3\n}`; bools are 0 or 1.
std::string elementsInitializer(mlir::ElementsAttr values);

/// A C literal that reads back as exactly `v` (NAN and INFINITY by name).
std::string formatFloat(double v, bool isF32);

/// The glibc release (222 for 2.22, 235 for 2.35) whose libmvec added the
/// x86-64 vector variants of libm function `fn`; 0 when it has none.
int glibcVectorMathSince(llvm::StringRef fn);

/// One C function of a module as the printer declares it.
struct FunctionSignature {
  std::string name;
  /// Storage and inline specifiers, space-separated ("static inline"; empty
  /// for an external definition).
  std::string specifiers;
  std::string result;
  /// Each parameter's type, and its name where the function gives it (an
  /// entry's `arg`, `res`, ...; empty where the printer names it).
  std::vector<std::string> params;
  std::vector<std::string> paramNames;
};

/// `fn`'s prototype without `;` (`static inline int f(const double* x)`,
/// `void g(void)`): specifiers, result, name and each parameter's type,
/// followed by `paramName(i)` unless that is empty (called once per
/// parameter, in order). The one spelling of definitions, declarations and
/// signatures (lib/Target/C/Signatures.cpp).
std::string prototype(mlir::emitc::FuncOp fn,
                      llvm::function_ref<std::string(unsigned)> paramName);

/// The prototype of `fn` as `printC` defines it (`int f(casadi_int i);`,
/// `void g(void);`): its declaration in a header.
std::string declaration(mlir::emitc::FuncOp fn);

/// The signature of `fn` as `printC` prints it.
FunctionSignature functionSignature(mlir::emitc::FuncOp fn);

/// Writes `values` through `emit` as a C initializer list, 16 to a continued
/// macro line (`{ \`, `    0, 1, \`, ..., ` }`), in a few large pieces.
void writeInitializerList(llvm::ArrayRef<int32_t> values,
                          llvm::function_ref<void(llvm::StringRef)> emit);

/// Prints `op` of the cdecl dialect (lib/Target/C/Declarations.cpp) through
/// `emit`, whole lines; the ops of its regions through `nested`.
mlir::LogicalResult printDeclaration(mlir::Operation *op,
                                     llvm::function_ref<void(llvm::StringRef)> emit,
                                     llvm::function_ref<mlir::LogicalResult(mlir::Operation &)> nested);

/// The functions in `block` and in the regions of its declarations (cdecl
/// ops: an extern "C" block holds a module's functions), in the order
/// `printC` prints them.
std::vector<mlir::emitc::FuncOp> functionsIn(mlir::Block &block);

/// The signatures of the functions `printC` defines, in order.
std::vector<FunctionSignature> functionSignatures(mlir::ModuleOp module);

/// One line of the model's Python source.
struct SourceLine {
  std::string file;
  int64_t line = 0;
  bool operator<(const SourceLine &o) const {
    return std::tie(file, line) < std::tie(o.file, o.line);
  }
  bool operator==(const SourceLine &o) const { return file == o.file && line == o.line; }
};

/// Where one statement of the printed C came from: its line (1-based, in
/// what printC printed) and the source lines of every op it prints, inlined
/// operands included, sorted. Statements of ops without a file location
/// (the entry's checks, its return) have no record.
struct StatementOrigin {
  int64_t cLine = 0;
  std::vector<SourceLine> from;
};

struct PrintOptions {
  /// Put `/* model.py:12 */` above each statement whose source lines differ
  /// from the last such comment's in its function.
  bool lineComments = false;
  /// When set, receives one record per statement that has source lines.
  std::vector<StatementOrigin> *origins = nullptr;
  /// When set, how long each function takes to print (its procedure's
  /// operations): on a threaded context the longest print first, so that
  /// no long function starts last while the other threads idle. The text
  /// is the same either way.
  const llvm::DenseMap<mlir::Operation *, size_t> *functionSizes = nullptr;
};

/// Print `module` (EmitC ops at the top level, and cdecl's declarations,
/// whose regions hold more of either) as C source. A bodiless emitc.func
/// prints as its declaration.
mlir::LogicalResult printC(mlir::ModuleOp module, llvm::raw_ostream &os,
                           const PrintOptions &options = {});

} // namespace scaly::c

#endif
