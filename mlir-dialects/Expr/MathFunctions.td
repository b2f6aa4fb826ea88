//===- MathFunctions.td - the elementwise math functions ---*- tablegen -*-===//
//
// One record per math function of expr.math (one operand) and expr.math2
// (two). Each record is the function's enum case and everything the rest of
// Scaly needs to know of it: mlir-dialects/gen_math_functions.py turns the records into
// scaly/Dialect/Expr/MathFunctions.h.inc (the table behind MathFunctions.h:
// constant folding, the upstream op the lowering builds, the C library name,
// glibc's vector variants, the JIT prelude's declarations) and
// MathDerivatives.h.inc (the derivative rules of the one-operand functions).
// Python's sc.<name> functions and Expr methods come from the enum.
//
// Adding a function is one record here, plus, for two operands, its rule in
// Derivatives.cpp (math2Derivatives); python/tests/test_math_table.py checks
// every record against NumPy, the C the JIT compiles and finite differences.
//
//===----------------------------------------------------------------------===//

#ifndef SCALY_EXPR_MATHFUNCTIONS_TD
#define SCALY_EXPR_MATHFUNCTIONS_TD

include "mlir/IR/EnumAttr.td"

class Expr_MathFunction<string name, int value, int operands = 1> : I32EnumAttrCase<name, value> {
  // 1 (expr.math) or 2 (expr.math2).
  int arity = operands;
  // The C library's function for double (float: with an `f` suffix).
  string cName = name;
  // The upstream op (math or arith dialect) the lowering builds for it.
  string upstreamOp = "math." # name;
  // The glibc release whose libmvec added its x86-64 vector variants (222 for
  // 2.22, 235 for 2.35); 0 when it has none.
  int glibcVectorSince = 0;
  // Constant folding: a C++ expression of the doubles `x` (and `y`).
  string fold = "std::" # name # "(x)";
  // One operand: dy/dx in the terms of Derivatives.cpp's Differentiator `d`,
  // with `x` the operand, `y` the result, `t` their type, `one()` and
  // `zero()` constants of it. Empty: zero almost everywhere (floor, ceil).
  string derivative = "";
}

defset list<Expr_MathFunction> Expr_UnaryMathFunctions = {
  def Expr_Math_sin : Expr_MathFunction<"sin", 0> {
    let glibcVectorSince = 222;
    let derivative = [{ d.math("cos", x) }];
  }
  def Expr_Math_cos : Expr_MathFunction<"cos", 1> {
    let glibcVectorSince = 222;
    let derivative = [{ d.neg(d.math("sin", x)) }];
  }
  def Expr_Math_tan : Expr_MathFunction<"tan", 2> {
    let glibcVectorSince = 235;
    let derivative = [{ d.add(one(), d.mul(y, y)) }];
  }
  def Expr_Math_asin : Expr_MathFunction<"asin", 3> {
    let glibcVectorSince = 235;
    let derivative = [{ d.div(one(), d.math("sqrt", d.sub(one(), d.mul(x, x)))) }];
  }
  def Expr_Math_acos : Expr_MathFunction<"acos", 4> {
    let glibcVectorSince = 235;
    let derivative = [{ d.neg(d.div(one(), d.math("sqrt", d.sub(one(), d.mul(x, x))))) }];
  }
  def Expr_Math_atan : Expr_MathFunction<"atan", 5> {
    let glibcVectorSince = 235;
    let derivative = [{ d.div(one(), d.add(one(), d.mul(x, x))) }];
  }
  def Expr_Math_sinh : Expr_MathFunction<"sinh", 6> {
    let glibcVectorSince = 235;
    let derivative = [{ d.math("cosh", x) }];
  }
  def Expr_Math_cosh : Expr_MathFunction<"cosh", 7> {
    let glibcVectorSince = 235;
    let derivative = [{ d.math("sinh", x) }];
  }
  def Expr_Math_tanh : Expr_MathFunction<"tanh", 8> {
    let glibcVectorSince = 235;
    let derivative = [{ d.sub(one(), d.mul(y, y)) }];
  }
  def Expr_Math_exp : Expr_MathFunction<"exp", 9> {
    let glibcVectorSince = 222;
    let derivative = [{ y }];
  }
  def Expr_Math_log : Expr_MathFunction<"log", 10> {
    let glibcVectorSince = 222;
    let derivative = [{ d.div(one(), x) }];
  }
  def Expr_Math_log1p : Expr_MathFunction<"log1p", 11> {
    let glibcVectorSince = 235;
    let derivative = [{ d.div(one(), d.add(one(), x)) }];
  }
  def Expr_Math_expm1 : Expr_MathFunction<"expm1", 12> {
    let glibcVectorSince = 235;
    let derivative = [{ d.add(y, one()) }];
  }
  def Expr_Math_sqrt : Expr_MathFunction<"sqrt", 13> {
    let derivative = [{ d.div(d.constant(t, 0.5), y) }];
  }
  // sign(x), and 0 at 0.
  def Expr_Math_abs : Expr_MathFunction<"abs", 14> {
    let cName = "fabs";
    let upstreamOp = "math.absf";
    let fold = "std::fabs(x)";
    let derivative = [{ d.select(d.cmp("gt", x, zero()), one(),
                                 d.select(d.cmp("lt", x, zero()), d.constant(t, -1.0), zero())) }];
  }
  def Expr_Math_floor : Expr_MathFunction<"floor", 15>;
  def Expr_Math_ceil : Expr_MathFunction<"ceil", 16>;
  def Expr_Math_exp2 : Expr_MathFunction<"exp2", 17> {
    let glibcVectorSince = 235;
    let derivative = [{ d.mul(y, d.constant(t, 0.69314718055994530942)) }];
  }
  def Expr_Math_log10 : Expr_MathFunction<"log10", 18> {
    let glibcVectorSince = 235;
    let derivative = [{ d.div(d.constant(t, 0.43429448190325182765), x) }];
  }
}

// Their partial derivatives are rules in Derivatives.cpp (math2Derivatives).
defset list<Expr_MathFunction> Expr_BinaryMathFunctions = {
  def Expr_Math2_pow : Expr_MathFunction<"pow", 0, 2> {
    let upstreamOp = "math.powf";
    let glibcVectorSince = 222;
    let fold = "std::pow(x, y)";
  }
  def Expr_Math2_atan2 : Expr_MathFunction<"atan2", 1, 2> {
    let glibcVectorSince = 235;
    let fold = "std::atan2(x, y)";
  }
  def Expr_Math2_fmin : Expr_MathFunction<"fmin", 2, 2> {
    let upstreamOp = "arith.minnumf";
    let fold = "std::fmin(x, y)";
  }
  def Expr_Math2_fmax : Expr_MathFunction<"fmax", 3, 2> {
    let upstreamOp = "arith.maxnumf";
    let fold = "std::fmax(x, y)";
  }
  def Expr_Math2_fmod : Expr_MathFunction<"fmod", 4, 2> {
    let upstreamOp = "arith.remf";
    let fold = "std::fmod(x, y)";
  }
}

#endif // SCALY_EXPR_MATHFUNCTIONS_TD
