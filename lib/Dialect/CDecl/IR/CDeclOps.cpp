//===- CDeclOps.cpp - C declarations EmitC 19 cannot say ------------------===//
//
// The verifiers hold what the printer relies on: names are identifiers (so
// no text escapes a declaration), a comment cannot end early, a macro is
// one logical line, a table or struct is never empty (ISO C has neither
// empty initializers nor empty structs), a symbol sits in a symbol table,
// a statement sits in a function (a break in the loop it leaves, a return's
// value of the function's result type, a loop hint right before its loop,
// a compound literal of a type name and scalars).
//
//===----------------------------------------------------------------------===//

#include "scaly/Dialect/CDecl/CDeclDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace scaly::cdecl;

#include "scaly/Dialect/CDecl/CDeclDialect.cpp.inc"
#include "scaly/Dialect/CDecl/CDeclEnums.cpp.inc"

void CDeclDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "scaly/Dialect/CDecl/CDeclOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "scaly/Dialect/CDecl/CDeclOps.cpp.inc"

bool scaly::cdecl::isIdentifier(StringRef name) {
  return !name.empty() && (llvm::isAlpha(name[0]) || name[0] == '_') &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

namespace {

LogicalResult checkIdentifier(Operation *op, StringRef what, StringRef name) {
  if (isIdentifier(name))
    return success();
  return op->emitOpError() << what << " '" << name << "' is not a C identifier";
}

/// Whether `t` is an integer type the printer spells (c::scalarCType):
/// bool, signed and unsigned 32 and 64 bits.
bool isSpelledInteger(Type t) {
  return t.isInteger(1) || t.isInteger(32) || t.isInteger(64) || t.isUnsignedInteger(32) ||
         t.isUnsignedInteger(64);
}

/// Whether the printer has a C spelling for `t` (c::typeName's types).
bool hasCType(Type t) {
  if (auto p = dyn_cast<emitc::PointerType>(t))
    return hasCType(p.getPointee());
  return isa<emitc::OpaqueType, IndexType>(t) || t.isF32() || t.isF64() || isSpelledInteger(t);
}
} // namespace

LogicalResult CommentOp::verify() {
  if (getText().contains("*/"))
    return emitOpError("text contains '*/', which would end the comment early");
  return success();
}

namespace {
/// A function-like macro's body: not blank, and its lines (the printer
/// continues each with ` \`) never end in a backslash of their own, which
/// would continue twice.
LogicalResult verifyMacroBody(DefineOp define, StringRef body) {
  if (body.trim().empty())
    return define.emitOpError("function-like macro '")
           << define.getName() << "' has an empty body";
  SmallVector<StringRef> lines;
  body.split(lines, '\n');
  for (StringRef line : lines)
    if (line.ends_with("\\"))
      return define.emitOpError("body line '") << line << "' ends in a backslash";
  return success();
}
} // namespace

LogicalResult DefineOp::verify() {
  if (failed(checkIdentifier(*this, "macro name", getName())))
    return failure();
  std::optional<Attribute> value = getValue();
  if (std::optional<ArrayAttr> params = getParams()) {
    if (!value || !isa<StringAttr>(*value))
      return emitOpError("function-like macro '") << getName() << "' needs a body string";
    for (auto [i, param] : llvm::enumerate(params->getAsValueRange<StringAttr>())) {
      bool variadic = param == "..." && i + 1 == params->size();
      if (!variadic && failed(checkIdentifier(*this, "macro parameter", param)))
        return failure();
    }
  }
  if (!value)
    return success();
  if (auto text = dyn_cast<StringAttr>(*value); text && getParams())
    return verifyMacroBody(*this, text.getValue());
  if (auto text = dyn_cast<StringAttr>(*value))
    if (text.getValue().contains('\n') || text.getValue().empty())
      return emitOpError("value must be one non-empty line, got '") << text.getValue() << "'";
  if (auto table = dyn_cast<DenseI32ArrayAttr>(*value); table && table.empty())
    return emitOpError("table has no values: '{ }' is no ISO C initializer");
  return success();
}

LogicalResult IncludeOp::verify() {
  StringRef file = getInclude();
  if (file.empty() || file.find_first_of("\"<>\n") != StringRef::npos)
    return emitOpError("include '") << file << "' is not a file name";
  return success();
}

LogicalResult IfNotDefinedOp::verify() {
  return checkIdentifier(*this, "macro name", getName());
}

namespace {
/// A symbol in a conditional's bodies would have no symbol table to be
/// found in.
LogicalResult checkNoSymbols(Operation *conditional) {
  for (Region &region : conditional->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (isa<SymbolOpInterface>(op))
          return op.emitOpError("cannot be in a ")
                 << conditional->getName() << " (it holds definitions, not declarations of "
                 << "symbols)";
  return success();
}

/// Whether `op` is one of a loop's hints: a pragma or macro line, or a
/// conditional of them inside a function.
bool isLoopHint(Operation &op) {
  return isa<PragmaOp, MacroLineOp>(op) ||
         (isa<IfDefinedOp>(op) && op.getParentOfType<emitc::FuncOp>());
}

/// A loop hint prints right before the statement after it (the C printer
/// holds its lines for that statement), and a loop pragma must precede its
/// loop: so in a function it is followed, through other hints only, by an
/// emitc.for. One inside a conditional is placed by the conditional.
LogicalResult checkPrecedesLoop(Operation *hint) {
  if (isa_and_nonnull<IfDefinedOp>(hint->getParentOp()))
    return success();
  if (!hint->getParentOfType<emitc::FuncOp>())
    return hint->emitOpError("is a loop hint: it must be inside an emitc.func, before an "
                             "emitc.for");
  Operation *next = hint->getNextNode();
  while (next && isLoopHint(*next))
    next = next->getNextNode();
  if (!isa_and_nonnull<emitc::ForOp>(next))
    return hint->emitOpError("is a loop hint: it must be followed by an emitc.for (through "
                             "other loop hints only)");
  return success();
}
} // namespace

LogicalResult IfDefinedOp::verify() {
  if (failed(checkIdentifier(*this, "macro name", getName())))
    return failure();
  if (!(*this)->getParentOfType<emitc::FuncOp>())
    return checkNoSymbols(*this);
  // Inside a function: a loop's hints for some compilers.
  for (Region &region : (*this)->getRegions())
    for (Block &block : region)
      for (Operation &op : block)
        if (!isa<PragmaOp, MacroLineOp>(op))
          return op.emitOpError("cannot be in a cdecl.if_defined inside a function (it holds "
                                "loop hints only: cdecl.pragma, cdecl.macro_line)");
  return checkPrecedesLoop(*this);
}

LogicalResult IfOp::verify() {
  if (failed(checkIdentifier(*this, "macro name", getMacro())))
    return failure();
  return checkNoSymbols(*this);
}

LogicalResult PragmaOp::verify() {
  // Identifiers separated by single spaces: `clang loop`, `GCC unroll`.
  SmallVector<StringRef> words;
  getDirective().split(words, ' ');
  if (!llvm::all_of(words, isIdentifier))
    return emitOpError("directive '") << getDirective()
                                      << "' is not identifiers apart by single spaces";
  if (getOptions().empty())
    return emitOpError("has no options");
  for (StringRef option : getOptions().getAsValueRange<StringAttr>())
    if (option.empty() || option.find_first_of(" \t\n\\") != StringRef::npos)
      return emitOpError("option '") << option << "' is not one token";
  return checkPrecedesLoop(*this);
}

LogicalResult MacroLineOp::verify() {
  if (failed(checkIdentifier(*this, "macro name", getName())))
    return failure();
  return checkPrecedesLoop(*this);
}

LogicalResult ErrorOp::verify() {
  if (getMessage().find_first_of("\"\\\n") != StringRef::npos)
    return emitOpError("message must be one line without '\"' or '\\', got '")
           << getMessage() << "'";
  return success();
}

LogicalResult TypedefOp::verify() {
  if (failed(checkIdentifier(*this, "type name", getName())))
    return failure();
  if (!hasCType(getType()))
    return emitOpError("type ") << getType() << " has no C spelling";
  if (std::optional<int64_t> bytes = getVectorSize(); bytes && *bytes <= 0)
    return emitOpError("vector_size must be positive, got ") << *bytes;
  if (std::optional<StringRef> times = getVectorSizeTimes()) {
    if (!getVectorSize())
      return emitOpError("has vector_size_times without vector_size");
    if (failed(checkIdentifier(*this, "vector_size_times macro", *times)))
      return failure();
  }
  if (std::optional<int64_t> align = getAligned();
      align && (*align <= 0 || !llvm::isPowerOf2_64(*align)))
    return emitOpError("aligned must be a positive power of two, got ") << *align;
  return success();
}

LogicalResult PrototypeOp::verify() {
  if (failed(checkIdentifier(*this, "function name", getName())))
    return failure();
  FunctionType type = getFunctionType();
  if (type.getNumResults() > 1)
    return emitOpError("has ") << type.getNumResults() << " results; a C function has one";
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults()))
    if (!hasCType(t))
      return emitOpError("type ") << t << " has no C spelling";
  return success();
}

