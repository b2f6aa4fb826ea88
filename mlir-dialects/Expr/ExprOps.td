//===- ExprOps.td - Scaly expression dialect -----------------*- tablegen -*-===//
//
// The expression dialect is what tracing a Python function produces: pure
// operations on small statically shaped arrays (ranked tensors of f64, f32,
// i32, i64 or i1; rank 0 is a scalar), one `expr.func` per Scaly Function,
// calls and maps carrying the expand/block lowering hint.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_EXPR_OPS
#define SCALY_EXPR_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "Expr/MathFunctions.td"
include "ScalyAttrs.td"
include "Expr/ExprInterfaces.td"

// The ops whose sparsity rule is their own (ExprInterfaces.td).
defvar Expr_HasSparsityRule = DeclareOpInterfaceMethods<Expr_SparsityRuleOpInterface>;

def Expr_Dialect : Dialect {
  let name = "expr";
  let cppNamespace = "::scaly::expr";
  let summary = "Scaly's traced array expressions";
  let description = [{
    Pure array operations of small static shape, as traced from Python.
    Values are ranked tensors with static shape; rank 0 is a scalar.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 1;
  // expr.place: one #expr.place per result of the op that carries it.
  let hasOperationAttrVerify = 1;
}

// Shorthand: the op implements its derivative rules (Derivatives.cpp).
def Expr_Differentiable : DeclareOpInterfaceMethods<Expr_DifferentiableOpInterface>;

class Expr_Op<string mnemonic, list<Trait> traits = []>
    : Op<Expr_Dialect, mnemonic, traits>;

// Element types Scaly traces: float64, float32, int32, int64, bool.
def Expr_ElementType : AnyTypeOf<[F64, F32, I32, I64, I1]>;
// An element count that overflows int64 (2^61 x 4) made the lowering count
// elements without end: such a type is refused by every op's verifier.
def Expr_Array : ConfinedType<StaticShapeTensorOf<[F64, F32, I32, I64, I1]>,
    [CPred<"::scaly::expr::hasCountableElements($_self)">],
    "statically shaped tensor of 64-bit float or 32-bit float or 32-bit signless integer or "
    "64-bit signless integer or 1-bit signless integer values whose element count fits in "
    "64 bits">;
def Expr_FloatArray : StaticShapeTensorOf<[F64, F32]>;

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Expr_MathFn : I32EnumAttr<"MathFn", "elementwise math function", Expr_UnaryMathFunctions> {
  let cppNamespace = "::scaly::expr";
  let genSpecializedAttr = 0;
}
def Expr_MathFnAttr : EnumAttr<Expr_Dialect, Expr_MathFn, "math_fn">;

def Expr_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
    I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
    I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::scaly::expr";
  let genSpecializedAttr = 0;
}
def Expr_CmpPredicateAttr : EnumAttr<Expr_Dialect, Expr_CmpPredicate, "cmp_predicate">;

def Expr_PlaceKind : I32EnumAttr<"PlaceKind", "where scaly-plan-placement puts a value", [
    I32EnumAttrCase<"output", 0>, I32EnumAttrCase<"yield", 1>,
    I32EnumAttrCase<"workspace", 2>, I32EnumAttrCase<"registers", 3>]> {
  let cppNamespace = "::scaly::expr";
  let genSpecializedAttr = 0;
}

def Expr_PlaceAttr : AttrDef<Expr_Dialect, "Place"> {
  let mnemonic = "place";
  let summary = "where a value lives once lowered (scaly-plan-placement)";
  let description = [{
    `#expr.place<output 0 offset 4>`: produced in output 0 of the function,
    from element 4 on. `#expr.place<yield 1 offset 4>`: in the memory the
    enclosing loop's yield operand 1 is written to (this iteration's slice of
    a stacked result, or the next value of a large carried one). The offset
    is omitted when 0. `#expr.place<workspace>`: a window of its own in the
    workspace, when it is stored. `#expr.place<registers>`: scalars, never
    memory of its own. Lowering computes a value planned into registers as
    scalars, any other by loops.
  }];
  let parameters = (ins EnumParameter<Expr_PlaceKind>:$kind,
                        "int64_t":$index, "int64_t":$offset);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Output or yield: memory that another value ends in.
    bool isDestination() const {
      return getKind() == PlaceKind::output || getKind() == PlaceKind::yield;
    }
  }];
}

