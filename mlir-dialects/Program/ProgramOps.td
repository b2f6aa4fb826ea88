//===- ProgramOps.td - Scaly program dialect -----------------*- tablegen -*-===//
//
// The program dialect is what lowering produces and what maps one to one onto
// C: procedures over typed pointers, counted loops, loads and stores at
// element offsets, workspace windows. Scalar arithmetic uses `arith` and
// `math`.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_PROGRAM_OPS
#define SCALY_PROGRAM_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "ScalyAttrs.td"

def Prog_Dialect : Dialect {
  let name = "prog";
  let cppNamespace = "::scaly::prog";
  let summary = "Scaly's C-shaped programs: procedures, loops, buffers, workspace";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

class Prog_Op<string mnemonic, list<Trait> traits = []>
    : Op<Prog_Dialect, mnemonic, traits>;

def Prog_ScalarType : AnyTypeOf<[F64, F32, I32, I64, I1]>;
// A lane vector: one value per lane of a widened loop (scaly-widen-lanes).
def Prog_LaneVector : VectorOfRankAndType<[1], [F64, F32]>;
def Prog_Value : AnyTypeOf<[Prog_ScalarType, Prog_LaneVector]>;

def Prog_PtrType : TypeDef<Prog_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "pointer to elements of a buffer";
  let description = [{
    `!prog.ptr<f64>` points to writable elements, `!prog.ptr<const f64>` to
    read-only ones (inputs). C prints them as `double*` and `const double*`;
    i1 elements are stored as `uint8_t`, and `!prog.ptr<none>` is `void*`
    (the workspace of a function whose inputs and outputs mix dtypes).
  }];
  let parameters = (ins "::mlir::Type":$elementType, "bool":$readonly);
  let hasCustomAssemblyFormat = 1;
}

def Prog_AnyPtr : Type<CPred<"::llvm::isa<::scaly::prog::PtrType>($_self)">, "pointer", "::scaly::prog::PtrType">;

def Prog_ProcOp : Prog_Op<"proc", [FunctionOpInterface, IsolatedFromAbove, Symbol, CallableOpInterface]> {
  let summary = "a C procedure over typed pointers";
  let description = [{
    Arguments are one pointer per input (read-only), one per output, and a
    trailing workspace pointer `w`. `entry` marks the exported function, which
    gets the five-argument pointer ABI when emitted; other procedures become
    `static inline void <name>_raw(...)`. `workspace` is the number of
    bytes of `w` this procedure needs, its callees' included (set by
    scaly-plan-workspace).
    `input_sizes`/`output_sizes` give the number of stored elements of each.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       StrArrayAttr:$arg_names,
                       DenseI64ArrayAttr:$input_sizes,
                       DenseI64ArrayAttr:$output_sizes,
                       UnitAttr:$entry,
                       DefaultValuedAttr<Scaly_I64Attr, "0">:$workspace,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    unsigned getNumInputs() { return getInputSizes().size(); }
    unsigned getNumOutputs() { return getOutputSizes().size(); }
    ::mlir::BlockArgument getWorkspaceArg() { return getBody().getArgument(getNumInputs() + getNumOutputs()); }
  }];
}

def Prog_ReturnOp : Prog_Op<"return", [Pure, HasParent<"ProcOp">, Terminator, ReturnLike]> {
  let summary = "end of a procedure";
  let assemblyFormat = "attr-dict";
}

