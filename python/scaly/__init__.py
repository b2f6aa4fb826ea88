"""Scaly: numerical models in Python, compiled to readable, self-contained C.

    import scaly as sc

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
"""

from ._function import Arg, Function, L, arg, function
from ._trace import DTYPES, Expr
from .derivatives import gradient, hessian, jacobian, jacobian_sparsity, jvp, vjp
from .solvers.model import qp
from .solvers.nlp_model import nlp
from .ops import (abs, acos, asin, atan, atan2, cast, ceil, concat, cos, cosh, dot, exp, expm1,
                  expr_op, floor, fmax, fmin, log, log1p, matmul, max, mean, min, norm2, pow,
                  prod, sin, scan, sinh, sqrt, stack, sum, sumsqr, tan, tanh, transpose, vmap,
                  where)

__version__ = "0.1.0"

from . import ops, runtime  # noqa: E402,F401  (numerical calls; cheap to import)

__all__ = [
    "Arg", "DTYPES", "Expr", "Function", "L", "arg", "function", "abs", "acos", "asin", "atan",
    "atan2", "cast", "ceil", "concat", "cos", "cosh", "dot", "exp", "expm1", "expr_op", "floor",
    "fmax", "fmin", "log", "log1p", "matmul", "max", "mean", "min", "norm2", "pow", "prod",
    "scan", "sin", "sinh", "sqrt", "stack", "sum", "sumsqr", "tan", "tanh", "transpose", "vmap",
    "where", "gradient", "hessian", "jacobian", "jacobian_sparsity", "jvp", "vjp", "qp", "nlp",
]

# Every math function of the dialect's ODS enums is sc.<name>, those added
# after this list was written included.
for _name in ops.MATH_FUNCTIONS + ops.MATH2_FUNCTIONS:
    globals().setdefault(_name, getattr(ops, _name))
    if _name not in __all__:
        __all__.append(_name)
del _name