//===----------------------------------------------------------------------===//
// Functions, calls and maps
//===----------------------------------------------------------------------===//

def Expr_FuncOp : Expr_Op<"func", [Expr_DifferentiatedByPass,
    FunctionOpInterface, IsolatedFromAbove, Symbol, CallableOpInterface]> {
  let summary = "a traced Scaly Function";
  let description = [{
    One symbol per Scaly Function. `arg_names` and `res_names` keep the
    Python names of inputs and outputs. The unit attribute `block` records
    that the traced result carried the `.block()` hint: calls of a blocked
    function are kept as procedures by lowering instead of being expanded.
    The unit attribute `entry` marks a function the C module exports with the
    five-argument ABI; a module may have several. Without any, lowering
    exports the one named by its `entry` option (default: the first).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       StrArrayAttr:$arg_names,
                       StrArrayAttr:$res_names,
                       UnitAttr:$block,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       UnitAttr:$entry);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() { return getFunctionType().getInputs(); }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() { return getFunctionType().getResults(); }
    ::mlir::Region *getCallableRegion() { return &getBody(); }
  }];
}

def Expr_ReturnOp : Expr_Op<"return", [Expr_DifferentiatedByPass, Pure, HasParent<"FuncOp">, Terminator, ReturnLike]> {
  let summary = "return the outputs of an expr.func";
  let arguments = (ins Variadic<Expr_Array>:$operands);
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
  let hasVerifier = 1;
}

def Expr_CallOp : Expr_Op<"call", [Expr_HasSparsityRule, Expr_Differentiable,
    Pure, CallOpInterface, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "call another Scaly Function";
  let description = [{
    Calls `callee` on the operands. With the unit attribute `block` the call
    survives lowering as a call of the callee's procedure; without it the
    `scaly-expand-calls` pass inlines the callee.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Expr_Array>:$operands,
                       UnitAttr:$block,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<Expr_Array>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::CallInterfaceCallable getCallableForCallee() { return getCalleeAttr(); }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable c) {
      (*this)->setAttr("callee", ::llvm::cast<::mlir::SymbolRefAttr>(c.get<::mlir::SymbolRefAttr>()));
    }
    ::mlir::Operation::operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); }
  }];
}

def Expr_MapOp : Expr_Op<"map", [Expr_HasSparsityRule, Expr_Differentiable, Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "map a Scaly Function over the leading axis of its operands";
  let description = [{
    `sc.vmap(fn, n)`: every operand has a leading axis of length `count` over
    which `callee` is applied; results are stacked along a new leading axis.
    One op, never `count` copies; `scaly-map-to-loop` turns it into an
    `expr.loop`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Scaly_I64Attr:$count,
                       Variadic<Expr_Array>:$operands, UnitAttr:$block,
                       OptionalAttr<DenseBoolArrayAttr>:$mapped);
  let results = (outs Variadic<Expr_Array>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` `count` $count attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    /// Whether operand `i` is sliced along its leading axis (`in_axes` 0)
    /// rather than passed whole to every iteration (`in_axes` None).
    bool isMapped(unsigned i) { return !getMapped() || (*getMapped())[i]; }
  }];
}

def Expr_ScanOp : Expr_Op<"scan", [Expr_HasSparsityRule, Expr_Differentiable, Pure, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a sequential loop with carried state (jax.lax.scan, CasADi's mapaccum)";
  let description = [{
    `sc.scan(fn, n)`: operand 0 is the initial state; `callee`'s first input
    and first output are the state (same type). Iteration `i` calls `callee`
    on the current state and slice `i` of each mapped operand (unmapped ones
    are passed whole); its first output becomes the next state. Results: the
    final state, then the other outputs stacked along a new leading axis.
    One op, never `count` copies; `scaly-map-to-loop` turns it into an
    `expr.loop` with one carried value.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Scaly_I64Attr:$count,
                       Variadic<Expr_Array>:$operands, UnitAttr:$block,
                       OptionalAttr<DenseBoolArrayAttr>:$mapped);
  let results = (outs Variadic<Expr_Array>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` `count` $count attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    bool isMapped(unsigned i) { return i > 0 && (!getMapped() || (*getMapped())[i]); }
  }];
}

