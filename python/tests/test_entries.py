"""Several entries in one module: render_c_module([f, g, h], name=...).

Each module is compiled by a real C compiler into a shared library and every
entry is called through the five-argument ABI with ctypes, against NumPy.
"""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]
CTYPES = {"float64": ctypes.c_double, "float32": ctypes.c_float}


@sc.function(sc.arg("x", 3), outputs=sc.arg("e"))
def energy(x):
    return sc.sumsqr(x)


@sc.function(sc.arg("x", 3), outputs=sc.arg("g"))
def gradient(x):
    return 2 * x


@sc.function(sc.arg("x", 100, dtype="float32"), outputs=sc.arg("h"))
def halves(x):
    return (x * 0.5).sin()


@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
def step(z, u):
    return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()


@sc.function(sc.arg("z", 2), sc.arg("us", 4), outputs=sc.arg("zn"))
def roll(z, us):
    for k in range(4):
        z = step(z, us[k])
    return z


def build_library(module, tmp_path, compiler):
    module.write(tmp_path)
    lib = tmp_path / f"lib{module.name}.so"
    subprocess.run([compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    "-o", str(lib), f"{module.name}.c", "-lm"], cwd=tmp_path, check=True)
    return ctypes.CDLL(str(lib))


def call_entry(lib, info, *inputs):
    """Call `info.name` with the ABI; returns the outputs as NumPy arrays."""
    ins = [np.ascontiguousarray(a, dtype=dtype) for a, (_, _, dtype) in zip(inputs, info.inputs)]
    outs = [np.zeros(shape, dtype=dtype) for _, shape, dtype in info.outputs]
    arg = (ctypes.c_void_p * len(ins))(*[a.ctypes.data for a in ins])
    res = (ctypes.c_void_p * len(outs))(*[o.ctypes.data for o in outs])
    work = np.zeros(max(info.workspace_bytes, 8), dtype=np.uint8)
    entry = getattr(lib, info.name)
    entry.restype = ctypes.c_int
    status = entry(arg, res, None, ctypes.c_void_p(work.ctypes.data), 0)
    assert status == 0
    return outs


@pytest.mark.parametrize("compiler", COMPILERS)
def test_three_entries_in_one_module(tmp_path, compiler):
    module = render_c_module([energy, gradient, halves], name="model")
    assert module.name == "model"
    assert [e.name for e in module.entries] == ["energy", "gradient", "halves"]
    assert [e.pointer_type for e in module.entries] == ["double", "double", "float"]
    for entry in ("energy", "gradient", "halves"):
        assert f"#define {entry}_SZ_W " in module.header
        assert f"int {entry}(const" in module.source
    assert module.header.count("#ifndef SCALY_MODEL_H") == 1
    lib = build_library(module, tmp_path, compiler)
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(call_entry(lib, module.entries[0], x)[0], x @ x, rtol=1e-15)
    np.testing.assert_array_equal(call_entry(lib, module.entries[1], x)[0], 2 * x)
    y = np.linspace(-3, 3, 100, dtype=np.float32)
    np.testing.assert_allclose(call_entry(lib, module.entries[2], y)[0],
                               np.sin(y * np.float32(0.5)), rtol=1e-6)


def test_an_entry_may_also_be_a_kept_callee(tmp_path):
    module = render_c_module([roll, step], name="dynamics")
    assert "step_raw(" in module.source and "\nint step(" in module.source
    info = {e.name: e for e in module.entries}
    assert info["step"].workspace_bytes == 0 and info["roll"].workspace_bytes >= 0
    lib = build_library(module, tmp_path, COMPILERS[0])
    z, us = np.array([0.3, -0.2]), np.array([0.1, 0.2, -0.3, 0.4])
    expected = z.copy()
    for u in us:
        expected = np.array([expected[0] + 0.1 * expected[1], expected[1] + 0.1 * np.sin(u)])
    np.testing.assert_allclose(call_entry(lib, info["roll"], z, us)[0], expected, rtol=1e-14)
    np.testing.assert_allclose(call_entry(lib, info["step"], z, us[0])[0],
                               [z[0] + 0.1 * z[1], z[1] + 0.1 * np.sin(us[0])], rtol=1e-15)


def test_entries_are_marked_in_the_ir():
    text = sc.function  # keep flake quiet about unused names in some runners
    del text
    module = render_c_module([energy, gradient])
    # The default module name is the first function's.
    assert module.name == "energy"
    assert "gradient_SZ_W" in module.header


