"""Vector lanes, glibc vector math, reciprocal and the C99 dialect (docs/recipe.md).

Five models (an exact elementwise chain, a libm-heavy map, the seed's rollout map with
interleaved outputs, a float32 model and a scan whose step works on 100-element arrays) are
exported as one module per build recipe, compiled with gcc and clang-19 by the recipe's own
commands (plus -Wall -Wextra -Werror), linked with its link flags and run from a C driver on
misaligned buffers. A widened module must give the bits of the lanes=1 module built by the
same compiler where the arithmetic is exact or libm is scalar, and stay within 4 ulp of it
where glibc's libmvec computes the math; every build is also checked against NumPy.
"""

from __future__ import annotations

import concurrent.futures
import functools
import os
import re
import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module
from scaly.runtime import CompileError, jit

import cdriver
from jitutil import key_dirs

COMPILERS = cdriver.COMPILERS
WARNINGS = cdriver.WARNINGS
C_TYPES = cdriver.C_TYPES
NP_TYPES = cdriver.NP_TYPES

N_CHAIN, N_MATH, N_STAGES, N_F32, N_STATE, N_STEPS = 1000, 1003, 1000, 1000, 100, 50

# (lanes, cpu, vector_libm): every lane width with and without libmvec, every CPU baseline.
CONFIGS = [
    (1, "generic", "none"),
    (2, "generic", "none"),
    (2, "x86-64-v2", "glibc"),
    (4, "x86-64-v2", "none"),
    (4, "x86-64-v3", "glibc"),
    (8, "x86-64-v3", "none"),
    (8, "x86-64-v4", "glibc"),
    ("auto", "generic", "none"),
    ("auto", "native", "glibc"),
]
REFERENCE = (1, "generic", "none")


def config_id(config):
    lanes, cpu, libm = config
    return f"lanes{lanes}-{cpu}-{libm}"


# -- the CPU ------------------------------------------------------------------

def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


NEEDS = {"generic": set(), "native": set(), "x86-64-v2": {"sse4_2", "popcnt", "ssse3"},
         "x86-64-v3": {"avx2", "fma", "bmi2", "movbe"},
         "x86-64-v4": {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}}


def skip_unless_runs(cpu):
    missing = NEEDS[cpu] | (NEEDS["x86-64-v3"] if cpu == "x86-64-v4" else set())
    missing -= cpu_flags()
    if missing:
        pytest.skip(f"this CPU cannot run {cpu} code (lacks {', '.join(sorted(missing))})")


# -- models -------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def models():
    """The five models, exported together: [chain, mathmap, rollout, single, sim]."""

    @sc.function(sc.arg("x", N_CHAIN), sc.arg("y", N_CHAIN), outputs=(sc.arg("r"), sc.arg("d")))
    def chain(x, y):
        return -(x + y) * x / (y * y + 0.5) + (x * x + 1.0).sqrt() * y - x, (x * y).sum()

    @sc.function(sc.arg("x", N_MATH),
                 outputs=(sc.arg("s"), sc.arg("c"), sc.arg("e"), sc.arg("t"), sc.arg("l"),
                          sc.arg("p"), sc.arg("a"), sc.arg("mix")))
    def mathmap(x):
        q = x * x + 1.0
        return ((2 * x).sin(), x.cos(), x.exp(), x.tanh(), q.log(), sc.pow(q, x),
                sc.atan2(x, x + 4.0), (2 * x).sin() + x.cos() * x.exp())

    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * sc.sin(u)])

    @sc.function(sc.arg("zs", 2 * N_STAGES), sc.arg("us", N_STAGES), outputs=sc.arg("zn"))
    def rollout(zs, us):
        return sc.vmap(euler, N_STAGES)(zs.reshape((N_STAGES, 2)), us).vec()

    @sc.function(sc.arg("x", N_F32, dtype="float32"), outputs=(sc.arg("r"), sc.arg("s")))
    def single(x):
        return (x * 1.5 + 2.0) / (x * x + 1.0) - (x * x + 0.25).sqrt(), x.sin()

    @sc.function(sc.arg("s", N_STATE), sc.arg("u", ()), outputs=(sc.arg("snext"), sc.arg("c")))
    def step(s, u):
        snext = s + 0.01 * (s.sin() * u - 0.5 * s)
        return snext, (snext * snext).sum()

    @sc.function(sc.arg("s0", N_STATE), sc.arg("us", N_STEPS), outputs=(sc.arg("sN"), sc.arg("cs")))
    def sim(s0, us):
        return sc.scan(step, N_STEPS)(s0, us)

    return [chain, mathmap, rollout, single, sim]


@functools.lru_cache(maxsize=None)
def model_inputs():
    r = np.random.default_rng(2024)
    return {
        "chain": [r.normal(size=N_CHAIN), r.normal(size=N_CHAIN)],
        "mathmap": [r.uniform(-3, 3, N_MATH)],
        "rollout": [r.normal(size=2 * N_STAGES), r.uniform(-4, 4, N_STAGES)],
        "single": [r.uniform(-3, 3, N_F32).astype(np.float32)],
        "sim": [r.uniform(-2, 2, N_STATE), r.normal(size=N_STEPS)],
    }


