"""Workspace spills, alignment and the status codes around w (seed 000, "The pointer ABI"
and "Alignment")."""

import re
import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver

RNG = np.random.default_rng(11)


def spilling_model(dtype="float64"):
    """inner spills nothing; middle spills its operand and inner's result;
    outer spills its own operand and middle's result."""

    @sc.function(sc.arg("v", 5, dtype=dtype), outputs=sc.arg("r"))
    def inner(v):
        return (v.sin() * 2.0).block()

    @sc.function(sc.arg("u", 5, dtype=dtype), outputs=sc.arg("s"))
    def middle(u):
        return (inner(u * 3.0) + 1.0).block()

    @sc.function(sc.arg("x", 5, dtype=dtype), outputs=sc.arg("y"))
    def outer(x):
        return middle(x + 0.5) * 2.0

    def reference(x):
        return ((np.sin((x + 0.5) * 3.0) * 2.0) + 1.0) * 2.0

    return outer, reference


def size_macro(header, name, macro):
    return int(re.search(rf"#define {name}_{macro} (\d+)", header).group(1))


def test_spilled_temporaries_and_callee_windows():
    outer, _ = spilling_model()
    module = render_c_module(outer)
    src, header = module.source, module.header
    # Two windows of 5 doubles each in outer and in middle: 40 bytes rounded to
    # 64, so each procedure owns 128 bytes; middle's callee window starts past
    # outer's own 128 bytes. SZ_W counts doubles: (128 + 128) / 8.
    assert size_macro(header, "outer", "SZ_W") == 32
    assert "if (!w) return SCALY_ERR_NULL_WORK;" in src
    body = src[src.index("int outer("):]
    assert re.search(r"middle_raw\([^;]*, w \+ 16\);", body), body
    middle = src[src.index("static inline void middle_raw("):src.index("int outer(")]
    assert re.search(r"inner_raw\([^;]*, NULL\);", middle), middle   # inner spills nothing
    assert "w + 8" in middle  # middle's second window: 64 bytes = 8 doubles past its first
    inner = src[src.index("static inline void inner_raw("):src.index("static inline void middle_raw(")]
    assert "(void)w;" in inner


@pytest.mark.parametrize("dtype,wtype,unit", [("float64", "double", 8), ("float32", "float", 4)])
def test_workspace_windows_at_64_byte_multiples(dtype, wtype, unit):
    outer, _ = spilling_model(dtype)
    module = render_c_module(outer)
    assert f"int outer(const {wtype}** arg, {wtype}** res, int* iw, {wtype}* w, int mem)" in module.source
    offsets = [int(k) for k in re.findall(r"\bw \+ (\d+)\b", module.source)]
    assert offsets and all(k * unit % 64 == 0 for k in offsets)
    assert size_macro(module.header, "outer", "SZ_W") * unit == 256


def test_void_workspace_for_mixed_dtypes(workdir):
    @sc.function(sc.arg("v", 3), outputs=sc.arg("r"))
    def scale(v):
        return (v * 2.0).block()

    @sc.function(sc.arg("x", 3), sc.arg("k", (), dtype="int32"), outputs=sc.arg("y"))
    def mixed_spill(x, k):
        return scale(x * k.astype("float64"))

    module = render_c_module(mixed_spill)
    assert "int mixed_spill(const void** arg, void** res, int* iw, void* w, int mem)" in module.source
    assert "static inline void scale_raw(const double* v, double* r, void* w)" in module.source
    assert size_macro(module.header, "mixed_spill", "SZ_W") == 64  # bytes for void*
    x = RNG.normal(size=3)
    (y,) = cdriver.build(mixed_spill, workdir).run(x, np.int32(3))
    np.testing.assert_allclose(y, x * 3 * 2, rtol=1e-15)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_spilling_model_matches_numpy_misaligned_and_sanitized(workdir, dtype, compiler):
    outer, reference = spilling_model(dtype)
    npdt = np.float64 if dtype == "float64" else np.float32
    x = RNG.normal(size=5).astype(npdt)
    built = cdriver.build(outer, workdir, compiler=compiler, misalign=True, sanitize=True,
                          flags=["-fsanitize=alignment"])
    (y,) = built.run(x)
    tol = dict(rtol=1e-14) if dtype == "float64" else dict(rtol=3e-6, atol=3e-6)
    np.testing.assert_allclose(y, reference(x.astype(np.float64)), **tol)


def test_null_workspace_is_refused_when_needed(workdir):
    outer, _ = spilling_model()
    built = cdriver.build(outer, workdir, null_workspace=True)
    built.run(np.zeros(5), expect_status=2)


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_vector_stores_do_not_assume_16_byte_alignment(workdir, compiler):
    @sc.function(sc.arg("a", 8), sc.arg("b", 8), outputs=(sc.arg("s"), sc.arg("p")))
    def wide(a, b):
        return a + b, a * b.cos()

    src = render_c_module(wide).source
    assert "*(double8*)" in src and "aligned(8), may_alias" in src
    a, b = RNG.normal(size=8), RNG.normal(size=8)
    built = cdriver.build(wide, workdir, compiler=compiler, misalign=True, sanitize=True,
                          flags=["-march=native", "-fsanitize=alignment"])
    s, p = built.run(a, b)
    np.testing.assert_allclose(s, a + b, rtol=1e-15)
    np.testing.assert_allclose(p, a * np.cos(b), rtol=1e-15)


def test_ports_without_values_may_be_null(workdir):
    @sc.function(sc.arg("x", 3), sc.arg("nothing", 0), outputs=(sc.arg("y"), sc.arg("empty")))
    def sparse_ports(x, nothing):
        return x * 2.0, nothing * 2.0

    module = render_c_module(sparse_ports)
    assert "arg[1]" not in module.source and "res[1]" not in module.source
    module.write(workdir)
    drv = f"""
#include <stddef.h>
#include "sparse_ports.h"
int main(void) {{
  double x[3] = {{1, 2, 3}}, y[3];
  const double* arg[2] = {{x, NULL}};
  double* res[2] = {{y, NULL}};
  int status = sparse_ports(arg, res, NULL, NULL, 0);
  return status != 0 || y[2] != 6.0;
}}
"""
    with open(f"{workdir}/drv.c", "w") as f:
        f.write(drv)
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", f"{workdir}/drv",
                    f"{workdir}/drv.c", f"{workdir}/sparse_ports.c", "-lm"], check=True)
    assert subprocess.run([f"{workdir}/drv"]).returncode == 0


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_mixed_dtypes_with_an_empty_port_compile_warning_free(workdir, compiler):
    @sc.function(sc.arg("x", 3), sc.arg("k", (), dtype="int32"), sc.arg("nothing", 0),
                 outputs=(sc.arg("y"), sc.arg("empty")))
    def mixed_empty(x, k, nothing):
        return x * k.astype("float64"), nothing * 2.0

    src = render_c_module(mixed_empty).source
    body = src[src.index("int mixed_empty("):]
    # No variable for a port without values (it would be unused).
    assert not re.search(r"\b(nothing|empty)\b", body.split("\n", 1)[1])
    x = RNG.normal(size=3)
    y, empty = cdriver.build(mixed_empty, workdir, compiler=compiler).run(x, np.int32(4),
                                                                          np.zeros(0))
    np.testing.assert_allclose(y, 4 * x, rtol=1e-15)
    assert empty.shape == (0,)