def Expr_LoopOp : Expr_Op<"loop", [Expr_DifferentiatedByPass,
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<LoopLikeOpInterface>]> {
  let summary = "a counted loop over leading-axis slices, with optional carried values";
  let description = [{
    Runs the body `count` times. The first `carried` operands are initial
    values carried from one iteration to the next: the body sees the current
    ones as its first arguments and yields the next ones first; they are the
    first results after the last iteration. Iteration `i` sees slice `i`
    (along the leading axis) of every other operand as a block argument; the
    other yielded values of iteration `i` become slice `i` of the other
    results. Values from outside the loop may be used in the body directly
    (passed whole to every iteration). `name` names the loop counter in C.

    Canonicalization drops dead results: a stacked result nobody uses, and a
    carried value whose final value nobody uses and whose current value no
    kept result depends on (a carried value read by a kept one's update
    stays); then a sliced operand the body no longer reads. The body
    computations that fed only what was dropped are then dead.

    A `LoopLikeOpInterface` (its body is the loop region): upstream's
    loop-invariant code motion moves pure ops that use only values from
    outside the body before the loop, and scaly-hoist-invariants moves them
    through the interface too.
  }];
  let arguments = (ins Scaly_I64Attr:$count, Variadic<Expr_Array>:$operands,
                       OptionalAttr<StrAttr>:$name, OptionalAttr<Scaly_I64Attr>:$carried);
  let results = (outs Variadic<Expr_Array>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $count `(` $operands `)` attr-dict `:` functional-type($operands, results) $body
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    unsigned getNumCarried() { return static_cast<unsigned>(getCarried().value_or(0)); }
  }];
}

def Expr_FusedOp : Expr_Op<"fused", [Expr_DifferentiatedByPass, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a large value computed where it is read, by the ops of its body";
  let description = [{
    One fusion group, formed by scaly-form-fused-ops from scaly-plan-fusion's
    marks: the body holds the elementwise ops, views (broadcast, transpose,
    slice, reshape), concatenations and gathers that compute the yielded
    value from values defined outside it. Nothing of it is stored: each
    consumer's loop computes the element it reads through the whole body, so
    a chain such as `(2*x).sin() + 1` read by a reduction is one loop. A
    consumer that reads memory (a call, a helper) stores it first. The body
    uses outer values directly, other expr.fused results among them.
  }];
  let results = (outs Expr_Array:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict `:` type($result) $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The value the body computes (the yield's operand).
    ::mlir::Value getRoot();
  }];
}

