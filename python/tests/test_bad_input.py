"""Bad inputs at trace, export and call time: the exception type and a message that names
the offending argument or value and says what was expected.

Cases that expose a defect in Scaly are kept and marked ``xfail(strict=True)`` with a
``BUG:`` reason; each asserts the behaviour a fix should produce.
"""

import re

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

from jitutil import run_snippet


# -- helpers -------------------------------------------------------------------

def trace1(body, decl, outputs=None, name="f"):
    """Trace `body` as a one-input function named `name` with input `decl`."""
    def f(x):
        return body(x)
    f.__name__ = name
    return sc.function(decl, outputs=outputs)(f)


def vec(n=3, dtype=None, name="x"):
    return sc.arg(name, n, dtype)


MAT = sc.arg("x", (2, 3))
SCALAR = sc.arg("x", ())


def esc(text):
    return re.escape(text)


def make_scale():
    @sc.function(sc.arg("v", ()), outputs=sc.arg("w"))
    def scale(v):
        return 2.0 * v
    return scale


def make_two():
    @sc.function(sc.arg("a", 3), sc.arg("b", ()), outputs=sc.arg("c"))
    def two(a, b):
        return a * b
    return two


def make_inc():
    @sc.function(sc.arg("n", (), dtype="int64"), outputs=sc.arg("m"))
    def inc(n):
        return n + 1
    return inc


def make_mixed():
    @sc.function(sc.arg("a", (2, 2)), sc.arg("s", ()), sc.arg("n", 3, dtype="int64"),
                 outputs=(sc.arg("y"), sc.arg("m")))
    def mixed(a, s, n):
        return a * s, n * 2
    return mixed


# -- trace time: operators, indexing, structure, math ----------------------------