LogicalResult LoopOp::verify() {
  if (!(*this)->getParentOfType<emitc::FuncOp>())
    return emitOpError("is a statement: it must be inside an emitc.func");
  return success();
}

LogicalResult BreakOp::verify() {
  // C's break leaves the innermost loop or switch; that must be a cdecl.loop.
  for (Operation *p = (*this)->getParentOp(); p; p = p->getParentOp()) {
    if (isa<LoopOp>(p))
      return success();
    if (!isa<emitc::IfOp>(p))
      return emitOpError("must be inside a cdecl.loop, through emitc.if only (it would "
                         "leave the innermost loop, here ")
             << p->getName() << ")";
  }
  return emitOpError("must be inside a cdecl.loop");
}

LogicalResult ReturnIfOp::verify() {
  auto fn = (*this)->getParentOfType<emitc::FuncOp>();
  if (!fn)
    return emitOpError("is a statement: it must be inside an emitc.func");
  if (getConditions().empty())
    return emitOpError("has no condition");
  ArrayRef<Type> results = fn.getFunctionType().getResults();
  Value value = getValue();
  if (results.empty() && value)
    return emitOpError("returns a value from a function returning void");
  if (!results.empty() && !value)
    return emitOpError("returns no value from a function returning ") << results.front();
  if (value && value.getType() != results.front())
    return emitOpError("returns ") << value.getType() << " from a function returning "
                                   << results.front();
  return success();
}