def numpy_models():
    """The models in NumPy, on the inputs of model_inputs()."""
    ins = model_inputs()
    x, y = ins["chain"]
    chain = [-(x + y) * x / (y * y + 0.5) + np.sqrt(x * x + 1.0) * y - x, np.sum(x * y)]
    (x,) = ins["mathmap"]
    q = x * x + 1.0
    mathmap = [np.sin(2 * x), np.cos(x), np.exp(x), np.tanh(x), np.log(q), np.power(q, x),
               np.arctan2(x, x + 4.0), np.sin(2 * x) + np.cos(x) * np.exp(x)]
    zs, us = ins["rollout"]
    z = zs.reshape(-1, 2)
    rollout = [np.stack([z[:, 0] + 0.1 * z[:, 1], z[:, 1] + 0.1 * np.sin(us)], axis=1).ravel()]
    (x,) = ins["single"]
    single = [(x * np.float32(1.5) + np.float32(2.0)) / (x * x + np.float32(1.0))
              - np.sqrt(x * x + np.float32(0.25)), np.sin(x)]
    s, us = ins["sim"]
    cs = []
    for u in us:
        s = s + 0.01 * (np.sin(s) * u - 0.5 * s)
        cs.append(np.sum(s * s))
    sim = [s, np.array(cs)]
    return {"chain": chain, "mathmap": mathmap, "rollout": rollout, "single": single, "sim": sim}


# -- comparisons ----------------------------------------------------------------

def ulp_distance(a, b):
    """Per element, how many representable numbers lie between a and b (0 when the bits
    agree up to the sign of zero), from the ordered integer views of the floats."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    it = {np.dtype(np.float64): np.int64, np.dtype(np.float32): np.int32}[a.dtype]
    low = np.iinfo(it).min

    def ordered(v):
        i = np.ascontiguousarray(v).view(it).astype(np.int64)
        return np.where(i < 0, np.int64(low) - i, i)

    return np.abs(ordered(a).astype(object) - ordered(b).astype(object)).astype(float)


def assert_within_ulps(got, ref, ulps, what):
    assert not np.isnan(ref).any() and not np.isnan(got).any(), f"{what}: NaN"
    d = ulp_distance(got, ref)
    assert d.max() <= ulps, f"{what}: {d.max():.0f} ulp at index {int(d.argmax())}"


def assert_same_bits(got, ref, what):
    it = np.int64 if got.dtype == np.float64 else np.int32
    assert got.dtype == ref.dtype and got.shape == ref.shape, what
    diff = np.flatnonzero(np.ravel(got).view(it) != np.ravel(ref).view(it))
    assert diff.size == 0, (f"{what}: {diff.size} elements differ, first at {diff[0]}: "
                            f"{np.ravel(got)[diff[0]]!r} != {np.ravel(ref)[diff[0]]!r}")


# -- building with the recipe -------------------------------------------------------

def recipe_commands(module):
    """({"gcc": flags, "clang": flags}, link flags), as the recipe writes them."""
    commands, link = {}, None
    for line in module.recipe.splitlines():
        words = line.split()
        if words[:1] == ["*"] and words[1:2] in (["gcc"], ["clang"]):
            assert words[-2:] == ["-c", f"{module.name}.c"], line
            commands[words[1]] = words[2:-2]
        elif line.startswith(" * Link with: "):
            link = line[len(" * Link with: "):].split()
    assert set(commands) == {"gcc", "clang"} and link, module.recipe
    return commands, link


def recipe_flags(module, compiler):
    return recipe_commands(module)[0]["gcc" if compiler == "gcc" else "clang"]


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def driver_source(module):
    """A driver calling every entry of `module` in order: inputs from argv[1], outputs to
    argv[2], every buffer 8 bytes past malloc's 16-byte alignment."""
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
             "#include <stdint.h>", f'#include "{module.name}.h"', "",
             "static void* buffer(size_t bytes) {",
             "  char* p = (char*)malloc(bytes + 8);",
             "  if (!p) exit(103);",
             "  return p + 8;",
             "}", "",
             "int main(int argc, char** argv) {",
             "  if (argc != 3) return 100;",
             '  FILE* in = fopen(argv[1], "rb");',
             '  FILE* out = fopen(argv[2], "wb");',
             "  if (!in || !out) return 101;"]
    for k, e in enumerate(module.entries):
        t = e.pointer_type
        lines.append("  {")
        args, ress = [], []
        for i, (_, shape, dtype) in enumerate(e.inputs):
            ct, size = C_TYPES[dtype], int(np.prod(shape, dtype=np.int64))
            lines.append(f"    {ct}* in{i} = ({ct}*)buffer(sizeof({ct}) * {max(size, 1)});")
            lines.append(f"    if (fread(in{i}, sizeof({ct}), {size}, in) != {size}) return 102;")
            args.append(f"({t}*)in{i}")
        for i, (_, shape, dtype) in enumerate(e.outputs):
            ct, size = C_TYPES[dtype], int(np.prod(shape, dtype=np.int64))
            lines.append(f"    {ct}* out{i} = ({ct}*)buffer(sizeof({ct}) * {max(size, 1)});")
            lines.append(f"    memset(out{i}, 0xff, sizeof({ct}) * {max(size, 1)});")
            ress.append(f"({t}*)out{i}")
        lines += [f"    const {t}* arg[] = {{{', '.join(args)}}};",
                  f"    {t}* res[] = {{{', '.join(ress)}}};",
                  f"    {t}* w = ({t}*)buffer(sizeof({t}) * ({e.name}_SZ_W + 1));",
                  f"    if ({e.name}(arg, res, NULL, w, 0) != 0) return {10 + k};"]
        for i, (_, shape, dtype) in enumerate(e.outputs):
            ct, size = C_TYPES[dtype], int(np.prod(shape, dtype=np.int64))
            lines.append(f"    fwrite(out{i}, sizeof({ct}), {size}, out);")
        lines.append("  }")
    lines += ["  fclose(in);", "  fclose(out);", "  return 0;", "}", ""]
    return "\n".join(lines)