def Expr_YieldOp : Expr_Op<"yield", [Expr_DifferentiatedByPass, Pure,
    ParentOneOf<["LoopOp", "FusedOp"]>, Terminator, ReturnLike]> {
  let summary = "yield one iteration's slices from an expr.loop, or the value of an expr.fused";
  let arguments = (ins Variadic<Expr_Array>:$operands);
  let builders = [OpBuilder<(ins), [{ /* nothing */ }]>];
  let assemblyFormat = "($operands^ `:` type($operands))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Elementwise arithmetic
//===----------------------------------------------------------------------===//

def Expr_ConstantOp : Expr_Op<"constant", [Expr_ZeroDerivative, ConstantLike, Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "a constant array";
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
}

class Expr_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Expr_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType, Elementwise, Expr_Differentiable])> {
  let arguments = (ins Expr_Array:$lhs, Expr_Array:$rhs);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Expr_AddOp : Expr_BinaryOp<"add", [Commutative]> {
  let summary = "elementwise sum";
  let description = [{
    Canonicalization: `x + (-y)` becomes `x - y` (the same value in IEEE
    arithmetic, one op fewer).
  }];
  let hasCanonicalizer = 1;
}
def Expr_SubOp : Expr_BinaryOp<"sub"> {
  let summary = "elementwise difference";
  let description = [{
    Canonicalization: `x - (-y)` becomes `x + y` (the same value in IEEE
    arithmetic, one op fewer).
  }];
  let hasCanonicalizer = 1;
}
def Expr_MulOp : Expr_BinaryOp<"mul", [Commutative]> {
  let summary = "elementwise product";
  let description = [{
    With the unit attribute `exact_zeros`, a zero factor gives zero whatever
    the other one (0 * inf = 0 * NaN = 0): the products of tangents that
    scaly-differentiate builds for an expr.jvp / expr.vjp with
    `exact_zeros`, so that a compressed sweep's zero seeds never meet an
    infinite or NaN partial.
  }];
  let arguments = (ins Expr_Array:$lhs, Expr_Array:$rhs, UnitAttr:$exact_zeros);
}
def Expr_DivOp : Expr_BinaryOp<"div"> {
  let summary = "elementwise quotient";
  let description = [{
    With the unit attribute `exact_zeros`, a zero numerator gives zero
    whatever the divisor (0 / 0 = 0 / NaN = 0), as expr.mul's.
  }];
  let arguments = (ins Expr_Array:$lhs, Expr_Array:$rhs, UnitAttr:$exact_zeros);
}

def Expr_Math2Fn : I32EnumAttr<"Math2Fn", "binary math function", Expr_BinaryMathFunctions> {
  let cppNamespace = "::scaly::expr";
  let genSpecializedAttr = 0;
}
def Expr_Math2FnAttr : EnumAttr<Expr_Dialect, Expr_Math2Fn, "math2_fn">;

def Expr_Math2Op : Expr_Op<"math2", [Elementwise, Expr_Differentiable, Pure, SameOperandsAndResultType]> {
  let summary = "elementwise binary math function (pow, atan2, fmin, fmax, fmod)";
  let arguments = (ins Expr_Math2FnAttr:$fn, Expr_FloatArray:$lhs, Expr_FloatArray:$rhs);
  let results = (outs Expr_FloatArray:$result);
  let assemblyFormat = "$fn $lhs `,` $rhs attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Expr_NegOp : Expr_Op<"neg", [Elementwise, Expr_Differentiable, Pure, SameOperandsAndResultType]> {
  let summary = "elementwise negation";
  let arguments = (ins Expr_Array:$operand);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Expr_MathOp : Expr_Op<"math", [Elementwise, Expr_Differentiable, Pure, SameOperandsAndResultType]> {
  let summary = "elementwise unary math function";
  let arguments = (ins Expr_MathFnAttr:$fn, Expr_FloatArray:$operand);
  let results = (outs Expr_FloatArray:$result);
  let assemblyFormat = "$fn $operand attr-dict `:` type($result)";
  let hasFolder = 1;
}

def Expr_CmpOp : Expr_Op<"cmp", [Elementwise, Expr_ZeroDerivative, Pure, SameTypeOperands]> {
  let summary = "elementwise comparison, giving a bool array";
  let arguments = (ins Expr_CmpPredicateAttr:$predicate, Expr_Array:$lhs, Expr_Array:$rhs);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = "$predicate $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

def Expr_SelectOp : Expr_Op<"select", [Elementwise, Expr_Differentiable, Pure, AllTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "elementwise choice: cond ? on_true : on_false";
  let arguments = (ins StaticShapeTensorOf<[I1]>:$cond, Expr_Array:$on_true, Expr_Array:$on_false);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,` type($result)";
}

def Expr_CastOp : Expr_Op<"cast", [Elementwise, Expr_Differentiable, Pure]> {
  let summary = "elementwise conversion to another element type";
  let arguments = (ins Expr_Array:$operand);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Structure: shapes, element selection, reductions
//===----------------------------------------------------------------------===//

def Expr_BroadcastOp : Expr_Op<"broadcast", [Expr_HasSparsityRule, Expr_Differentiable, Pure, AllElementTypesMatch<["operand", "result"]>]> {
  let summary = "NumPy broadcast to a larger shape";
  let description = [{
    The operand's axes align with the result's trailing axes; an operand
    axis of size 1 (or a missing leading axis) repeats along the result's.
  }];
  let arguments = (ins Expr_Array:$operand);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_ReshapeOp : Expr_Op<"reshape", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["operand", "result"]>]> {
  let summary = "the same elements in row-major order, another shape";
  let arguments = (ins Expr_Array:$operand);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_GatherOp : Expr_Op<"gather", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["operand", "result"]>]> {
  let summary = "pick elements by static row-major position";
  let description = [{
    Element `k` of the result (row-major) is element `indices[k]` of the
    flattened operand. Indexing, slicing with steps, transposition and
    reversal all trace to this one op.
  }];
  let arguments = (ins Expr_Array:$operand, DenseI64ArrayAttr:$indices);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand $indices attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_ScatterOp : Expr_Op<"scatter", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["values", "result"]>]> {
  let summary = "place values at static row-major positions of a zero array";
  let description = [{
    Element `positions[k]` of the result (row-major) is element `k` of the
    flattened `values`; every other element is zero. Positions are distinct
    and within the result, one per value. The inverse of `expr.gather` for a
    table without repeats: a dense matrix assembled from its stored entries
    (a sparse Jacobian or Hessian asked for as `layout="dense"`) is one
    scatter, whose lowering fills the result with zeros and writes the
    values in one loop over a table of `positions` (O(entries) C, where a
    gather of the result would need a table of every element).

    ```mlir
    %d = expr.scatter %v [0, 4, 8] : tensor<3xf64> to tensor<3x3xf64>
    ```
  }];
  let arguments = (ins Expr_Array:$values, DenseI64ArrayAttr:$positions);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$values $positions attr-dict `:` type($values) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_ConcatOp : Expr_Op<"concat", [Expr_HasSparsityRule, Expr_Differentiable, Pure]> {
  let summary = "concatenate operands, flattened or along an axis";
  let description = [{
    Without `axis`, the result holds the elements of each operand, flattened,
    one operand after the other (any shapes with the right total). With
    `axis`, operands have the result's rank and agree on every other axis;
    they are joined along `axis`, as NumPy's concatenate.
  }];
  let arguments = (ins Variadic<Expr_Array>:$operands, OptionalAttr<Scaly_I64Attr>:$axis);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operands attr-dict `:` functional-type($operands, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_TransposeOp : Expr_Op<"transpose", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["operand", "result"]>]> {
  let summary = "permute the axes";
  let description = [{
    Result axis `i` is operand axis `permutation[i]`. Lowering reads the
    operand with permuted strides; nothing is copied unless a consumer needs
    contiguous memory.
  }];
  let arguments = (ins Expr_Array:$operand, DenseI64ArrayAttr:$permutation);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand $permutation attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_SliceOp : Expr_Op<"slice", [Expr_HasSparsityRule, Expr_Differentiable, Pure, AllElementTypesMatch<["operand", "result"]>]> {
  let summary = "strided slice: start and step per axis, sizes from the result";
  let description = [{
    Result element `(i0, i1, ...)` is operand element
    `(starts[0] + i0*steps[0], starts[1] + i1*steps[1], ...)`. Steps may be
    negative (`x[::-1]`). Integer indexing is a slice of size 1 followed by
    an `expr.reshape` that drops the axis.
  }];
  let arguments = (ins Expr_Array:$operand, DenseI64ArrayAttr:$starts, DenseI64ArrayAttr:$steps);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = [{
    $operand `starts` $starts `steps` $steps attr-dict `:` type($operand) `to` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Expr_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"prod", 1>,
    I32EnumAttrCase<"max", 2>, I32EnumAttrCase<"min", 3>]> {
  let cppNamespace = "::scaly::expr";
  let genSpecializedAttr = 0;
}
def Expr_ReduceKindAttr : EnumAttr<Expr_Dialect, Expr_ReduceKind, "reduce_kind">;

def Expr_ReduceOp : Expr_Op<"reduce", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["operand", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "sum, product, maximum or minimum over chosen axes";
  let description = [{
    The result drops the (sorted, distinct) `axes`. Sums of floats round
    like NumPy's pairwise summation over a contiguous run; max and min
    propagate NaN as NumPy does. Lowering keeps a large reduction a loop.
  }];
  let arguments = (ins Expr_ReduceKindAttr:$kind, Expr_Array:$operand, DenseI64ArrayAttr:$axes);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$kind $operand `axes` $axes attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

def Expr_MatmulOp : Expr_Op<"matmul", [Expr_HasSparsityRule, Expr_Differentiable, Pure,
    AllElementTypesMatch<["lhs", "rhs", "result"]>,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "batched matrix product: (..., m, k) x (..., k, n) -> (..., m, n)";
  let description = [{
    One contraction op for `@`, `sc.dot` and `sc.matmul`: vectors are made
    matrices with `expr.reshape` and batch axes broadcast with
    `expr.broadcast` before it. Lowering keeps it a loop nest.
  }];
  let arguments = (ins Expr_Array:$lhs, Expr_Array:$rhs);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `to` type($result)";
  let hasVerifier = 1;
}

def Expr_SumOp : Expr_Op<"sum", [Expr_HasSparsityRule, Expr_Differentiable, Pure]> {
  let summary = "sum of all elements";
  let arguments = (ins Expr_Array:$operand);
  let results = (outs Expr_Array:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `to` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Derivatives (eliminated by scaly-differentiate)
//===----------------------------------------------------------------------===//

def Expr_JvpOp : Expr_Op<"jvp", [Pure, Expr_DifferentiatedByPass,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "forward-mode derivative (Jacobian-vector product) of a function";
  let description = [{
    The operands are the callee's inputs, then one tangent per input marked
    in `wrt` (same type). The results are the tangents of all the callee's
    results: J(x) . t. `scaly-differentiate` replaces the op by a call of a
    generated function built from each op's forward rule. With the unit
    attribute `exact_zeros`, a zero tangent times a factor (or a factor's
    constant zero times a tangent) is zero even where the other side is
    infinite or NaN, as the compressed sweeps of Jacobians need.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Expr_Array>:$operands,
                       DenseBoolArrayAttr:$wrt, UnitAttr:$exact_zeros);
  let results = (outs Variadic<Expr_Array>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` `wrt` $wrt attr-dict `:` functional-type($operands, results)
  }];
}

def Expr_VjpOp : Expr_Op<"vjp", [Pure, Expr_DifferentiatedByPass,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "reverse-mode derivative (vector-Jacobian product) of a function";
  let description = [{
    The operands are the callee's inputs, then one cotangent per result
    marked in `of` (same type). The results are the cotangents of the inputs
    marked in `wrt`: w . J(x). `scaly-differentiate` replaces the op by a
    call of a generated function that recomputes the callee and then applies
    each op's reverse rule, last op first. `exact_zeros` as for expr.jvp,
    for cotangents.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Expr_Array>:$operands,
                       DenseBoolArrayAttr:$wrt, DenseBoolArrayAttr:$of,
                       UnitAttr:$exact_zeros);
  let results = (outs Variadic<Expr_Array>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` `wrt` $wrt `of` $of attr-dict `:` functional-type($operands, results)
  }];
}

def Expr_QpSolveOp : Expr_Op<"qp_solve", [Pure, Expr_NotDifferentiable,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "solution of a convex quadratic program by Scaly's QP library";
  let description = [{
    minimize 1/2 x'Px + c'x subject to Ax = b, h_l <= Gx <= h_u,
    x_l <= x <= x_u. The operands are the stored values of P (upper
    triangle), A and G in compressed-column order of the patterns the
    attributes fix, then c, b, h_l, h_u, x_l, x_u (infinite bounds are
    absent). The results are x, the multipliers y of Ax = b, z of the rows of
    G and z_box of the bounds (positive on an active upper bound). `name` is
    the C name of the solver wrapper the module calls; `dense` picks the
    dense backend, a structural choice of the generated interface. Lowering
    calls the wrapper; a solve that does not converge still returns its
    last iterate, and the wrapper's statistics say why.
  }];
  let arguments = (ins Expr_FloatArray:$P_values, Expr_FloatArray:$c,
                       Expr_FloatArray:$A_values, Expr_FloatArray:$b,
                       Expr_FloatArray:$G_values, Expr_FloatArray:$h_l, Expr_FloatArray:$h_u,
                       Expr_FloatArray:$x_l, Expr_FloatArray:$x_u,
                       DenseI64ArrayAttr:$P_colptr, DenseI64ArrayAttr:$P_rowind,
                       DenseI64ArrayAttr:$A_colptr, DenseI64ArrayAttr:$A_rowind,
                       DenseI64ArrayAttr:$G_colptr, DenseI64ArrayAttr:$G_rowind,
                       StrAttr:$name, DefaultValuedAttr<BoolAttr, "false">:$dense);
  let results = (outs Expr_FloatArray:$x, Expr_FloatArray:$y, Expr_FloatArray:$z,
                      Expr_FloatArray:$z_box);
  let assemblyFormat = [{
    `(` $P_values `,` $c `,` $A_values `,` $b `,` $G_values `,` $h_l `,` $h_u `,` $x_l `,` $x_u `)`
    attr-dict `:` type($P_values) `,` type($c) `,` type($A_values) `,` type($b) `,`
    type($G_values) `,` type($h_l) `,` type($h_u) `,` type($x_l) `,` type($x_u) `->`
    type($x) `,` type($y) `,` type($z) `,` type($z_box)
  }];
  let hasVerifier = 1;
}

def Expr_NlpSolveOp : Expr_Op<"nlp_solve", [Pure, Expr_NotDifferentiable,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "solution of a nonlinear program by a solver wrapper (IPOPT or Scaly SQP)";
  let description = [{
    minimize f(x, p) subject to lbg <= g(x, p) <= ubg, lbx <= x <= ubx,
    from x0 and the multiplier guesses lam_g0, lam_x0. f and g, with their
    derivatives, are oracle functions the wrapper `name` owns: the module
    only passes the operands and receives x, lam_g and lam_x (CasADi's sign
    convention: grad f + J'lam_g + lam_x = 0). `solver` names the backend,
    a structural choice of the generated interface. Lowering calls the
    wrapper; a solve that does not converge still returns its last
    iterate, and the wrapper's statistics say why.
  }];
  let arguments = (ins Expr_FloatArray:$x0, Expr_FloatArray:$p, Expr_FloatArray:$lbx,
                       Expr_FloatArray:$ubx, Expr_FloatArray:$lbg, Expr_FloatArray:$ubg,
                       Expr_FloatArray:$lam_g0, Expr_FloatArray:$lam_x0,
                       StrAttr:$name, StrAttr:$solver);
  let results = (outs Expr_FloatArray:$x, Expr_FloatArray:$lam_g, Expr_FloatArray:$lam_x);
  let assemblyFormat = [{
    `(` $x0 `,` $p `,` $lbx `,` $ubx `,` $lbg `,` $ubg `,` $lam_g0 `,` $lam_x0 `)`
    attr-dict `:` type($x0) `,` type($p) `,` type($lbx) `,` type($ubx) `,` type($lbg) `,`
    type($ubg) `,` type($lam_g0) `,` type($lam_x0) `->` type($x) `,` type($lam_g) `,`
    type($lam_x)
  }];
  let hasVerifier = 1;
}

#endif // SCALY_EXPR_OPS