TRACE_CASES = [
    # shape mismatch between Exprs (and Expr vs array constants)
    pytest.param(vec(), lambda x: x + x[:2], ValueError,
                 esc("+: shapes (3,) and (2,) do not broadcast: axes must be equal or 1"), id="add-shape"),
    pytest.param(vec(), lambda x: x - x[:2], ValueError,
                 esc("-: shapes (3,) and (2,) do not broadcast"), id="sub-shape"),
    pytest.param(MAT, lambda x: x * x.T, ValueError,
                 esc("*: shapes (2, 3) and (3, 2) do not broadcast"), id="mul-shape-2d"),
    pytest.param(vec(), lambda x: np.ones(2) + x, ValueError,
                 esc("+: shapes (2,) and (3,) do not broadcast"), id="ndarray-radd-shape"),
    pytest.param(vec(), lambda x: x - [1.0, 2.0], ValueError,
                 esc("-: shapes (3,) and (2,) do not broadcast"), id="list-sub-shape"),
    pytest.param(vec(), lambda x: x >= x[:2], ValueError,
                 esc("ge: shapes (3,) and (2,) do not broadcast"), id="compare-shape"),
    pytest.param(vec(), lambda x: x ** x[:2], ValueError,
                 esc("pow: shapes (3,) and (2,) do not broadcast"), id="pow-shape"),
    pytest.param(vec(), lambda x: sc.fmax(x, x[:2]), ValueError,
                 esc("fmax: shapes (3,) and (2,) do not broadcast"), id="fmax-shape"),
    # dtype mismatch and constants that cannot be arrays
    pytest.param(vec(), lambda x: x + "a", TypeError,
                 r"cannot use str \(<U1\) as an array constant", id="plus-str"),
    pytest.param(vec(), lambda x: x * None, TypeError,
                 r"cannot use NoneType \(object\) as an array constant", id="times-None"),
    pytest.param(vec(), lambda x: x + 1j, TypeError,
                 r"cannot use complex \(complex128\) as an array constant", id="plus-complex"),
    # index out of range, too many indices, bad index types
    pytest.param(vec(), lambda x: x[3], IndexError,
                 esc("index 3 is out of bounds for axis 0 with size 3 (indexing an Expr of shape (3,))"),
                 id="index-pos"),
    pytest.param(vec(), lambda x: x[-4], IndexError,
                 esc("index -4 is out of bounds for axis 0 with size 3 (indexing an Expr of shape (3,))"),
                 id="index-neg"),
    pytest.param(MAT, lambda x: x[1, 5], IndexError,
                 esc("index 5 is out of bounds for axis 1 with size 3 (indexing an Expr of shape (2, 3))"),
                 id="index-multi-pos"),
    pytest.param(MAT, lambda x: x[-3, 0], IndexError,
                 esc("index -3 is out of bounds for axis 0 with size 2 (indexing an Expr of shape (2, 3))"),
                 id="index-multi-neg-axis0"),
    pytest.param(MAT, lambda x: x[0, -4], IndexError,
                 esc("index -4 is out of bounds for axis 1 with size 3"), id="index-multi-neg-axis1"),
    pytest.param(vec(), lambda x: x[[0, 5]], IndexError,
                 esc("index 5 is out of bounds for axis 0 with size 3"), id="index-fancy"),
    pytest.param(vec(), lambda x: x[np.array([0, 5])], IndexError,
                 esc("index 5 is out of bounds for axis 0 with size 3"), id="index-fancy-array"),
    pytest.param(vec(), lambda x: x[np.array([-4, 0])], IndexError,
                 esc("index -4 is out of bounds for axis 0 with size 3"), id="index-fancy-array-neg"),
    pytest.param(vec(), lambda x: x[0, 0], IndexError,
                 esc("too many indices for an Expr of shape (3,): 2 were given"), id="too-many-1d"),
    pytest.param(MAT, lambda x: x[0, 0, 0], IndexError,
                 esc("too many indices for an Expr of shape (2, 3): 3 were given"),
                 id="too-many-2d"),
    pytest.param(SCALAR, lambda x: x[0], IndexError,
                 esc("too many indices for an Expr of shape (): 1 were given"),
                 id="index-scalar"),
    pytest.param(vec(), lambda x: x[1.0], IndexError,
                 r"only integers, slices .* are valid indices \(indexing an Expr of shape \(3,\)\)",
                 id="index-float"),
    pytest.param(vec(), lambda x: x["a"], IndexError,
                 r"only integers, slices .* are valid indices", id="index-str"),
    pytest.param(vec(), lambda x: x[np.array([True, False])], IndexError,
                 r"boolean index did not match .* dimension is 3 but corresponding boolean "
                 r"dimension is 2", id="index-bool-mask-length"),
    pytest.param(vec(), lambda x: x[::0], ValueError, "slice step cannot be zero", id="slice-step-0"),
    pytest.param(vec(), lambda x: x[x[0]], TypeError,
                 "indexing with an Expr is not supported: indices must be static", id="index-expr"),
    pytest.param(MAT, lambda x: x[0, x[0, 0]], TypeError,
                 "indexing with an Expr is not supported", id="index-tuple-with-expr"),
    # reshape
    pytest.param(vec(), lambda x: x.reshape(2, 2), ValueError,
                 esc("cannot reshape (3,) (3 elements) to (2, 2) (4 elements)"), id="reshape-size"),
    pytest.param(vec(), lambda x: x.reshape(2, -1), ValueError,
                 esc("cannot reshape (3,) to (2, -1)"), id="reshape-minus1-indivisible"),
    pytest.param(vec(), lambda x: x.reshape(0, -1), ValueError,
                 esc("cannot reshape (3,) to (0, -1)"), id="reshape-minus1-zero"),
    pytest.param(vec(), lambda x: x.reshape(-3), ValueError,
                 esc("reshape: dimensions must be >= 0, got (-3,)"), id="reshape-negative"),
    pytest.param(vec(), lambda x: x.reshape(1.5, 2), TypeError,
                 esc("reshape: dimensions must be ints, got 1.5 in (1.5, 2)"), id="reshape-float"),
    # bool arithmetic
    pytest.param(vec(), lambda x: (x > 0) - (x < 0), ValueError,
                 esc("- is not defined on bool arrays"), id="bool-sub"),
    pytest.param(vec(), lambda x: -(x > 0), ValueError,
                 "negation needs a float array, got bool", id="bool-neg"),
    # math functions on int arrays
    pytest.param(vec(dtype="int64"), lambda x: x.sin(), ValueError,
                 "sin needs a float array, got int64; cast it first", id="int-sin"),
    pytest.param(vec(dtype="int32"), lambda x: sc.sqrt(x), ValueError,
                 "sqrt needs a float array, got int32; cast it first", id="int-sqrt"),
    pytest.param(vec(dtype="int32"), lambda x: sc.exp(x), ValueError,
                 "exp needs a float array, got int32", id="int-exp"),
    pytest.param(vec(dtype="int64"), lambda x: sc.log(x), ValueError,
                 "log needs a float array, got int64", id="int-log"),
    pytest.param(vec(dtype="int32"), lambda x: sc.atan2(x, x), ValueError,
                 "atan2 needs float arrays, got int32", id="int-atan2"),
    pytest.param(vec(dtype="int64"), lambda x: sc.fmin(x, x), ValueError,
                 "fmin needs float arrays, got int64", id="int-fmin"),
    pytest.param(vec(dtype="int64"), lambda x: x ** -1, ValueError,
                 "Integers to negative integer powers are not allowed", id="int-pow-negative"),
    # sc.where
    pytest.param(vec(), lambda x: sc.where(x, x, 0.0), ValueError,
                 "where: the condition must be bool, got float64", id="where-float-cond"),
    pytest.param(vec(), lambda x: sc.where(x.astype("int64"), x, 0.0), ValueError,
                 "where: the condition must be bool, got int64", id="where-int-cond"),
    pytest.param(vec(), lambda x: sc.where(x[:2] > 0, x, 0.0), ValueError,
                 esc("where: shapes (2,) and (3,) do not broadcast"), id="where-cond-shape"),
    # sc.stack / sc.concat
    pytest.param(vec(), lambda x: sc.stack([x, x[:2]]), ValueError,
                 esc("stack: element 1 has shape (2,), element 0 has (3,)"), id="stack-shapes"),
    pytest.param(vec(), lambda x: sc.stack([]), ValueError,
                 "stack: needs at least one array", id="stack-empty"),
    pytest.param(vec(), lambda x: sc.stack([x, x], axis=2), ValueError,
                 "stack: axis 2 is out of range for 2 dimensions", id="stack-axis"),
    pytest.param(vec(), lambda x: sc.concat([x[0], x[1]]), ValueError,
                 "concat: scalars have no axis to join; use sc.stack", id="concat-scalars"),
    pytest.param(vec(), lambda x: sc.concat([x, x], axis=1), ValueError,
                 "concat: axis 1 is out of range for 1 dimensions", id="concat-axis-pos"),
    pytest.param(vec(), lambda x: sc.concat([x, x], axis=-2), ValueError,
                 "concat: axis -2 is out of range for 1 dimensions", id="concat-axis-neg"),
    pytest.param(vec(), lambda x: sc.concat([x.reshape(3, 1), x.reshape(1, 3)]), ValueError,
                 esc("concat: shape (1, 3) does not match (3, 1) except along axis 0"),
                 id="concat-shapes"),
    pytest.param(vec(), lambda x: sc.concat([]), ValueError,
                 "concat: needs at least one array", id="concat-empty"),
    # sc.dot / @ / sc.sum
    pytest.param(vec(), lambda x: sc.dot(x, x[:2]), ValueError,
                 esc("dot: shapes (3,) and (2,) differ"), id="dot-shapes"),
    pytest.param(MAT, lambda x: x @ x, ValueError,
                 esc("@: inner dimensions differ: (2, 3) @ (2, 3)"), id="matmul-inner-2d"),
    pytest.param(vec(), lambda x: x @ x[:2], ValueError,
                 esc("@: inner dimensions differ: (3,) @ (2,)"), id="matmul-inner-1d"),
    pytest.param(sc.arg("x", (2, 2)), lambda x: x @ 3.0, ValueError,
                 esc("@: scalar operands are not allowed (shapes (2, 2) and ())"), id="matmul-scalar"),
    pytest.param(vec(), lambda x: sc.sum(x, axis=1), ValueError,
                 esc("sum: axis 1 is out of range for 1 dimensions"), id="sum-axis"),
    pytest.param(MAT, lambda x: sc.sum(x, axis=-3), ValueError,
                 esc("sum: axis -3 is out of range for 2 dimensions"), id="sum-axis-neg"),
    # truth value, len and iteration
    pytest.param(vec(), lambda x: x if x else -x, TypeError,
                 r"an Expr has no truth value while tracing; use sc\.where", id="if-expr"),
    pytest.param(vec(), lambda x: not x, TypeError, "has no truth value", id="not-expr"),
    pytest.param(vec(), lambda x: x and x, TypeError, "has no truth value", id="and-expr"),
    pytest.param(vec(), lambda x: 0 < x[0] < 1, TypeError, "has no truth value", id="chained-compare"),
    pytest.param(vec(), lambda x: x[0] in [1.0], TypeError, "has no truth value", id="in-list"),
    pytest.param(SCALAR, lambda x: len(x), TypeError, r"len\(\) of a scalar Expr", id="len-scalar"),
    pytest.param(SCALAR, lambda x: list(x), TypeError, "iteration over a scalar Expr", id="iter-scalar"),
    # dtypes of casts
    pytest.param(vec(), lambda x: x.astype("float16"), TypeError,
                 "unknown dtype 'float16'; expected one of float64, float32, int32, int64, bool",
                 id="astype-float16"),
    pytest.param(vec(), lambda x: sc.cast(x, "complex64"), TypeError,
                 "unknown dtype 'complex64'; expected one of float64", id="cast-complex"),
]


