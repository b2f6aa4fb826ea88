//===- CDeclOps.td - C declarations EmitC 19 cannot say ------*- tablegen -*-===//
//
// The cdecl dialect holds the C and C++ that upstream EmitC 19 has no op
// for. Declarations: object-like and function-like macros (index tables as
// initializer lists among them), preprocessor conditionals (#ifndef,
// #if [!]defined ... #elif ... #else, #if on a macro compared with an
// integer, #error), `extern "C"` blocks, aligned structs, typedefs with GNU
// attributes (vector types), prototypes that are no MLIR symbol, C++
// namespaces and constexpr constants, comments. And statements inside an
// emitc.func: an endless loop, `break`, an early `return` (EmitC 19's
// emitc.return must be the function's last op), a vector's compound
// literal `(double4){a, b, c, d}` (an expression), and a loop's hints
// (#pragma lines and a macro line before an emitc.for, under
// #if defined(...) when compiler-specific). No op holds free C text
// beyond a macro's value. One dialect rather than two: these are the
// few things Scaly's one C printer says beyond EmitC, registered, loaded
// and dispatched together.
// The C printer (lib/Target/C/Declarations.cpp for declarations,
// CEmitter.cpp for statements) prints them beside EmitC's own ops:
// emitc.include, emitc.func declarations, emitc.verbatim "" for a blank
// line. Every op prints whole lines.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_CDECL_OPS
#define SCALY_CDECL_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"

def CDecl_Dialect : Dialect {
  let name = "cdecl";
  let cppNamespace = "::scaly::cdecl";
  let summary = "C and C++ declarations EmitC 19 cannot say, printed by Scaly's C printer";
  let dependentDialects = ["::mlir::emitc::EmitCDialect"];
}

class CDecl_Op<string mnemonic, list<Trait> traits = []>
    : Op<CDecl_Dialect, mnemonic, traits>;

// A region of declarations: one block, no terminator. MLIR lets a symbol
// (an emitc.func declaration) sit only directly in a symbol table, so each
// is one; C sees the names it declares at file scope all the same.
class CDecl_RegionOp<string mnemonic>
    : CDecl_Op<mnemonic, [NoTerminator, SingleBlock, NoRegionArguments, SymbolTable]> {
  let regions = (region SizedRegion<1>:$body);
}