def Prog_ExternOp : Prog_Op<"extern", [Symbol]> {
  let summary = "declaration of an external C function (a solver's wrapper, a library call)";
  let description = [{
    `prog.extern @name : (f64, !prog.ptr<const f64>) -> f64` declares
    `double name(double, const double*);` in the module. With `header`, the
    module includes that header instead of declaring the function itself.
    Scalars are f64, f32, i32, i64 or i1; pointers are `!prog.ptr`; at most
    one result.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<StrAttr>:$header);
  let assemblyFormat = "$sym_name `:` $function_type attr-dict";
  let hasVerifier = 1;
}

def Prog_CallExternOp : Prog_Op<"call_extern", [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call an external C function declared with prog.extern";
  let description = [{
    The callee may read and write memory through its pointer arguments, so
    the call is ordered with every load and store around it.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Optional<Prog_ScalarType>:$result);
  let assemblyFormat = "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)";
}

def Prog_OffsetOp : Prog_Op<"offset", [Pure]> {
  let summary = "pointer advanced by index * scale + bias elements (may add const)";
  let arguments = (ins Prog_AnyPtr:$base, Optional<I64>:$index,
                       DefaultValuedAttr<Scaly_I64Attr, "1">:$scale,
                       DefaultValuedAttr<Scaly_I64Attr, "0">:$bias);
  let results = (outs Prog_AnyPtr:$result);
  let assemblyFormat = "$base (`[` $index^ `]`)? attr-dict `:` type($base) `->` type($result)";
  let hasVerifier = 1;
  // No index and no bias: the base itself; an offset of an unindexed offset:
  // one offset of the innermost base.
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Prog_LoadOp : Prog_Op<"load", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "read element `offset` of a buffer (or one element per lane, `stride` apart)";
  let description = [{
    A scalar result reads element `offset`. A lane vector `vector<L x T>`
    reads elements offset, offset + stride, ..., offset + (L-1) * stride:
    lane k of a widened loop's iteration (scaly-widen-lanes). Contiguous
    lanes are read through an aligned(8), may_alias vector type.
  }];
  let arguments = (ins Prog_AnyPtr:$ptr, Scaly_I64Attr:$offset,
                       DefaultValuedAttr<Scaly_I64Attr, "1">:$stride);
  let results = (outs Prog_Value:$result);
  let builders = [OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$ptr, "::mlir::IntegerAttr":$offset), [{
    build($_builder, $_state, type, ptr, offset, $_builder.getI64IntegerAttr(1));
  }]>];
  let assemblyFormat = "$ptr `[` $offset `]` attr-dict `:` type($ptr) `->` type($result)";
  let hasVerifier = 1;
}

def Prog_StoreOp : Prog_Op<"store", [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "write consecutive elements starting at `offset`";
  let description = [{
    Stores `values` to elements offset, offset+1, ... of `ptr`. A store of
    several values is emitted through aligned(8), may_alias vector types.
    Lane vectors (a widened loop's values) store lane k of value j to
    element offset + j + k * stride.

    `streaming` makes it a nontemporal store of whole 32-byte vectors:
    the values bypass the caches on their way to memory, which pays for a
    large result written once and not read back soon (a transposed copy
    larger than the caches: with whole 64-byte lines streamed, no line is
    read before it is written). The address must be 32-byte aligned, which
    the program tests first (`prog.is_aligned`); in C it is Clang's
    `__builtin_nontemporal_store`, a plain store with other compilers.

    `element_aligned` (with `streaming`) says the address is known aligned
    to its element only, and the values are 2, 4, 8 or 16 float scalars:
    the store goes through the element-aligned vector type, which compilers
    split into element-wide nontemporal stores. Rows written in order fill
    their lines in the write-combining buffers whatever their alignment, so
    a transposed copy whose rows are not whole lines streams too.
  }];
  let arguments = (ins Variadic<Prog_Value>:$values, Prog_AnyPtr:$ptr, Scaly_I64Attr:$offset,
                       DefaultValuedAttr<Scaly_I64Attr, "1">:$stride, UnitAttr:$streaming,
                       UnitAttr:$element_aligned);
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$values, "::mlir::Value":$ptr, "::mlir::IntegerAttr":$offset), [{
    build($_builder, $_state, values, ptr, offset, $_builder.getI64IntegerAttr(1));
  }]>];
  let assemblyFormat = "$values `to` $ptr `[` $offset `]` attr-dict `:` type($values) `into` type($ptr)";
  let hasVerifier = 1;
}

def Prog_IsAlignedOp : Prog_Op<"is_aligned", [Pure]> {
  let summary = "whether a pointer's address is a multiple of `bytes` (a power of two)";
  let description = [{
    True when `ptr` is aligned to `bytes`: `((uintptr_t)ptr & (bytes - 1)) == 0`
    in C. A loop nest whose streaming stores need an aligned result runs
    under it, the plain nest in its else branch.

    ```mlir
    %ok = prog.is_aligned %out, 64 : !prog.ptr<f64>
    ```
  }];
  let arguments = (ins Prog_AnyPtr:$ptr, Scaly_I64Attr:$bytes);
  let results = (outs I1:$result);
  let assemblyFormat = "$ptr `,` $bytes attr-dict `:` type($ptr)";
  let hasVerifier = 1;
}