@pytest.mark.parametrize("decl,body,exc,match", TRACE_CASES)
def test_trace_time_errors(decl, body, exc, match):
    with pytest.raises(exc, match=match):
        trace1(body, decl)


@pytest.mark.parametrize("call,match", [
    pytest.param(lambda: sc.sin(1.0), "sin: expected an Expr, got float", id="sin-float"),
    pytest.param(lambda: sc.sum([1, 2]), "sum: expected an Expr, got list", id="sum-list"),
    pytest.param(lambda: sc.norm2([1.0]), "sumsqr: expected an Expr, got list", id="norm2-list"),
    pytest.param(lambda: sc.pow(2.0, 3.0), "pow: at least one argument must be an Expr", id="pow-numbers"),
    pytest.param(lambda: sc.fmin(2.0, 3.0), "fmin: at least one argument must be an Expr", id="fmin-numbers"),
    pytest.param(lambda: sc.dot([1.0], [2.0]), "dot: at least one argument must be an Expr", id="dot-lists"),
    pytest.param(lambda: sc.where(True, 1.0, 2.0), "where: at least one argument must be an Expr",
                 id="where-numbers"),
])
def test_array_functions_need_an_expr(call, match):
    with pytest.raises(TypeError, match=match):
        call()


# -- trace time: what the traced function returns ------------------------------