def CDecl_CommentOp : CDecl_Op<"comment"> {
  let summary = "a block comment: /* text */";
  let description = [{
    Prints `/* <text> */`; a text of several lines continues as written
    (the header's lines go on with ` * `). Inside a `cdecl.struct` it is
    indented with the fields.

    ```mlir
    cdecl.comment "x: no values"
    ```
  }];
  let arguments = (ins StrAttr:$text);
  let assemblyFormat = "$text attr-dict";
  let hasVerifier = 1;
}

def CDecl_DefineOp : CDecl_Op<"define"> {
  let summary = "a macro: #define NAME[(params)] [value]";
  let description = [{
    The value is an integer, a token sequence of one line (a string), or an
    array of i32 printed as a C initializer list, 16 values to a continued
    line (`{ \` ... `}`): a sparse output's index table, usable as an array
    initializer without unused-variable warnings. Without a value the name
    is only defined (an include guard). With `params` it is a function-like
    macro (`...` last makes it variadic), whose value is its body: a body of
    several lines continues each line with ` \`, and an empty first line
    starts the body on the next (Scaly's lane helpers, GNU statement
    expressions; a function taking a vector wider than the baseline's
    registers would have an ABI that depends on -march).

    ```mlir
    cdecl.define "f_SZ_ARG" = 2
    cdecl.define "f_jac_COLIND" = array<i32: 0, 1, 3>
    cdecl.define "casadi_real" = "double"
    cdecl.define "SCALY_F_H"
    cdecl.define "SCALY_TWICE" params ["x"] = "((x) + (x))"
    cdecl.define "scaly_sel" params ["m", "a", "b"] = "\n  ((m) ? (a) : (b))"
    ```
  }];
  let arguments = (ins StrAttr:$name,
                       OptionalAttr<AnyAttrOf<[I64Attr, StrAttr, DenseI32ArrayAttr]>>:$value,
                       OptionalAttr<StrArrayAttr>:$params);
  let assemblyFormat = "$name (`params` $params^)? (`=` $value^)? attr-dict";
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name, "::mlir::Attribute":$value), [{
    build($_builder, $_state, name, value, ::mlir::ArrayAttr());
  }]>];
  let hasVerifier = 1;
}

def CDecl_IncludeOp : CDecl_Op<"include"> {
  let summary = "#include <file> inside a cdecl region";
  let description = [{
    emitc.include, which must sit at a module's top level, for the
    includes inside an include guard.

    ```mlir
    cdecl.include standard "stdint.h"
    cdecl.include "model.h"
    ```
  }];
  let arguments = (ins StrAttr:$include, UnitAttr:$is_standard_include);
  let assemblyFormat = "(`standard` $is_standard_include^)? $include attr-dict";
  let hasVerifier = 1;
}

def CDecl_IfNotDefinedOp : CDecl_RegionOp<"ifndef"> {
  let summary = "declarations under #ifndef NAME ... #endif";
  let description = [{
    Prints `#ifndef <name>`, the body, `#endif`: an include guard (whose
    body starts with `cdecl.define` of the name), or defaults an includer
    may have set first.

    ```mlir
    cdecl.ifndef "casadi_real" {
      cdecl.define "casadi_real" = "double"
    }
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def CDecl_IfDefinedOp : CDecl_Op<"if_defined", [NoTerminator, NoRegionArguments]> {
  let summary = "#if [!]defined(NAME) ... [#else ...] #endif";
  let description = [{
    Prints `#if defined(<name>)` (`#if !defined(<name>)` when `not`), the
    `then` body, `#else` and the `else` body when it has one, `#endif`: a
    definition that differs between compilers or platforms (`__clang__`),
    or an `#error` when a macro is missing. Its bodies hold definitions,
    not function declarations (it is no symbol table). (`cdecl.ifndef`
    prints `#ifndef`, and is a symbol table: an include guard.)

    Inside an `emitc.func` it is a loop hint too (see `cdecl.pragma`): then
    its bodies hold only `cdecl.pragma` and `cdecl.macro_line`, and it
    precedes an `emitc.for`, its lines printed at the margin.

    ```mlir
    cdecl.if_defined "__clang__" {
      cdecl.define "SCALY_NO_UNROLL" = "_Pragma(\"clang loop unroll(disable)\")"
    } else {
      cdecl.define "SCALY_NO_UNROLL"
    }
    cdecl.if_defined not "__AVX2__" {
      cdecl.error "needs AVX2"
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$negated);
  let regions = (region SizedRegion<1>:$then_body, MaxSizedRegion<1>:$else_body);
  let assemblyFormat =
      "(`not` $negated^)? $name attr-dict-with-keyword $then_body (`else` $else_body^)?";
  let builders = [OpBuilder<(ins "::llvm::StringRef":$name), [{
    build($_builder, $_state, name, /*negated=*/false);
  }]>];
  let hasVerifier = 1;
}

def CDecl_Comparison : I32EnumAttr<"Comparison", "a comparison in an #if", [
    I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>, I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>, I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::scaly::cdecl";
}

def CDecl_IfOp : CDecl_Op<"if", [NoTerminator, NoRegionArguments]> {
  let summary = "#if MACRO == N ... [#else ...] #endif: a macro compared with an integer";
  let description = [{
    Prints `#if <macro> <op> <value>` (`==`, `!=`, `<`, `<=`, `>`, `>=` for
    `eq` ... `ge`), the `then` body, then `#else` and the `else` body when
    it has one, `#endif`. An `else` body that is one conditional
    (`cdecl.if` or `cdecl.if_defined`) and nothing else prints as its
    `#elif`, so a chain reads as C writes it. Like `cdecl.if_defined`, its
    bodies hold definitions, not symbols. The condition is structured, no
    free text: every `#if` Scaly prints is a lane width tested
    (`SCALY_LANES == 8`) or a macro's definition (`cdecl.if_defined`).

    ```mlir
    cdecl.if "SCALY_LANES" eq 8 {
      cdecl.define "W" = 8
    } else {
      cdecl.if "SCALY_LANES" eq 4 {
        cdecl.define "W" = 4
      }
    }
    ```
  }];
  let arguments = (ins StrAttr:$macro, CDecl_Comparison:$comparison, I64Attr:$value);
  let regions = (region SizedRegion<1>:$then_body, MaxSizedRegion<1>:$else_body);
  let assemblyFormat =
      "$macro $comparison $value attr-dict-with-keyword $then_body (`else` $else_body^)?";
  let hasVerifier = 1;
}

def CDecl_ErrorOp : CDecl_Op<"error"> {
  let summary = "#error with a message: a build the preprocessor refuses";
  let description = [{
    ```mlir
    cdecl.if_defined not "__AVX2__" {
      cdecl.error "vector_libm=glibc width 4 requires __AVX2__ and -lmvec"
    }
    ```
  }];
  let arguments = (ins StrAttr:$message);
  let assemblyFormat = "$message attr-dict";
  let hasVerifier = 1;
}