LogicalResult CompoundLiteralOp::verify() {
  if (!(*this)->getParentOfType<emitc::FuncOp>())
    return emitOpError("is an expression: it must be inside an emitc.func");
  if (getElements().empty())
    return emitOpError("has no elements: '{}' is no ISO C initializer");
  auto type = dyn_cast<emitc::OpaqueType>(getType());
  if (!type || !isIdentifier(type.getValue()))
    return emitOpError("type ") << getType() << " is not a type name (an !emitc.opaque typedef)";
  for (Type t : getElements().getTypes())
    if (!hasCType(t) || isa<emitc::PointerType>(t))
      return emitOpError("element type ") << t << " is no scalar C spells";
  return success();
}

LogicalResult NamespaceOp::verify() {
  return checkIdentifier(*this, "namespace name", getName());
}

LogicalResult ConstexprOp::verify() {
  if (failed(checkIdentifier(*this, "constant name", getName())))
    return failure();
  if (!isa<emitc::OpaqueType>(getType()) && !isSpelledInteger(getType()))
    return emitOpError("type must be an integer type C spells (i1, i32, i64, ui32, ui64) or "
                       "an opaque type, got ")
           << getType();
  return success();
}

LogicalResult StructOp::verify() {
  if (failed(checkIdentifier(*this, "struct name", getName())))
    return failure();
  if (std::optional<int64_t> align = getAlignment();
      align && (*align <= 0 || !llvm::isPowerOf2_64(*align)))
    return emitOpError("alignment must be a positive power of two, got ") << *align;
  bool anyField = false;
  for (Operation &op : getBody().front()) {
    if (!isa<FieldOp, CommentOp>(op))
      return op.emitOpError("cannot be a member of a cdecl.struct (only cdecl.field and "
                            "cdecl.comment)");
    anyField |= isa<FieldOp>(op);
  }
  if (!anyField)
    return emitOpError("has no field (ISO C has no empty structs)");
  return success();
}

LogicalResult FieldOp::verify() {
  if (failed(checkIdentifier(*this, "field name", getName())))
    return failure();
  Type type = getType();
  if (auto array = dyn_cast<emitc::ArrayType>(type))
    type = array.getElementType();
  if (!hasCType(type))
    return emitOpError("type ") << getType() << " has no C spelling";
  if (std::optional<StringRef> comment = getComment(); comment && comment->contains("*/"))
    return emitOpError("comment contains '*/', which would end it early");
  return success();
}