@pytest.mark.parametrize("value,kind", [
    pytest.param("abc", "str", id="str"),
    pytest.param(None, "NoneType", id="None"),
    pytest.param({"a": 1.0}, "dict", id="dict"),
    pytest.param(object(), "object", id="object"),
])
def test_non_expr_return(value, kind):
    with pytest.raises(TypeError, match=rf"f\(\) must return Exprs; output 'out' is {kind}$"):
        trace1(lambda x: value, vec())


def test_non_expr_among_several_returns_names_the_output():
    with pytest.raises(TypeError, match="output 'o1' is str"):
        trace1(lambda x: [x, "a"], vec())


@pytest.mark.parametrize("outputs,body,match", [
    pytest.param(sc.arg("y"), lambda x: (x, x),
                 esc("f() returned 2 values but 1 outputs are declared (y)"), id="two-for-one"),
    pytest.param((sc.arg("y"), sc.arg("z")), lambda x: x,
                 esc("f() returned 1 values but 2 outputs are declared (y, z)"), id="one-for-two"),
    pytest.param((sc.arg("y"), sc.arg("z")), lambda x: (x, x, x),
                 esc("f() returned 3 values but 2 outputs are declared (y, z)"), id="three-for-two"),
])
def test_wrong_number_of_outputs(outputs, body, match):
    with pytest.raises(ValueError, match=match):
        trace1(body, vec(), outputs=outputs)