def build_and_run(module, compiler, workdir, flags, link, extra=()):
    """Compile the module with `flags` + warnings (+ `extra`), link the driver with `link`,
    run it on model_inputs(); returns {entry name: [output arrays]}."""
    os.makedirs(workdir, exist_ok=True)
    module.write(workdir)
    with open(os.path.join(workdir, "driver.c"), "w") as f:
        f.write(driver_source(module))
    name = module.name
    proc = run([compiler, *flags, *WARNINGS, *extra, "-c", f"{name}.c", "-o", f"{name}.o"],
               workdir)
    assert proc.returncode == 0, f"{compiler} {' '.join(flags)}:\n{proc.stderr}"
    proc = run([compiler, "-O1", *WARNINGS, "-Wno-unused-result", "-c", "driver.c"], workdir)
    assert proc.returncode == 0, proc.stderr
    proc = run([compiler, "driver.o", f"{name}.o", "-o", "driver", *link], workdir)
    assert proc.returncode == 0, proc.stderr
    ins = model_inputs()
    with open(os.path.join(workdir, "in.bin"), "wb") as f:
        for e in module.entries:
            for (_, shape, dtype), x in zip(e.inputs, ins[e.name]):
                f.write(np.ascontiguousarray(np.broadcast_to(x, shape), NP_TYPES[dtype]).tobytes())
    proc = run(["./driver", "in.bin", "out.bin"], workdir)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    raw = open(os.path.join(workdir, "out.bin"), "rb").read()
    outs, pos = {}, 0
    for e in module.entries:
        outs[e.name] = []
        for _, shape, dtype in e.outputs:
            t = np.dtype(NP_TYPES[dtype])
            count = int(np.prod(shape, dtype=np.int64))
            outs[e.name].append(np.frombuffer(raw[pos:pos + count * t.itemsize], t).reshape(shape))
            pos += count * t.itemsize
    assert pos == len(raw)
    return outs


@functools.lru_cache(maxsize=None)
def models_module(config, dialect="gnu"):
    lanes, cpu, libm = config
    return render_c_module(models(), name="models", cpu=cpu, lanes=lanes, vector_libm=libm,
                           dialect=dialect)


class Lab:
    """Builds of the models module, started in parallel on first use and shared by the
    tests. Each job is (config, compiler, variant); a variant changes the build:
    "recipe" (the recipe's command), "c99" (dialect="c99", with -pedantic), "no-march" or
    "march=<cpu>" (the recipe's command with its -march dropped or replaced)."""

    def __init__(self, root):
        self.root = root
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
        self.jobs = {}

    def submit(self, config, compiler, variant="recipe"):
        key = (config, compiler, variant)
        if key not in self.jobs:
            self.jobs[key] = self.pool.submit(self._build, config, compiler, variant)
        return self.jobs[key]

    def outputs(self, config, compiler, variant="recipe"):
        return self.submit(config, compiler, variant).result()

    def _build(self, config, compiler, variant):
        module = models_module(config, "c99" if variant == "c99" else "gnu")
        commands, link = recipe_commands(module)
        flags = list(commands["gcc" if compiler == "gcc" else "clang"])
        extra = ["-pedantic"] if variant == "c99" else []
        if variant == "no-march":
            flags = [f for f in flags if not f.startswith("-march=")]
        elif variant.startswith("march="):
            flags = [f for f in flags if not f.startswith("-march=")] + [f"-{variant}"]
        where = os.path.join(self.root, f"{config_id(config)}-{compiler}-{variant}")
        return build_and_run(module, compiler, where, flags, link, extra)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    lab = Lab(str(tmp_path_factory.mktemp("lanes")))
    for compiler in COMPILERS:  # start every build the tests below use, two at a time
        for config in CONFIGS:
            lab.submit(config, compiler)
        lab.submit(REFERENCE, compiler, "c99")
        for variant in ("no-march", "march=x86-64-v3"):
            lab.submit(("auto", "native", "glibc"), compiler, variant)
    yield lab
    lab.pool.shutdown(wait=True)


