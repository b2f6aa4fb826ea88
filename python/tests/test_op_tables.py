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

ODS_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "mlir-dialects", "Expr")
ODS = os.path.join(ODS_DIR, "ExprOps.td")
MATH_ODS = os.path.join(ODS_DIR, "MathFunctions.td")


def ods_enum(name):
    """The case names of I32EnumAttr `name` in ExprOps.td, in value order: its list of
    cases, or the records of the MathFunctions.td defset it names."""
    text = open(ODS).read()
    m = re.search(r'def %s\s*:\s*I32EnumAttr<"\w+",\s*"[^"]*",\s*\[(.*?)\]>' % name, text, re.S)
    if m:
        cases = re.findall(r'I32EnumAttrCase<"(\w+)",\s*(\d+)>', m.group(1))
    else:
        defset = re.search(r'def %s\s*:\s*I32EnumAttr<"\w+",\s*"[^"]*",\s*(\w+)>' % name,
                           text).group(1)
        math = open(MATH_ODS).read()
        body = re.search(r"defset list<\w+> %s = \{(.*?)\n\}" % defset, math, re.S).group(1)
        cases = re.findall(r'Expr_MathFunction<"(\w+)",\s*(\d+)', body)
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


# ---------------------------------------------------------------------------
# Ops by name: the tracer builds the dialect's op itself (its ODS inference
# and verifier), with no op list of its own
# ---------------------------------------------------------------------------

def test_expr_op_builds_a_contraction_and_a_reduction():
    r = np.random.default_rng(3)
    a, b = r.standard_normal((2, 3, 4)), r.standard_normal((2, 4, 5))

    @sc.function(sc.arg("a", (2, 3, 4)), sc.arg("b", (2, 4, 5)), outputs=(sc.arg("c"), sc.arg("m")))
    def f(a, b):
        c = sc.expr_op("expr.matmul", a, b)
        m = sc.expr_op("expr.reduce", c, kind="#expr<reduce_kind max>", axes=[0, 2])
        return c, m

    c, m = f(a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-14, atol=1e-14)
    np.testing.assert_array_equal(m, (a @ b).max(axis=(0, 2)))
    assert "expr.reduce  max" in f.mlir() and "expr.matmul" in f.mlir()


def test_expr_op_interns_like_every_traced_op():
    @sc.function(sc.arg("a", (2, 2)), outputs=sc.arg("y"))
    def f(a):
        p = sc.expr_op("expr.matmul", a, a)
        before = len(a._g)
        q = sc.expr_op("expr.matmul", a, a)
        assert q._id == p._id and len(a._g) == before
        return p + q

    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(f(x), 2 * (x @ x))


@pytest.mark.parametrize("call,message", [
    (lambda a: sc.expr_op("expr.nothing", a), "'expr.nothing' is not an op of the expression"),
    (lambda a: sc.expr_op("arith.addf", a, a), "is not an op of the expression dialect"),
    (lambda a: sc.expr_op("expr.slice", a, starts=[0, 0], steps=[1, 1]),
     "does not infer its result types"),
    (lambda a: sc.expr_op("expr.matmul", a, a), r"expr.matmul: .*\(3, 2\)"),
    (lambda a: sc.expr_op("expr.reduce", a, kind="#expr<reduce_kind avg>", axes=[0]),
     "attribute 'kind' is not MLIR attribute text"),
    (lambda a: sc.expr_op("expr.reduce", a, kind="#expr<reduce_kind sum>", axes=[5]),
     "expr.reduce: "),
    (lambda a: sc.expr_op("expr.reduce", a, kind="#expr<reduce_kind sum>", axes={"x": 1}),
     "attribute 'axes' is a Python dict"),
])
def test_expr_op_errors_name_the_op_and_what_was_wrong(call, message):
    with pytest.raises(ValueError, match=message):
        @sc.function(sc.arg("a", (3, 2)), outputs=sc.arg("y"))
        def f(a):
            return call(a)


def test_expr_op_needs_exprs_and_a_name():
    @sc.function(sc.arg("a", 2), outputs=sc.arg("y"))
    def f(a):
        with pytest.raises(TypeError, match="op name must be a str"):
            sc.expr_op(3, a)
        with pytest.raises(TypeError, match="expected an Expr"):
            sc.expr_op("expr.matmul", a, np.ones((2, 2)))
        return a


def test_graph_op_refuses_what_lowering_could_not_read():
    graph = _scaly.Graph()
    x = graph.input(0, [2], "float64")
    # A misspelt attribute is an error naming the op's attributes, not an ignored extra.
    with pytest.raises(ValueError, match=r"no attribute 'axis' \(its attributes: axes, kind\)"):
        graph.op("expr.reduce", [x], {"kind": "#expr<reduce_kind sum>", "axis": [0]})
    # Constants hold dense integer or float elements only (lowering reads them).
    with pytest.raises(ValueError, match="dense integer or float elements"):
        graph.op("expr.constant", [], {"value": "sparse<[[0]], [1.0]> : tensor<2xf64>"})
    with pytest.raises(ValueError, match="negative"):
        graph.input(-1, [2], "float64")
    assert len(graph) == 1  # nothing half-built was kept


def test_expr_op_max_over_an_empty_axis_is_an_error():
    with pytest.raises(ValueError, match="no identity over the zero-size axis 0"):
        @sc.function(sc.arg("a", (0, 3)), outputs=sc.arg("y"))
        def f(a):
            return sc.expr_op("expr.reduce", a, kind="#expr<reduce_kind max>", axes=[0])


def test_expr_op_attributes_accept_numpy_integers():
    @sc.function(sc.arg("a", (2, 3)), outputs=sc.arg("y"))
    def f(a):
        return sc.expr_op("expr.reduce", a, kind="#expr<reduce_kind sum>",
                          axes=[np.int64(1)])

    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(f(x), x.sum(axis=1))
    graph = _scaly.Graph()
    v = graph.input(0, [2], "float64")
    with pytest.raises(ValueError, match="'axes' does not fit a 64-bit integer"):
        graph.op("expr.reduce", [v], {"kind": "#expr<reduce_kind sum>", "axes": [2 ** 70]})
    with pytest.raises(ValueError, match="'axes' is a Python list"):
        graph.op("expr.reduce", [v], {"kind": "#expr<reduce_kind sum>", "axes": [0, 1.5]})