def CDecl_TypedefOp : CDecl_Op<"typedef"> {
  let summary = "typedef T name [__attribute__((vector_size(N), aligned(A), may_alias))];";
  let description = [{
    A name for `type`, with GNU C's type attributes when given: `vector_size`
    in bytes, `aligned` in bytes, `may_alias`. With `vector_size_times` (a
    macro's name) the size is `vector_size(<vector_size> * <macro>)`: the
    bytes of one lane times the lane count `SCALY_LANES` picks for the
    target. Lane vectors and the unaligned vector types loads and stores go
    through are such typedefs.

    ```mlir
    cdecl.typedef "double4" = f64 {vector_size = 32 : i64, aligned = 8 : i64, may_alias}
    cdecl.typedef "scaly_m64xN" = !emitc.opaque<"long long"> {vector_size = 8 : i64, vector_size_times = "SCALY_LANES"}
    ```
  }];
  let arguments = (ins StrAttr:$name, TypeAttr:$type, OptionalAttr<I64Attr>:$vector_size,
                       OptionalAttr<StrAttr>:$vector_size_times, OptionalAttr<I64Attr>:$aligned,
                       UnitAttr:$may_alias);
  let assemblyFormat = "$name `=` $type attr-dict";
  let hasVerifier = 1;
}

def CDecl_PrototypeOp : CDecl_Op<"prototype"> {
  let summary = "a function's prototype that is no MLIR symbol: R name(T, ...);";
  let description = [{
    What a bodiless `emitc.func` prints, for a function declared inside a
    preprocessor conditional (no symbol table) and called by name
    (`emitc.call_opaque`): libmvec's vector functions.

    ```mlir
    cdecl.prototype "_ZGVdN4v_exp" : (!emitc.opaque<"scaly_f64x4">) -> !emitc.opaque<"scaly_f64x4">
    ```
  }];
  let arguments = (ins StrAttr:$name, TypeAttrOf<FunctionType>:$function_type);
  let assemblyFormat = "$name `:` $function_type attr-dict";
  let hasVerifier = 1;
}

def CDecl_LoopOp : CDecl_Op<"loop", [NoTerminator, SingleBlock, NoRegionArguments]> {
  let summary = "a statement: for (;;) { body }, left by cdecl.break";
  let description = [{
    An endless loop inside an `emitc.func`, the body's statements printed in
    its braces: `scf.while` is one whose body starts with the condition's
    ops and `emitc.if` of its negation holding `cdecl.break`. EmitC 19 has
    neither a while loop nor `break`.

    ```mlir
    cdecl.loop {
      %stop = emitc.logical_not %c : i1
      emitc.if %stop {
        cdecl.break
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def CDecl_BreakOp : CDecl_Op<"break"> {
  let summary = "a statement: break; leaves the innermost cdecl.loop";
  let description = [{
    Only where C's `break` leaves a `cdecl.loop`: inside one, through
    `emitc.if`s, with no `emitc.for` in between (whose loop it would leave).
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def CDecl_ReturnIfOp : CDecl_Op<"return_if", [AttrSizedOperandSegments]> {
  let summary = "a statement: if (c1 || c2 ...) return value;";
  let description = [{
    Returns `value` (nothing from a void function) from the enclosing
    `emitc.func` when any of the conditions holds, else goes on: an early
    return, which EmitC 19 cannot say (its `emitc.return` is the function's
    last op). The conditions are tested in order, as `||` does. An entry's
    checks of its pointers are such returns.

    ```mlir
    %a = emitc.logical_not %arg : !emitc.ptr<!emitc.ptr<f64>>
    %b = emitc.logical_not %res : !emitc.ptr<!emitc.ptr<f64>>
    %code = emitc.literal "SCALY_ERR_NULL_ABI" : !emitc.opaque<"int">
    cdecl.return_if %a, %b -> %code : !emitc.opaque<"int">
    ```
  }];
  let arguments = (ins Variadic<I1>:$conditions, Optional<AnyType>:$value);
  let assemblyFormat = "$conditions (`->` $value^ `:` type($value))? attr-dict";
  let hasVerifier = 1;
}

def CDecl_PragmaOp : CDecl_Op<"pragma"> {
  let summary = "a loop hint: #pragma DIRECTIVE OPTION ... before an emitc.for";
  let description = [{
    Prints `#pragma <directive> <options, space-separated>` at the margin,
    right before the `emitc.for` that follows it (through other loop hints
    only): Clang's `#pragma clang loop` must come right before its loop.
    Clang-only pragmas sit in a `cdecl.if_defined "__clang__"` (GCC warns of
    pragmas it does not know). The directive is one or more identifiers,
    each option one token such as `vectorize(disable)`.

    ```mlir
    cdecl.if_defined "__clang__" {
      cdecl.pragma "clang loop" ["vectorize(disable)", "unroll(disable)"]
    }
    emitc.for %i = %lo to %hi step %one : !emitc.opaque<"long long"> { ... }
    ```
  }];
  let arguments = (ins StrAttr:$directive, StrArrayAttr:$options);
  let assemblyFormat = "$directive $options attr-dict";
  let hasVerifier = 1;
}

def CDecl_MacroLineOp : CDecl_Op<"macro_line"> {
  let summary = "a loop hint: a line NAME, a macro expanding to a loop pragma, before an emitc.for";
  let description = [{
    Prints the macro's name alone on a line, indented with the statements
    and without a semicolon, right before the `emitc.for` that follows it
    (through other loop hints only). The module defines the macro as a
    `_Pragma` for one compiler and as nothing for the others
    (`SCALY_NO_UNROLL`: Clang's `unroll(disable)`): one line in the loop
    instead of three preprocessor lines.

    ```mlir
    cdecl.macro_line "SCALY_NO_UNROLL"
    emitc.for %i = %lo to %hi step %one : !emitc.opaque<"long long"> { ... }
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let assemblyFormat = "$name attr-dict";
  let hasVerifier = 1;
}

def CDecl_CompoundLiteralOp : CDecl_Op<"compound_literal", [Pure]> {
  let summary = "an expression: (T){e0, e1, ...}, a vector of values";
  let description = [{
    C's compound literal of the vector type `T` (an `!emitc.opaque` typedef
    name such as `double4`) holding the elements in order: the values a
    vector store writes at once. EmitC 19 has no such op; its
    `emitc.call_opaque "double4"(...)` would be C++'s functional cast
    `double4(a, b)`, which C rejects. Printed where its value is used once,
    like EmitC's expressions.

    ```mlir
    %v = cdecl.compound_literal %a, %b : (f64, f64) -> !emitc.opaque<"double2">
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$elements);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$elements attr-dict `:` functional-type($elements, $result)";
  let hasVerifier = 1;
}

def CDecl_ExternCOp : CDecl_RegionOp<"extern_c"> {
  let summary = "declarations with C linkage for a C++ includer";
  let description = [{
    Prints the body between `#ifdef __cplusplus` / `extern "C" {` /
    `#endif` and `#ifdef __cplusplus` / `}` / `#endif`: C sees the body,
    C++ sees it with C linkage.
  }];
  let assemblyFormat = "attr-dict-with-keyword $body";
}

def CDecl_NamespaceOp : CDecl_RegionOp<"namespace"> {
  let summary = "a C++ namespace: namespace name { ... } // namespace name";
  let arguments = (ins StrAttr:$name);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def CDecl_ConstexprOp : CDecl_Op<"constexpr"> {
  let summary = "a C++ integer constant: constexpr T name = value;";
  let description = [{
    ```mlir
    cdecl.constexpr "SZ_ARG" : !emitc.opaque<"int"> = 2
    ```
  }];
  let arguments = (ins StrAttr:$name, TypeAttr:$type, I64Attr:$value);
  let assemblyFormat = "$name `:` $type `=` $value attr-dict";
  let hasVerifier = 1;
}

def CDecl_StructOp : CDecl_RegionOp<"struct"> {
  let summary = "a struct of cdecl.field (and cdecl.comment) members";
  let description = [{
    In C (no `cxx`) a typedef of an anonymous struct,
    `typedef struct __attribute__((aligned(N))) { ... } name;`; with `cxx`
    a C++ struct, `struct alignas(N) name { ... };`. Without `alignment`
    neither attribute is printed.

    ```mlir
    cdecl.struct "f_in" {alignment = 16 : i64} {
      cdecl.field "x" : !emitc.array<3xf64>
      cdecl.comment "y: no values"
    }
    ```
  }];
  let arguments = (ins StrAttr:$name, OptionalAttr<I64Attr>:$alignment, UnitAttr:$cxx);
  let assemblyFormat = "$name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def CDecl_FieldOp : CDecl_Op<"field", [HasParent<"StructOp">]> {
  let summary = "a member of a cdecl.struct: T name[dims]; /* comment */";
  let description = [{
    An `!emitc.array` type gives the member's dimensions. `comment` follows
    the member on its line.
  }];
  let arguments = (ins StrAttr:$name, TypeAttr:$type, OptionalAttr<StrAttr>:$comment);
  let assemblyFormat = "$name `:` $type attr-dict";
  let hasVerifier = 1;
}

#endif