def Prog_WindowOp : Prog_Op<"window", [MemoryEffects<[MemAlloc]>]> {
  let summary = "a window of the workspace holding a spilled temporary";
  let description = [{
    `size` elements (of the result's element type) of the procedure's
    workspace, starting `offset` bytes from `w`; `offset` is -1 until
    `scaly-plan-workspace` assigns it, always a multiple of 64 bytes.
    Each window is its own allocation (CSE must never merge two).
  }];
  let arguments = (ins Prog_AnyPtr:$workspace, Scaly_I64Attr:$size,
                       DefaultValuedAttr<Scaly_I64Attr, "-1">:$offset);
  let results = (outs Prog_AnyPtr:$result);
  let assemblyFormat = "$workspace `size` $size attr-dict `:` type($workspace) `->` type($result)";
  let hasVerifier = 1;
}

def Prog_TableOp : Prog_Op<"table", [Pure]> {
  let summary = "a read-only table of constants (a static const array in C)";
  let description = [{
    Points to `values` (row-major), stored once per module: large constant
    arrays and the index lists of large gathers are read from tables rather
    than written element by element.
  }];
  let arguments = (ins ElementsAttr:$values);
  let results = (outs Prog_AnyPtr:$result);
  let assemblyFormat = "$values attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Prog_NullOp : Prog_Op<"null", [Pure]> {
  let summary = "a null pointer (NULL), e.g. the workspace of a callee that spills nothing";
  let results = (outs Prog_AnyPtr:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Prog_CallOp : Prog_Op<"call", [CallOpInterface, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call a procedure with pointers to its inputs, outputs and workspace";
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Prog_AnyPtr>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let assemblyFormat = "$callee `(` $operands `)` attr-dict `:` type($operands)";
  let extraClassDeclaration = [{
    ::mlir::CallInterfaceCallable getCallableForCallee() { return getCalleeAttr(); }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable c) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(c.get<::mlir::SymbolRefAttr>()));
    }
    ::mlir::Operation::operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
  }];
}

def Prog_ReduceOp : Prog_Op<"reduce", [MemoryEffects<[MemRead]>]> {
  let summary = "reduce `count` elements `stride` apart: sum, prod, max or min";
  let description = [{
    Calls one of the module's reduction helpers. A float sum follows
    NumPy's pairwise summation (blocks of 8192, 8 partial sums up to 128
    elements), so a contiguous sum rounds exactly as `np.sum`; max and min
    propagate NaN; integer sums wrap around as NumPy's do.
  }];
  let arguments = (ins StrAttr:$kind, Prog_AnyPtr:$ptr, Scaly_I64Attr:$count,
                       Scaly_I64Attr:$stride);
  let results = (outs Prog_ScalarType:$result);
  let assemblyFormat = [{
    $kind $ptr `count` $count `stride` $stride attr-dict `:` type($ptr) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Prog_MatmulOp : Prog_Op<"matmul", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "out[m x n] = lhs[m x k] * rhs[k x n], contiguous row-major buffers";
  let description = [{
    Calls the module's matrix-product helper (row by row, the inner loop
    over contiguous columns so C compilers vectorize it). `out` never
    overlaps `lhs` or `rhs`.
  }];
  let arguments = (ins Prog_AnyPtr:$lhs, Prog_AnyPtr:$rhs, Prog_AnyPtr:$out,
                       Scaly_I64Attr:$m, Scaly_I64Attr:$k, Scaly_I64Attr:$n);
  let assemblyFormat = [{
    $lhs `,` $rhs `into` $out `m` $m `k` $k `n` $n attr-dict `:` type($lhs) `,` type($rhs) `,` type($out)
  }];
  let hasVerifier = 1;
}

#endif // SCALY_PROGRAM_OPS