def test_entry_parameters_are_the_headers_declarations():
    """The parameter list the solver wrappers declare an entry with comes from the
    render's function signatures: the header's own declaration, name for name."""
    import re
    from scaly.codegen import _entry_params
    module = render_c_module([energy, halves, sc.jacobian(gradient, "x")], name="model")
    for e in module.entries:
        declared = re.search(r"\bint\s+" + e.name + r"\s*\(([^)]*)\)\s*;", module.header)
        params = ", ".join(f"{t} {n}" for t, n in _entry_params(module, e.name))
        assert params == declared.group(1)
    entry = next(f for f in module.functions if f["name"] == "energy")
    assert entry["param_names"] == ["arg", "res", "iw", "w", "mem"]
    with pytest.raises(ValueError, match="defines no entry missing"):
        _entry_params(module, "missing")


def test_single_function_still_gives_one_entry():
    module = render_c_module(energy)
    assert module.name == "energy" and len(module.entries) == 1
    assert module.entries[0].inputs == (("x", (3,), "float64"),)


@pytest.mark.parametrize("functions,kwargs,exc,match", [
    ([], {}, ValueError, "empty"),
    ([energy, energy], {}, ValueError, "two functions to export are named 'energy'"),
    ([energy, 3], {}, TypeError, "expected a scaly Function or a list of them, got int"),
    ([energy], {"name": "my-module"}, ValueError, "must be a C identifier"),
    ([energy], {"name": 7}, ValueError, "must be a C identifier"),
])
def test_bad_entry_lists(functions, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        render_c_module(functions, **kwargs)


def test_entries_lowered_in_parallel_give_the_sequential_c():
    """Several entries lower each in a module of its own (in parallel); a recording lowers
    them together, one pass after another. Where no shared function lowers differently per
    entry, both give the same C, byte for byte."""
    functions = [energy, gradient, halves, roll, step]
    parallel = render_c_module(functions, name="model")
    together = render_c_module(functions, name="model", record_stages=True)
    assert parallel.source == together.source
    assert parallel.header == together.header
    # Functions print apart, in parallel: their statements' lines are moved to the module's.
    assert parallel.line_origins and parallel.line_origins == together.line_origins
    commented = render_c_module(functions, name="model", line_comments=True).source
    assert commented == render_c_module(functions, name="model", line_comments=True,
                                        record_stages=True).source
    assert [e.workspace_bytes for e in parallel.entries] == \
        [e.workspace_bytes for e in together.entries]


KEPT_N = 50


@sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("sn", 2), sc.arg("y", ())))
def kept_step(s, u):
    sn = sc.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * u.sin()])
    return sn.block(), (s[0] * s[1]).cos().block()


@sc.function(sc.arg("s0", 2), sc.arg("us", KEPT_N), outputs=sc.arg("out", 2))
def kept_final(s0, us):
    return sc.scan(kept_step, KEPT_N)(s0, us)[0]


@sc.function(sc.arg("s0", 2), sc.arg("us", KEPT_N), outputs=(sc.arg("out", 2), sc.arg("ys", KEPT_N)))
def kept_both(s0, us):
    return sc.scan(kept_step, KEPT_N)(s0, us)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_a_callee_lowered_differently_per_entry_is_kept_in_both_forms(tmp_path, compiler):
    """kept_final discards the step's second output, so its pipeline drops it from the kept
    procedure; kept_both needs it. Merged, the module keeps both procedures under two names,
    and each entry calls its own (checked against NumPy)."""
    module = render_c_module([kept_final, kept_both], name="kept")
    assert [f["name"] for f in module.functions] == \
        ["kept_step_raw", "kept_final", "kept_step_raw_1", "kept_both"]
    assert module.source.count("cos(") == 1  # only kept_both's step computes y
    lib = build_library(module, tmp_path, compiler)
    info = {e.name: e for e in module.entries}
    rng = np.random.default_rng(5)
    s0, us = rng.standard_normal(2), rng.standard_normal(KEPT_N)
    s, ys = s0.copy(), []
    for u in us:
        ys.append(np.cos(s[0] * s[1]))
        s = np.array([s[0] + 0.1 * s[1], s[1] + 0.1 * np.sin(u)])
    np.testing.assert_allclose(call_entry(lib, info["kept_final"], s0, us)[0], s, rtol=1e-13)
    out, got_ys = call_entry(lib, info["kept_both"], s0, us)
    np.testing.assert_allclose(out, s, rtol=1e-13)
    np.testing.assert_allclose(got_ys, ys, rtol=1e-13)


