"""The smaller public pieces of the authoring and runtime API."""

import numpy as np
import pytest

import scaly as sc
from scaly.runtime import call_numeric, compile_function, recompile_function


def test_expr_properties_and_iteration():
    seen = {}

    @sc.function(sc.arg("m", (2, 3), dtype="float32"), outputs=sc.arg("r"))
    def props(m):
        seen.update(shape=m.shape, dtype=m.dtype, ndim=m.ndim, size=m.size, length=len(m),
                    rows=[r.shape for r in m], text=repr(m))
        return m.ravel()

    assert seen == {"shape": (2, 3), "dtype": "float32", "ndim": 2, "size": 6, "length": 2,
                    "rows": [(3,), (3,)], "text": "Expr(shape=(2, 3), dtype=float32)"}
    assert props.outputs == [("r", (6,), "float32")]


def test_function_metadata_and_mlir():
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()

    assert euler.name == "euler" and euler.blocked
    assert euler.inputs == [("z", (2,), "float64"), ("u", (), "float64")]
    text = euler.mlir()
    assert "expr.func @euler" in text and "block" in text and "expr.math sin" in text.replace("  ", " ")
    assert "scaly.Function euler" in repr(euler)


def test_arg_and_dtypes():
    a = sc.Arg("x", 3, "float32")
    assert (a.name, a.shape, a.dtype) == ("x", (3,), "float32")
    assert sc.L("y", (2, 2)).shape == (2, 2) and sc.arg("s", ()).shape == ()
    assert sc.arg("o").shape is None and sc.arg("o", ...).shape is None
    assert sc.arg("i", 2, dtype=np.int32).dtype == "int32"
    assert set(sc.DTYPES) == {"float64", "float32", "int32", "int64", "bool"}


def test_matmul_function_and_operator_agree():
    @sc.function(sc.arg("a", (2, 3)), sc.arg("b", (3, 2)), outputs=(sc.arg("p"), sc.arg("q")))
    def products(a, b):
        return sc.matmul(a, b), a @ b

    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2) - 2
    p, q = products(a, b)
    np.testing.assert_array_equal(p, a @ b)
    np.testing.assert_array_equal(q, a @ b)


def test_runtime_entry_points(cache):
    @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
    def twice_it(x):
        return x * 2.0

    kernel = compile_function(twice_it)
    assert twice_it._kernel is kernel
    np.testing.assert_array_equal(call_numeric(twice_it, (np.array([1.0, 2.0]),)), [2.0, 4.0])
    recompile_function(twice_it)
    assert twice_it._kernel is None
    np.testing.assert_array_equal(kernel(np.array([3.0, 4.0])), [6.0, 8.0])  # old handle lives


def test_cast_function():
    @sc.function(sc.arg("x", 3), outputs=sc.arg("n"))
    def to_int(x):
        return sc.cast(x, "int32")

    assert to_int.outputs == [("n", (3,), "int32")]
    with pytest.raises(TypeError, match="cast: expected an Expr"):
        sc.cast(1.0, "int32")


def test_many_ports(cache):
    decls = [sc.arg(f"x{i}", ()) for i in range(70)]
    namespace = {"sc": sc}
    params = ", ".join(d.name for d in decls)
    exec(f"def many({params}):\n    return sc.stack([{params}]) * 2.0\n", namespace)
    many = sc.function(*decls, outputs=sc.arg("y"))(namespace["many"])
    np.testing.assert_array_equal(many(*[float(i) for i in range(70)]), 2.0 * np.arange(70))


def test_vmap_over_empty_slices(cache, workdir):
    @sc.function(sc.arg("e", 0), sc.arg("s", ()), outputs=(sc.arg("e2"), sc.arg("s2")))
    def step(e, s):
        return e * 2.0, s + 1.0

    @sc.function(sc.arg("es", (3, 0)), sc.arg("ss", 3), outputs=(sc.arg("a"), sc.arg("b")))
    def mapped(es, ss):
        return sc.vmap(step, 3)(es, ss)

    from scaly.codegen import render_c_module
    src = render_c_module(mapped).source
    assert "arg[0] +" not in src  # no arithmetic on a pointer that may be NULL
    import cdriver
    a, b = cdriver.build(mapped, workdir, sanitize=True).run(np.zeros((3, 0)), np.arange(3.0))
    assert a.shape == (3, 0)
    np.testing.assert_array_equal(b, np.arange(3.0) + 1.0)