def outputs_and_reference(lab, config, compiler):
    skip_unless_runs(config[1])
    return lab.outputs(config, compiler), lab.outputs(REFERENCE, compiler)


build_matrix = pytest.mark.parametrize("config", CONFIGS, ids=config_id)
compilers = pytest.mark.parametrize("compiler", COMPILERS)


# -- 1 and 2: the models, every lane width and CPU baseline, gcc and clang-19 ---------------

@compilers
@build_matrix
def test_exact_chain_is_bit_identical_to_lanes_1(lab, config, compiler):
    """add, mul, div, sqrt and negation on lanes give lanes=1's bits (and NumPy's values); the
    sum of x * y keeps NumPy's pairwise order, so it is NumPy's to the bit."""
    got, ref = outputs_and_reference(lab, config, compiler)
    want = numpy_models()["chain"]
    assert_same_bits(got["chain"][0], ref["chain"][0], "chain")
    np.testing.assert_allclose(got["chain"][0], want[0], rtol=1e-15, atol=0)
    assert_same_bits(got["chain"][1], ref["chain"][1], "sum")
    assert_same_bits(got["chain"][1], np.asarray(want[1]), "sum vs NumPy")


@compilers
@build_matrix
def test_libm_map_with_remainder(lab, config, compiler):
    """sin, cos, exp, tanh, log, pow, atan2 over 1003 elements: libmvec within 4 ulp of
    lanes=1, scalar libm on lanes bit-identical; all close to NumPy."""
    got, ref = outputs_and_reference(lab, config, compiler)
    names = ["sin", "cos", "exp", "tanh", "log", "pow", "atan2", "mix"]
    for name, g, r in zip(names[:-1], got["mathmap"], ref["mathmap"]):
        if config[2] == "glibc":
            assert_within_ulps(g, r, 4, name)
        else:
            assert_same_bits(g, r, name)
    mix, mix_ref = got["mathmap"][-1], ref["mathmap"][-1]
    if config[2] == "glibc":
        # each of sin(2x), cos(x), exp(x) within 4 ulp, then one product and one sum rounded
        s, c, e = ref["mathmap"][0], ref["mathmap"][1], ref["mathmap"][2]
        bound = 4 * (np.spacing(np.abs(s)) + np.abs(e) * np.spacing(np.abs(c))
                     + np.abs(c) * np.spacing(np.abs(e))) \
            + np.spacing(np.abs(c * e)) + np.spacing(np.abs(mix_ref))
        assert (np.abs(mix - mix_ref) <= bound).all(), "mix"
    else:
        assert_same_bits(mix, mix_ref, "mix")
    for name, g, r in zip(names, got["mathmap"], numpy_models()["mathmap"]):
        np.testing.assert_allclose(g, r, rtol=1e-13, atol=1e-15, err_msg=name)


@compilers
@build_matrix
def test_vmapped_rollout_with_interleaved_outputs(lab, config, compiler):
    """The seed's euler map over 1000 stages, states (N, 2) interleaved in and out."""
    got, ref = outputs_and_reference(lab, config, compiler)
    (zn,), (zn_ref,) = got["rollout"], ref["rollout"]
    assert_same_bits(zn[0::2], zn_ref[0::2], "z0 + 0.1 z1")
    if config[2] == "glibc":
        s = np.sin(model_inputs()["rollout"][1])
        bound = 0.4 * np.spacing(np.abs(s)) + np.spacing(0.1 * np.abs(s)) \
            + np.spacing(np.abs(zn_ref[1::2]))
        assert (np.abs(zn[1::2] - zn_ref[1::2]) <= bound).all()
    else:
        assert_same_bits(zn[1::2], zn_ref[1::2], "z1 + 0.1 sin u")
    np.testing.assert_allclose(zn, numpy_models()["rollout"][0], rtol=1e-14, atol=1e-15)


@compilers
@build_matrix
def test_float32_model(lab, config, compiler):
    """float32 lanes: exact arithmetic bit-identical to lanes=1, sinf within 4 ulp (libmvec)."""
    got, ref = outputs_and_reference(lab, config, compiler)
    (r, s), (r_ref, s_ref) = got["single"], ref["single"]
    assert r.dtype == s.dtype == np.float32
    assert_same_bits(r, r_ref, "float32 arithmetic")
    if config[2] == "glibc":
        assert_within_ulps(s, s_ref, 4, "sinf")
    else:
        assert_same_bits(s, s_ref, "sinf")
    want = numpy_models()["single"]
    np.testing.assert_allclose(r, want[0], rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(s, want[1], rtol=2e-6, atol=1e-7)


@compilers
@build_matrix
def test_scan_with_widened_step(lab, config, compiler):
    """A 50-step scan over a 100-element state: the step's inner loops widen; results as a
    NumPy loop (per-step sums in NumPy's pairwise order)."""
    got, ref = outputs_and_reference(lab, config, compiler)
    want = numpy_models()["sim"]
    for name, g, r, w in zip(["final state", "sums"], got["sim"], ref["sim"], want):
        if config[2] == "glibc":
            np.testing.assert_allclose(g, r, rtol=1e-13, atol=0, err_msg=name)
        else:
            assert_same_bits(g, r, name)
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-15, err_msg=name)