def test_declared_output_shape_differs():
    with pytest.raises(ValueError, match=esc("f(): output 'y' is declared with shape (4,) but the "
                                             "traced value has shape (3,)")):
        trace1(lambda x: x, vec(), outputs=sc.arg("y", 4))


def test_declared_output_scalar_but_vector_traced():
    with pytest.raises(ValueError, match=esc("output 'y' is declared with shape () but the traced "
                                             "value has shape (3,)")):
        trace1(lambda x: x, vec(), outputs=sc.arg("y", ()))


def test_declared_output_dtype_differs():
    with pytest.raises(TypeError, match=esc("f(): output 'y' is declared int64 but the traced value "
                                            "is float64; use .astype('int64')")):
        trace1(lambda x: x, vec(), outputs=sc.arg("y", dtype="int64"))


# -- Exprs of two different traces ---------------------------------------------

@pytest.fixture(scope="module")
def leaked():
    """An Expr kept from a finished trace."""
    kept = []

    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def first(x):
        kept.append(x)
        return x
    return kept[0]


@pytest.mark.parametrize("body,match", [
    pytest.param(lambda x, o: x + o, "this Expr belongs to another traced function", id="add"),
    pytest.param(lambda x, o: o * x, "this Expr belongs to another traced function", id="rmul-order"),
    pytest.param(lambda x, o: sc.stack([x, o]), "these Exprs belong to different traced functions",
                 id="stack"),
    pytest.param(lambda x, o: sc.where(x > 0, o, x), "these Exprs belong to different traced functions",
                 id="where"),
    pytest.param(lambda x, o: x @ o, "these Exprs belong to different traced functions", id="matmul"),
    pytest.param(lambda x, o: make_two()(x, o[0]), "this Expr belongs to another traced function",
                 id="call"),
    pytest.param(lambda x, o: o, esc("f(): output 'out' was traced in another function"), id="return"),
])
def test_exprs_of_another_trace(leaked, body, match):
    with pytest.raises(ValueError, match=match):
        trace1(lambda x: body(x, leaked), vec())


# -- declarations: sc.arg and sc.function -------------------------------------

@pytest.mark.parametrize("name", ["1x", "", "a-b", "a b", "é", "x.y", "x\n", "x\n\n", "\nx"])
def test_invalid_argument_name(name):
    with pytest.raises(ValueError, match=rf"argument name {re.escape(repr(name))} is not a valid "
                                         r"identifier \(letters, digits and _"):
        sc.arg(name, 3)


@pytest.mark.parametrize("name", [3, None, b"x"], ids=["int", "None", "bytes"])
def test_non_str_argument_name_is_a_type_error(name):
    with pytest.raises(TypeError, match=rf"argument name must be a str, got \w+ {re.escape(repr(name))}"):
        sc.arg(name, 3)


@pytest.mark.parametrize("dtype,shown", [
    ("float16", "'float16'"), ("foo", "'foo'"), ("uint8", "'uint8'"), ("i4,i4", "'i4,i4'"),
    (complex, "<class 'complex'>"), (3, "3"),
])
def test_unknown_dtype_in_arg(dtype, shown):
    # NumPy's np.dtype("foo") is a TypeError too.
    with pytest.raises(TypeError, match=esc(f"'x': unknown dtype {shown}; expected one of float64, "
                                            "float32, int32, int64, bool")):
        sc.arg("x", 3, dtype)


@pytest.mark.parametrize("shape,exc,match", [
    pytest.param(-1, ValueError, esc("'x': dimensions must be >= 0, got (-1,)"), id="negative"),
    pytest.param((2, -3), ValueError, esc("'x': dimensions must be >= 0, got (2, -3)"), id="negative-in-tuple"),
    pytest.param(2.5, TypeError, esc("'x': expected an int or a tuple of ints, got 2.5"), id="float"),
    pytest.param((2, 3.0), TypeError, esc("'x': dimensions must be ints, got 3.0 in (2, 3.0)"),
                 id="float-in-tuple"),
    pytest.param("3", TypeError, esc("'x': expected an int or a tuple of ints, got '3'"), id="str"),
    pytest.param(True, TypeError, esc("'x': expected an int or a tuple of ints, got True"), id="bool"),
    pytest.param((True, 2), TypeError, esc("'x': dimensions must be ints, got True in (True, 2)"),
                 id="bool-in-tuple"),
])
def test_bad_shape_in_arg(shape, exc, match):
    with pytest.raises(exc, match=match):
        sc.arg("x", shape)


