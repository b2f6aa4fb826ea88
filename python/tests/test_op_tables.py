"""The front end takes its op names from the expression dialect (ODS), not lists of its own.

The reference is the ODS file itself, read as text here: every enum case of
ExprOps.td is what `_scaly.expr_enums()` reports, every math function is an
`sc.` function, an `Expr` method and reachable through the NumPy ufunc of
that name, with values checked against NumPy.
"""

import os
import re

import numpy as np
import pytest

import scaly as sc
from scaly import _scaly

ODS = os.path.join(os.path.dirname(__file__), "..", "..", "mlir-dialects", "Expr", "ExprOps.td")


def ods_enum(name):
    """The case names of I32EnumAttr `name` in ExprOps.td, in value order."""
    text = open(ODS).read()
    body = re.search(r"def %s\s*:\s*I32EnumAttr<[^\[]*\[(.*?)\]>" % name, text, re.S).group(1)
    cases = re.findall(r'I32EnumAttrCase<"(\w+)",\s*(\d+)>', body)
    return [n for n, _ in sorted(cases, key=lambda c: int(c[1]))]


@pytest.mark.parametrize("key,enum", [("math", "Expr_MathFn"), ("math2", "Expr_Math2Fn"),
                                      ("compare", "Expr_CmpPredicate"),
                                      ("reduce", "Expr_ReduceKind")])
def test_enum_names_come_from_ods(key, enum):
    assert _scaly.expr_enums()[key] == ods_enum(enum)


# Inputs inside every function's domain (acos, asin: |x| < 1; log, sqrt: x > 0).
X = np.array([0.125, 0.25, 0.5, 0.75])
NUMPY_NAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}


@pytest.mark.parametrize("name", ods_enum("Expr_MathFn"))
def test_every_math_function_is_public_and_matches_numpy(name):
    reference = getattr(np, NUMPY_NAME.get(name, name))
    for spell in ("sc", "method", "ufunc"):
        @sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
        def f(x):
            if spell == "sc":
                return getattr(sc, name)(x)
            if spell == "method":
                return getattr(x, name)()
            return reference(x)
        np.testing.assert_allclose(f(X), reference(X), rtol=1e-15, atol=0, err_msg=spell)


def test_unknown_math_name_lists_the_ods_names():
    graph = _scaly.Graph()
    x = graph.input(0, [2], "float64")
    with pytest.raises(ValueError, match="unknown math function 'erff': expected one of sin, cos"):
        graph.math("erff", x)