# -- 4: the widened loops are in the C --------------------------------------------------

VECTOR_SIN = {2: "_ZGVbN2v_sin(", 4: "_ZGVdN4v_sin(", 8: "_ZGVeN8v_sin("}


@build_matrix
def test_widened_loops_are_in_the_source(config):
    """lanes=L steps loops by L (by SCALY_LANES for auto) and, with glibc, calls libmvec."""
    lanes, _, libm = config
    src = models_module(config).source
    # Loops of the model, not of the module's C helpers (the pairwise sum's
    # eight-accumulator loop steps by 8 and is no lane loop).
    model = re.sub(r"^static \w+ scaly_\w+\(.*?^}\n", "", src, flags=re.S | re.M)
    steps = {L: len(re.findall(rf"for \(long long \w+ = [^;]*;[^;]*; \w+ \+= {L}\) {{", model))
             for L in (2, 4, 8)}
    auto_steps = len(re.findall(r"for \(long long \w+ = [^;]*;[^;]*; \w+ \+= SCALY_LANES\) {",
                                model))
    if lanes == 1:
        assert steps == {2: 0, 4: 0, 8: 0} and auto_steps == 0
        assert "SCALY_LANES" not in src and "scaly_f64x" not in src and "scaly_f32x" not in src
    elif lanes == "auto":
        assert auto_steps >= 5 and steps == {2: 0, 4: 0, 8: 0}
        for define in ("#define SCALY_LANES 8", "#define SCALY_LANES 4", "#define SCALY_LANES 2"):
            assert define in src
    else:
        assert steps[lanes] >= 5 and auto_steps == 0
        assert all(n == 0 for L, n in steps.items() if L != lanes)
    if libm == "glibc":
        if lanes == "auto":
            for call in VECTOR_SIN.values():
                assert call.replace("(", "") in src
            assert "_ZGVdN8v_sinf" in src and "_ZGVbN4v_sinf" in src
        else:
            assert VECTOR_SIN[lanes] in src
        assert " * Link with: -lmvec -lm" in src.splitlines()
    else:
        assert "_ZGV" not in src
        assert " * Link with: -lm" in src.splitlines()


def test_lanes_8_glibc_source_calls_every_math_function_on_lanes():
    """Every libm function of the map has its AVX-512 variant, and the float32 sin the AVX2 one."""
    src = models_module((8, "x86-64-v4", "glibc")).source
    for call in ("_ZGVeN8v_sin(", "_ZGVeN8v_cos(", "_ZGVeN8v_exp(", "_ZGVeN8v_tanh(",
                 "_ZGVeN8v_log(", "_ZGVeN8vv_pow(", "_ZGVeN8vv_atan2(", "_ZGVdN8v_sinf("):
        assert call in src
    # the strided states of the rollout go through the stride helpers
    assert "scaly_load_f64x8(" in src and "scaly_store_f64x8(" in src


# -- the lanes="auto" module picks its width from the target ---------------------------

@compilers
@pytest.mark.parametrize("march,width", [(None, 2), ("x86-64-v2", 2), ("x86-64-v3", 4),
                                         ("x86-64-v4", 8)])