@pytest.mark.parametrize("shape", [2**63, (2**32, 2**32)], ids=["dim-2**63", "product-2**64"])
def test_shape_too_large(shape):
    with pytest.raises((ValueError, OverflowError), match="'x'"):
        trace1(lambda x: x.reshape((0,)) if x.size == 0 else x, sc.arg("x", shape))


@pytest.mark.parametrize("decls,outputs,pyfunc,match", [
    pytest.param((sc.arg("x", 3), sc.arg("x", 3)), sc.arg("y"), lambda: (lambda x, y: x),
                 "names used twice among inputs and outputs: x", id="two-inputs"),
    pytest.param((sc.arg("x", 3),), sc.arg("x"), lambda: (lambda x: x),
                 "names used twice among inputs and outputs: x", id="input-and-output"),
    pytest.param((sc.arg("x", 3), sc.arg("x")), None, lambda: (lambda x: x),
                 "names used twice among inputs and outputs: x", id="input-and-implicit-output"),
    pytest.param((sc.arg("a", 3), sc.arg("b", 3)), (sc.arg("y"), sc.arg("b")),
                 lambda: (lambda a, b: (a, b)),
                 "names used twice among inputs and outputs: b", id="output-reuses-input"),
    pytest.param((sc.arg("x"),), sc.arg("y"), lambda: (lambda x: x),
                 "sc.function: input 'x' needs a shape", id="input-without-shape"),
    pytest.param((sc.arg("x", ...),), sc.arg("y"), lambda: (lambda x: x),
                 "sc.function: input 'x' needs a shape", id="input-with-ellipsis"),
])
def test_bad_declarations_value_error(decls, outputs, pyfunc, match):
    fn = pyfunc()  # a fresh function whose parameters match the inputs
    with pytest.raises(ValueError, match=match):
        sc.function(*decls, outputs=outputs)(fn)


def _f(x):
    return x


def test_bare_decorator():
    with pytest.raises(TypeError, match=esc("sc.function needs declarations: @sc.function(sc.arg('x', 3), ...)")):
        sc.function(_f)


@pytest.mark.parametrize("decls,outputs,match", [
    pytest.param(("x", 3), None, esc("sc.function: declarations must be sc.arg(...), got 'x'"), id="str-decl"),
    pytest.param((("x", 3),), None, esc("declarations must be sc.arg(...), got ('x', 3)"), id="tuple-decl"),
    pytest.param((sc.arg("x", 3),), "y", esc("sc.function: outputs must be sc.arg(...), got 'y'"),
                 id="str-outputs"),
    pytest.param((sc.arg("x", 3),), [sc.arg("y"), 3], esc("outputs must be sc.arg(...), got 3"),
                 id="int-in-outputs"),
    pytest.param((), None, esc("sc.function: _f() takes 1 parameters but only 0 inputs are declared"),
                 id="no-declarations"),
    pytest.param((sc.arg("x", 3), sc.arg("y", 3)), sc.arg("z"),
                 esc("sc.function: _f() takes 1 parameters but 2 inputs are declared"),
                 id="more-inputs-than-parameters"),
])
def test_bad_declarations_type_error(decls, outputs, match):
    with pytest.raises(TypeError, match=match):
        sc.function(*decls, outputs=outputs)(_f)


@pytest.mark.parametrize("variadic,shown", [
    pytest.param(lambda *xs: xs[0] + xs[1], "*xs", id="args"),
    pytest.param(lambda x, **more: x, "**more", id="kwargs"),
])
def test_variadic_parameters_are_refused(variadic, shown):
    # With *args the declarations bound to no parameter and silently became outputs.
    with pytest.raises(TypeError, match=esc(f"takes {shown}; name each input as a parameter of "
                                            "its own")):
        sc.function(sc.arg("x", 3), sc.arg("y", 3))(variadic)