QP_P = np.array([[4.0, 1.0], [1.0, 2.0]])
QP_A = np.array([[1.0, 1.0]])


@sc.function(sc.arg("c", 2), sc.arg("u", ()), outputs=sc.arg("x"))
def allocate(c, u):
    return sc.qp(QP_P, c, A=QP_A, b=sc.stack([u]), x_l=np.zeros(2), x_u=np.ones(2))[0]


@sc.function(sc.arg("c", 2), sc.arg("u", ()), outputs=sc.arg("x"))
def allocate_twice(c, u):
    return 2 * sc.qp(2 * QP_P, c, A=QP_A, b=sc.stack([u]), x_l=np.zeros(2), x_u=np.ones(2))[0]


def test_entries_reaching_a_solver_lower_together():
    """A solve's wrapper is numbered over the whole module (<module>_qp0, ...): entries that
    reach a solver lower together, and both call the one wrapper their QPs share."""
    module = render_c_module([allocate, allocate_twice], name="alloc")
    assert module.solvers == ("alloc_qp0",)
    assert module.source.count("alloc_qp0(w,") == 2
    assert module.source == render_c_module([allocate, allocate_twice], name="alloc",
                                            record_stages=True).source


@sc.function(sc.arg("s0", 2), sc.arg("us", KEPT_N), sc.arg("k", (), dtype="int32"),
             outputs=sc.arg("out", 2))
def kept_final_int(s0, us, k):
    return sc.scan(kept_step, KEPT_N)(s0, us)[0] * k


def test_entries_of_different_workspace_types_share_a_callee_only_in_parallel(tmp_path):
    """A kept procedure takes its caller's workspace pointer, so entries whose workspaces have
    different element types (double; void with an int32 input) cannot share one. Lowered each in
    its own module, each gets its own copy and the module builds; lowered together (a
    recording), the module is refused, as before, with the reason."""
    module = render_c_module([kept_final, kept_final_int], name="mixed")
    names = [f["name"] for f in module.functions]
    assert names.count("kept_step_raw") == 1 and "kept_step_raw_1" in names
    lib = build_library(module, tmp_path, COMPILERS[0])
    info = {e.name: e for e in module.entries}
    rng = np.random.default_rng(7)
    s0, us = rng.standard_normal(2), rng.standard_normal(KEPT_N)
    s = s0.copy()
    for u in us:
        s = np.array([s[0] + 0.1 * s[1], s[1] + 0.1 * np.sin(u)])
    np.testing.assert_allclose(call_entry(lib, info["kept_final"], s0, us)[0], s, rtol=1e-13)
    got = call_entry(lib, info["kept_final_int"], s0, us, np.int32(3))[0]
    np.testing.assert_allclose(got, 3 * s, rtol=1e-13)
    with pytest.raises(RuntimeError, match="different element types; export them from separate"):
        render_c_module([kept_final, kept_final_int], name="mixed", record_stages=True)


LANES_N = 64


@sc.function(sc.arg("x", LANES_N), outputs=sc.arg("y", LANES_N))
def lanes_sin_exp(x):
    return sc.sin(x) + sc.exp(0.5 * x)


@sc.function(sc.arg("x", LANES_N), outputs=sc.arg("y", LANES_N))
def lanes_exp_where(x):
    return sc.where(x > 0, sc.exp(-x), sc.cos(x) * 2.0)


def _lane_helpers(source):
    """The lane helper macros a module defines, in its order."""
    import re
    return re.findall(r"^#define (scaly_\w+_[fm]\d+x\w+)\(", source, re.M)


@pytest.mark.parametrize("lanes, vector_libm, cpu", [(4, "none", "generic"),
                                                     ("auto", "glibc", "generic")])
def test_entries_with_lane_helpers_define_them_in_entry_order(lanes, vector_libm, cpu):
    """Entries translate to C each on its own (in parallel), and their lane helpers (vector
    math, splats, selects) are merged in entry order: the module defines the first entry's
    helpers in its own order, then the second's new ones in theirs, as translated one after
    another; a recording, which lowers the entries together, gives the same C."""
    functions = [lanes_exp_where, lanes_sin_exp]
    options = dict(lanes=lanes, vector_libm=vector_libm, cpu=cpu)
    parallel = render_c_module(functions, name="lanes", **options).source
    expected = []
    for f in functions:
        expected += [h for h in _lane_helpers(render_c_module(f, **options).source)
                     if h not in expected]
    assert len(expected) >= 4 and _lane_helpers(parallel) == expected
    assert parallel == render_c_module(functions, name="lanes", record_stages=True,
                                       **options).source