def test_auto_lanes_follow_the_target_macros(tmp_path, compiler, march, width):
    """SCALY_LANES is 8 with AVX-512, 4 with AVX2, else 2."""
    module = models_module(("auto", "native", "glibc"))
    module.write(tmp_path)
    flags = ["-O3"] + ([f"-march={march}"] if march else [])
    proc = run([compiler, *flags, "-dM", "-E", "models.c"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r"^#define SCALY_LANES (\d+)$", proc.stdout, re.M) == [str(width)]


@compilers
@pytest.mark.parametrize("variant", ["no-march", "march=x86-64-v3"])
def test_auto_glibc_module_runs_without_the_recipe_march(lab, compiler, variant):
    """Without -march (2 lanes, SSE2 libmvec) or with AVX2 (4 lanes) the auto module builds,
    runs and stays within libmvec's 4 ulp of lanes=1."""
    skip_unless_runs("x86-64-v3")
    got = lab.outputs(("auto", "native", "glibc"), compiler, variant)
    ref = lab.outputs(REFERENCE, compiler)
    for k in range(2):
        assert_same_bits(got["chain"][k], ref["chain"][k], f"chain output {k}")
    for k in range(7):
        assert_within_ulps(got["mathmap"][k], ref["mathmap"][k], 4, f"mathmap output {k}")
    assert_same_bits(got["single"][0], ref["single"][0], "float32 arithmetic")
    assert_within_ulps(got["single"][1], ref["single"][1], 4, "sinf")


# -- 3: the guards ---------------------------------------------------------------------

def make_waves():
    @sc.function(sc.arg("x", 64), outputs=sc.arg("y"))
    def waves(x):
        return x.sin()
    return waves


GUARD_8 = "vector_libm=glibc width 8 requires __AVX512F__ and -lmvec"
GUARD_4 = "vector_libm=glibc width 4 requires __AVX2__ and -lmvec"
GUARD_2 = "vector_libm=glibc width 2 requires __SSE2__ and -lmvec"
GUARD_AUTO = "vector_libm=glibc width auto requires __x86_64__ and -lmvec"


@pytest.mark.parametrize("lanes,cpu,guard", [
    pytest.param(8, "x86-64-v4", GUARD_8, id="width8"),
    pytest.param(4, "x86-64-v3", GUARD_4, id="width4"),
    pytest.param(2, "generic", GUARD_2, id="width2"),
    pytest.param("auto", "native", GUARD_AUTO, id="auto"),
])
def test_guard_is_in_the_source(lanes, cpu, guard):
    src = render_c_module(make_waves(), cpu=cpu, lanes=lanes, vector_libm="glibc").source
    assert f'#if !defined(__{guard.split("__")[1]}__)\n#error "{guard}"\n#endif' in src
    assert src.count("#error") == 1


@compilers
@pytest.mark.parametrize("lanes,cpu,march,guard", [
    pytest.param(8, "x86-64-v4", None, GUARD_8, id="width8-no-march"),
    pytest.param(8, "x86-64-v4", "x86-64-v3", GUARD_8, id="width8-v3"),
    pytest.param(4, "x86-64-v3", None, GUARD_4, id="width4-no-march"),
    pytest.param(4, "x86-64-v3", "x86-64-v2", GUARD_4, id="width4-v2"),
])
def test_build_without_the_recipe_march_stops_at_the_guard(tmp_path, compiler, lanes, cpu,
                                                           march, guard):
    """The vector ABI of libmvec's variants needs the width's ISA: a build without it fails
    with the guard's message, the recipe's own command builds."""
    module = render_c_module(make_waves(), cpu=cpu, lanes=lanes, vector_libm="glibc")
    module.write(tmp_path)
    flags = ["-O3", "-fno-math-errno"] + ([f"-march={march}"] if march else [])
    proc = run([compiler, *flags, "-c", "waves.c", "-o", "bad.o"], tmp_path)
    assert proc.returncode != 0
    # gcc: 'error: #error "<guard>"', clang: 'error: "<guard>"'
    assert re.search(r'error: (#error )?"' + re.escape(guard) + '"', proc.stderr), proc.stderr
    proc = run([compiler, *recipe_flags(module, compiler), *WARNINGS, "-c", "waves.c"], tmp_path)
    assert proc.returncode == 0, proc.stderr


@compilers
def test_width_2_guard_passes_on_any_x86_64(tmp_path, compiler):
    """SSE2 is in every x86-64 baseline: lanes=2 with glibc builds without -march."""
    module = render_c_module(make_waves(), lanes=2, vector_libm="glibc")
    assert not any(f.startswith("-march") for f in recipe_flags(module, compiler))
    module.write(tmp_path)
    proc = run([compiler, "-O3", "-fno-math-errno", *WARNINGS, "-c", "waves.c"], tmp_path)
    assert proc.returncode == 0, proc.stderr


# -- 5: reciprocal ------------------------------------------------------------------

def make_divide():
    @sc.function(sc.arg("x", 1000), sc.arg("d", ()), outputs=(sc.arg("q"), sc.arg("t")))
    def divide(x, d):
        return x / d, (x + 1.0) / 3.0
    return divide


@compilers
def test_reciprocal_within_2_ulp(tmp_path, compiler):
    """reciprocal=True: x / d (d an input, invariant in the loop) is x * (1.0 / d), within
    2 ulp of the division of lanes=1 / reciprocal=False."""
    skip_unless_runs("x86-64-v4")
    fn = make_divide()
    exact = render_c_module(fn, lanes=1)
    fast = render_c_module(fn, cpu="x86-64-v4", lanes=8, reciprocal=True)
    assert re.search(r"\* \(1\.0 / arg\[1\]\[0\]\)", fast.source)
    assert "(1.0 / " not in exact.source and " / arg[1][0]" in exact.source
    assert "reciprocal=True" in fast.recipe and "reciprocal=False" in exact.recipe
    r = np.random.default_rng(5)
    x = r.normal(size=1000) * 10.0 ** r.integers(-5, 5, size=1000)
    results = {}
    for label, module in (("exact", exact), ("fast", fast)):
        built = build_single(module, fn, compiler, tmp_path / label)
        results[label] = [built.run(x, d) for d in (3.0, -0.7, 1e-3)]
    for (q, t), (q_ref, t_ref), d in zip(results["fast"], results["exact"], (3.0, -0.7, 1e-3)):
        assert_within_ulps(q, q_ref, 2, f"x / {d}")
        assert_within_ulps(t, t_ref, 2, "(x + 1) / 3")
        assert_same_bits(q_ref, x / d, f"x / {d} (reciprocal=False)")
    # the reciprocal was really used: x * (1/3) is not x / 3 for every x
    assert any(not np.array_equal(q, q_ref) for (q, _), (q_ref, _) in
               zip(results["fast"], results["exact"]))


def build_single(module, fn, compiler, workdir):
    """Build `module` (one entry, `fn`) with its recipe's command and cdriver's driver."""
    os.makedirs(workdir, exist_ok=True)
    module.write(workdir)
    with open(os.path.join(workdir, "driver.c"), "w") as f:
        f.write(cdriver.driver_source(fn, cdriver.entry_pointer_type(fn)))
    _, link = recipe_commands(module)
    name = module.name
    proc = run([compiler, *recipe_flags(module, compiler), *WARNINGS, "-c", f"{name}.c"], workdir)
    assert proc.returncode == 0, proc.stderr
    proc = run([compiler, "-O1", "-Wno-unused-result", "driver.c", f"{name}.o", "-o", "driver",
                *link], workdir)
    assert proc.returncode == 0, proc.stderr
    return cdriver.Built(fn, os.path.join(workdir, "driver"), str(workdir))


# -- 6: dialect="c99" ---------------------------------------------------------------

@compilers
def test_c99_module_is_pedantic_c99_and_matches_gnu(lab, compiler):
    """dialect="c99": no vector types, builds with -std=c99 -pedantic -Werror, same bits as gnu."""
    module = models_module(REFERENCE, "c99")
    assert "vector_size" not in module.source and "__attribute__" not in module.source
    assert "dialect=c99" in module.recipe
    assert "-std=c99" in recipe_flags(module, compiler)
    got = lab.outputs(REFERENCE, compiler, "c99")
    ref = lab.outputs(REFERENCE, compiler)
    for name in ref:
        for k, (g, r) in enumerate(zip(got[name], ref[name])):
            assert_same_bits(g, r, f"{name} output {k}")


# -- 7: options that cannot build together --------------------------------------------

@pytest.mark.parametrize("option,match", [
    pytest.param({"vector_libm": "glibc", "lanes": 8, "cpu": "x86-64-v3"},
                 "vector_libm='glibc' with lanes=8 needs cpu='x86-64-v4' or 'native' (the vector "
                 "ABI of its width), got cpu='x86-64-v3'", id="glibc-8-v3"),
    pytest.param({"vector_libm": "glibc", "lanes": 4, "cpu": "generic"},
                 "vector_libm='glibc' with lanes=4 needs cpu='x86-64-v3' or 'x86-64-v4' or "
                 "'native' (the vector ABI of its width), got cpu='generic'", id="glibc-4-generic"),
    pytest.param({"vector_libm": "glibc", "dialect": "c99"},
                 "vector_libm='glibc' calls libmvec on GNU vector types, which dialect='c99' does "
                 "not use; use dialect='gnu'", id="c99-glibc-lanes-1"),
    pytest.param({"lanes": "auto", "dialect": "c99"},
                 "lanes='auto' needs GNU vector extensions, which dialect='c99' does not use; "
                 "use lanes=1 or dialect='gnu'", id="c99-auto"),
    pytest.param({"lanes": 16}, "lanes=16 is not one of 1, 2, 4, 8, 'auto'", id="lanes-16"),
    pytest.param({"lanes": "AUTO"}, "lanes='AUTO' is not one of 1, 2, 4, 8, 'auto'",
                 id="lanes-AUTO"),
    pytest.param({"scalarize_limit": -1}, "scalarize_limit=-1 must be an int from 0 to 4096",
                 id="scalarize-negative"),
    pytest.param({"scalarize_limit": 64.0}, "scalarize_limit=64.0 must be an int from 0 to 4096",
                 id="scalarize-float"),
])
def test_more_options_that_cannot_build_together(option, match):
    with pytest.raises(ValueError, match="^render_c_module: " + re.escape(match) + "$"):
        render_c_module(make_waves(), **option)


# -- 8: the JIT's host recipe -------------------------------------------------------

@pytest.fixture
def host(cache, monkeypatch):
    """The JIT's compiler with the probe's own choice (no overrides)."""
    monkeypatch.delenv("SCALY_LANES", raising=False)
    monkeypatch.delenv("SCALY_VECTOR_LIBM", raising=False)
    monkeypatch.delenv("SCALY_FP_CONTRACT", raising=False)
    cc = jit._compiler()
    defined = {line.split()[1] for line in cc.macros.splitlines()
               if line.startswith("#define ") and len(line.split()) >= 2}
    if "__AVX512F__" not in defined:
        pytest.skip("the host probe names no AVX-512")
    return cc


def make_sines(name, n=1003):
    def sines(x):
        return (2 * x).sin() + x.cos() * 0.5, x.sin()
    sines.__name__ = name
    return sc.function(sc.arg("x", n), outputs=(sc.arg("y"), sc.arg("s")))(sines)


def test_host_recipe_is_8_lanes_with_libmvec(host):
    assert host.lanes == 8 and host.vector_libm == "glibc"
    flags = host.flags()
    assert "-fveclib=libmvec" in flags and "-march=native" in flags
    assert flags[-2:] == ["-lmvec", "-lm"] and host.link_flags() == ["-lmvec", "-lm"]
    assert "-ffp-contract=off" in flags and "-fno-math-errno" in flags
    assert "lanes=8" in host.recipe() and "vector_libm=glibc" in host.recipe()


def test_jit_uses_the_host_recipe_and_scaly_lanes_overrides_it(host, cache, monkeypatch):
    """The cached source is the 8-lane libmvec module; SCALY_LANES=1 is another cache key with
    the scalar module, within 4 ulp; both within 4 ulp of NumPy's sin."""
    x = np.random.default_rng(8).uniform(-10, 10, 1003)
    y8, s8 = make_sines("sines_host")(x)
    (key8,) = key_dirs(cache)
    src8 = (cache / key8 / "sines_host.c").read_text()
    recipe8 = src8[:src8.index("*/")]
    assert "lanes=8" in recipe8 and "vector_libm=glibc" in recipe8
    assert "CPU baseline: host-local native CPU" in recipe8
    assert "_ZGVeN8v_sin(" in src8 and " += 8) {" in src8
    assert_within_ulps(s8, np.sin(x), 4, "JIT sin vs NumPy")
    np.testing.assert_allclose(y8, np.sin(2 * x) + np.cos(x) * 0.5, rtol=1e-14, atol=1e-15)

    monkeypatch.setenv("SCALY_LANES", "1")
    assert jit._compiler().lanes == 1 and jit._compiler().vector_libm == "none"
    y1, s1 = make_sines("sines_host")(x)
    keys = key_dirs(cache)
    assert len(keys) == 2
    (key1,) = set(keys) - {key8}
    src1 = (cache / key1 / "sines_host.c").read_text()
    assert "lanes=1" in src1[:src1.index("*/")] and "vector_libm=none" in src1[:src1.index("*/")]
    assert "_ZGV" not in src1 and " += 8) {" not in src1
    assert_within_ulps(s8, s1, 4, "lanes=8 vs lanes=1 sin")
    assert_within_ulps(s1, np.sin(x), 4, "lanes=1 sin vs NumPy")
    np.testing.assert_allclose(y8, y1, rtol=1e-14, atol=1e-15)


def test_jit_lanes_without_libmvec_are_bit_identical_to_lanes_1(host, cache, monkeypatch):
    """SCALY_VECTOR_LIBM=none: 8 lanes of scalar libm give the bits of SCALY_LANES=1."""
    x = np.random.default_rng(9).uniform(-10, 10, 1003)
    monkeypatch.setenv("SCALY_VECTOR_LIBM", "none")
    wide = make_sines("sines_nomvec")(x)
    monkeypatch.setenv("SCALY_LANES", "1")
    narrow = make_sines("sines_nomvec")(x)
    assert len(key_dirs(cache)) == 2
    for g, r in zip(wide, narrow):
        assert_same_bits(g, r, "sines")


@pytest.mark.parametrize("value", ["3", "auto", "16", "eight"])
def test_bad_scaly_lanes_is_a_compile_error(cache, monkeypatch, value):
    monkeypatch.setenv("SCALY_LANES", value)
    with pytest.raises(CompileError, match=f"SCALY_LANES={value!r}"):
        make_sines(f"sines_bad_{value}").compile()


@pytest.mark.skipif("clang-19" not in COMPILERS, reason="needs clang-19")
def test_called_procedures_store_elements_so_their_callers_loops_vectorize(tmp_path):
    """With lanes, a called procedure (the seed's euler, inlined by C compilers into the
    vmap's loop) stores one element at a time: a vector-typed store keeps LLVM's loop
    vectorizer off the loop, and with it off the libmvec calls. Clang's own report says the
    loop is vectorized with the element stores, and was not with the vector store (lanes=1,
    the seed's listing, which keeps it)."""
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()

    @sc.function(sc.arg("zs", 2 * N_STAGES), sc.arg("us", N_STAGES), outputs=sc.arg("zn"))
    def rollout(zs, us):
        return sc.vmap(euler, N_STAGES)(zs.reshape((N_STAGES, 2)), us).vec()

    euler_source = {}
    for lanes in (1, 4):
        module = render_c_module(rollout, lanes=lanes, cpu="x86-64-v3",
                                 vector_libm="glibc" if lanes > 1 else "none",
                                 name=f"rollout_l{lanes}")
        module.write(str(tmp_path))
        src = module.source
        euler_source[lanes] = src[src.index("static inline void euler_raw"):]
        report = subprocess.run(
            ["clang-19", "-O3", "-march=x86-64-v3", "-fno-math-errno", "-fveclib=libmvec",
             "-Rpass=loop-vectorize", "-c", str(tmp_path / f"rollout_l{lanes}.c"), "-o",
             os.devnull], capture_output=True, text=True, check=True).stderr
        vectorized = "remark: vectorized loop" in report
        assert vectorized == (lanes > 1), report
    assert "*(double2*)(znext) = (double2){" in euler_source[1]
    assert "znext[0] = " in euler_source[4] and "znext[1] = " in euler_source[4]
    assert "double2" not in euler_source[4].split("\n}\n")[0]