def test_decorating_a_non_callable():
    with pytest.raises(TypeError, match="sc.function decorates a function, got 42"):
        sc.function(sc.arg("x", 3))(42)


@pytest.mark.parametrize("name", ["<lambda>", "é", "a-b", "f\n"])
def test_function_name_not_an_identifier(name):
    with pytest.raises(ValueError, match=f"function name {re.escape(repr(name))} is not a valid identifier"):
        trace1(lambda x: x, vec(), name=name)


# -- calling a Function inside a trace, and sc.vmap ----------------------------

@pytest.mark.parametrize("body,exc,match", [
    pytest.param(lambda x: make_scale()(x[0], x[1]), TypeError,
                 esc("scale() takes 1 inputs (v), got 2"), id="too-many"),
    pytest.param(lambda x: make_scale()(), TypeError, esc("scale() takes 1 inputs (v), got 0"),
                 id="none"),
    pytest.param(lambda x: make_two()(x), TypeError, esc("two() takes 2 inputs (a, b), got 1"),
                 id="too-few"),
    pytest.param(lambda x: make_scale()(v=x[0]), TypeError, "unexpected keyword argument 'v'",
                 id="keyword"),
    pytest.param(lambda x: make_scale()(x), ValueError,
                 esc("scale(): input 'v' expects shape (), got (3,)"), id="shape"),
    pytest.param(lambda x: make_two()(x, x), ValueError,
                 esc("two(): input 'b' expects shape (), got (3,)"), id="shape-second"),
    pytest.param(lambda x: make_inc()(x[0]), ValueError,
                 esc("inc(): input 'n' expects dtype int64, got float64"), id="dtype"),
])
def test_calling_a_function_while_tracing(body, exc, match):
    with pytest.raises(exc, match=match):
        trace1(body, vec())


@pytest.mark.parametrize("count", [0, -2])
def test_vmap_count_not_positive(count):
    with pytest.raises(ValueError, match=f"vmap: count must be a positive int, got {count}"):
        sc.vmap(make_scale(), count)


@pytest.mark.parametrize("count", [2.0, "3", True], ids=["float", "str", "bool"])
def test_vmap_count_not_an_int_is_a_type_error(count):
    with pytest.raises(TypeError, match=rf"vmap: count must be an int, got \w+ {re.escape(repr(count))}"):
        sc.vmap(make_scale(), count)


@pytest.mark.parametrize("fn,kind", [(lambda v: v, "function"), (np.sin, "ufunc"), ("scale", "str")],
                         ids=["lambda", "ufunc", "str"])
def test_vmap_of_a_non_function(fn, kind):
    with pytest.raises(TypeError, match=f"vmap: expected a scaly Function, got {kind}"):
        sc.vmap(fn, 3)


@pytest.mark.parametrize("body,exc,match", [
    pytest.param(lambda x: sc.vmap(make_scale(), 3)(x[0]), ValueError,
                 esc("scale(): input 'v' expects shape (3,), got ()"), id="no-leading-axis"),
    pytest.param(lambda x: sc.vmap(make_scale(), 2)(x), ValueError,
                 esc("scale(): input 'v' expects shape (2,), got (3,)"), id="leading-axis-length"),
    pytest.param(lambda x: sc.vmap(make_two(), 3)(sc.stack([x, x, x]), x[0]), ValueError,
                 esc("two(): input 'b' expects shape (3,), got ()"), id="second-operand-unmapped"),
    pytest.param(lambda x: sc.vmap(make_scale(), 3)(x.astype("int64")), ValueError,
                 esc("scale(): input 'v' expects dtype float64, got int64"), id="dtype"),
    pytest.param(lambda x: sc.vmap(make_scale(), 3)(x, x), TypeError,
                 esc("vmap(scale) takes 1 inputs, got 2"), id="arity"),
    pytest.param(lambda x: sc.vmap(make_scale(), 3)([1.0, 2.0, 3.0]), TypeError,
                 esc("vmap(scale): at least one argument must be an Expr"), id="no-expr"),
])
def test_vmap_operands(body, exc, match):
    with pytest.raises(exc, match=match):
        trace1(body, vec())


