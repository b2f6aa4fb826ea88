"""Floating-point contraction is an explicit recipe choice (issue 13, finding 7): by default
`a*b + c` rounds the product, in the JIT and in the exported module built with the recipe's
command, so both match NumPy bit for bit; fp_contract="fast" / SCALY_FP_CONTRACT=fast fuses."""

import re
from fractions import Fraction

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module
from scaly.runtime import CompileError, cache_root

import cdriver

N = 1000


def has_fma():
    try:
        with open("/proc/cpuinfo") as f:
            return " fma " in f.read().replace("\n", " ")
    except OSError:
        return False


def make_fma():
    @sc.function(sc.arg("a", N), sc.arg("b", N), sc.arg("c", N), outputs=sc.arg("y"))
    def muladd(a, b, c):
        return a * b + c
    return muladd


def inputs():
    rng = np.random.default_rng(13)
    return rng.normal(size=N), rng.normal(size=N), rng.normal(size=N)


def fused(a, b, c):
    """a*b + c rounded once (an exact fma), from exact rational arithmetic."""
    return np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)])


def test_jit_matches_numpy_bit_for_bit(cache):
    a, b, c = inputs()
    y = make_fma()(a, b, c)
    np.testing.assert_array_equal(y, a * b + c)
    assert (y.view(np.int64) == (a * b + c).view(np.int64)).all()
    if has_fma():   # the case is one that fusing would change
        assert np.count_nonzero(fused(a, b, c) != a * b + c) > 100


@pytest.mark.skipif(not has_fma(), reason="the CPU has no FMA instruction")
def test_jit_fuses_when_asked(cache, monkeypatch):
    a, b, c = inputs()
    monkeypatch.setenv("SCALY_FP_CONTRACT", "fast")
    np.testing.assert_array_equal(make_fma()(a, b, c), fused(a, b, c))


def test_contraction_is_part_of_the_cache_key(cache, monkeypatch):
    make_fma().compile()
    monkeypatch.setenv("SCALY_FP_CONTRACT", "fast")
    make_fma().compile()
    monkeypatch.setenv("SCALY_FP_CONTRACT", "off")
    make_fma().compile()   # found again: the same key as the first
    sources = sorted(p.read_text() for p in cache_root().glob("*/muladd.c"))
    assert len(sources) == 2
    assert [re.findall(r"-ffp-contract=\w+", s)[0] for s in sources] == \
        ["-ffp-contract=fast", "-ffp-contract=off"]


def test_bad_setting_is_refused(cache, monkeypatch):
    monkeypatch.setenv("SCALY_FP_CONTRACT", "on")
    with pytest.raises(CompileError, match=re.escape("SCALY_FP_CONTRACT='on' is not one of 'off', 'fast'")):
        make_fma().compile()


def recipe_flags(module, compiler):
    """The flags of the recipe's command for `compiler` (gcc or clang), without -c <file>."""
    tool = "gcc" if compiler == "gcc" else "clang"
    (line,) = [l for l in module.recipe.splitlines() if l.startswith(f" * {tool} ")]
    words = line.split()[2:]
    assert words[-2:] == ["-c", f"{module.name}.c"]
    return words[:-2]


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
@pytest.mark.parametrize("cpu", ["native", "x86-64-v3", "generic"])
def test_exported_module_built_with_the_recipe_matches_numpy(workdir, compiler, cpu):
    if cpu == "x86-64-v3" and not has_fma():
        pytest.skip("the CPU cannot run x86-64-v3 code")
    fn = make_fma()
    flags = recipe_flags(render_c_module(fn, cpu=cpu), compiler)
    assert ("-ffp-contract=off" in flags) == (cpu != "generic")
    a, b, c = inputs()
    (y,) = cdriver.build(fn, workdir, compiler=compiler, flags=flags, cpu=cpu).run(a, b, c)
    np.testing.assert_array_equal(y, a * b + c)


@pytest.mark.skipif(not has_fma(), reason="the CPU has no FMA instruction")
@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_exported_module_fuses_with_fast(workdir, compiler):
    fn = make_fma()
    module = render_c_module(fn, cpu="native", fp_contract="fast")
    flags = recipe_flags(module, compiler)
    assert "-ffp-contract=fast" in flags
    a, b, c = inputs()
    (y,) = cdriver.build(fn, workdir, compiler=compiler, flags=flags, cpu="native",
                         fp_contract="fast").run(a, b, c)
    np.testing.assert_array_equal(y, fused(a, b, c))


@pytest.mark.parametrize("value", ["on", "OFF", None, True])
def test_render_refuses_other_values(value):
    with pytest.raises(ValueError, match=re.escape(
            f"render_c_module: fp_contract={value!r} is not one of 'off', 'fast'")):
        render_c_module(make_fma(), fp_contract=value)


def test_generic_recipe_is_unchanged():
    """generic and x86-64-v2 have no FMA: their commands carry no contraction flag."""
    for cpu in ("generic", "x86-64-v2"):
        recipe = render_c_module(make_fma(), cpu=cpu).recipe
        assert "-ffp-contract" not in recipe