# -- export time: render_c_module ----------------------------------------------

def test_reshape_two_inferred_dimensions():
    with pytest.raises(ValueError, match=r"reshape: at most one dimension may be -1, got \(-1, -1\)"):
        trace1(lambda x: x.reshape(-1, -1), vec(4))


def test_stack_of_mixed_dtypes_names_stack():
    with pytest.raises(ValueError, match="stack: element 1 has dtype int64, element 0 has float64"):
        trace1(lambda x: sc.stack([x, x.astype("int64")]), vec())


@pytest.mark.parametrize("body", [
    lambda x: sc.stack([x, x], axis=0.5),
    lambda x: sc.concat([x, x], axis="0"),
    lambda x: sc.concat([x, x], axis=0.5),
    lambda x: sc.sum(x, axis="a"),
], ids=["stack-0.5", "concat-'0'", "concat-0.5", "sum-'a'"])
def test_non_int_axis(body):
    with pytest.raises(TypeError, match=r"axis .*(int|integer)"):
        trace1(body, vec())


def test_dot_of_3d_arrays_is_refused():
    with pytest.raises(ValueError, match=r"dot: .*sc.matmul"):
        trace1(lambda x: sc.dot(x, x), sc.arg("x", (2, 2, 2)))


def test_lossy_constant_for_int_input_while_tracing():
    @sc.function(sc.arg("n", (), dtype="int64"), sc.arg("k", (), dtype="int64"), outputs=sc.arg("m"))
    def addn(n, k):
        return n + k
    with pytest.raises((TypeError, ValueError), match="'k'"):
        trace1(lambda x: addn(x.astype("int64"), 0.5), SCALAR)


def test_int_true_division(cache):
    try:
        half = trace1(lambda a: a / 2, vec(dtype="int64"))
    except TypeError:
        return  # refusing int / int at trace time would be fine too
    np.testing.assert_allclose(half(np.array([1, 2, 3])), [0.5, 1.0, 1.5])


def test_int_division_by_constant_zero_is_float_division():
    # / is true division, as in Python and NumPy: int64 / 0 is a float64 inf,
    # never an integer division by zero in C.
    f = trace1(lambda a: a / 0, vec(dtype="int64"))
    assert f.outputs[0][2] == "float64"
    assert "/ 0)" not in render_c_module(f).source.replace("/ 0.0", "")


@pytest.mark.parametrize("a,b", [("[1, 2, 3]", "[1, 0, 1]"), ("[-2**63, 1, 1]", "[-1, 1, 1]")],
                         ids=["by-zero", "min-by-minus-one"])
def test_int_division_does_not_crash_the_interpreter(cache, a, b):
    code = f"""
    import numpy as np, scaly as sc
    @sc.function(sc.arg("a", 3, dtype="int64"), sc.arg("b", 3, dtype="int64"), outputs=sc.arg("q"))
    def idiv(a, b):
        return a / b
    try:
        idiv(np.array({a}, dtype=np.int64), np.array({b}, dtype=np.int64))
    except Exception as e:
        print(type(e).__name__, e)
    print("alive")
    """
    proc = run_snippet(code, cache, check=False)
    assert proc.returncode == 0 and "alive" in proc.stdout, (proc.returncode, proc.stderr[-2000:])


def test_port_named_like_a_macro(cache):
    # A port may be named like a C macro: the C code renames it, the call works.
    fn = trace1(lambda x: 2.0 * x, sc.arg("NULL", 3), outputs=sc.arg("y"), name="twice")
    source = render_c_module(fn).source
    assert "* NULL" not in source and "*NULL" not in source
    np.testing.assert_array_equal(fn(np.array([1.0, 2.0, 3.0])), [2.0, 4.0, 6.0])


def test_renamed_keyword_port_collides(cache):
    @sc.function(sc.arg("int", 3), sc.arg("int_", 3), outputs=sc.arg("y"))
    def add(a, b):
        return a * 2.0 + b
    out = add(np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(out, [12.0, 24.0, 36.0])
