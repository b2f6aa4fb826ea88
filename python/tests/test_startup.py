"""Start-up: `import scaly` without the compiler, and the trace-free index.

Each case runs child processes (a process maps libraries once: only a fresh one
shows what importing and loading cost) on a private cache, and compares their
results with NumPy.
"""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scaly as sc
from scaly import _core, _runtime

PACKAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HEAVY = ("libLLVM", "libMLIR", "libclang-cpp")

REPORT = textwrap.dedent("""
    import json as _json, sys as _sys
    from scaly.runtime import counters as _counters, fast as _fast
    _fast.wait()
    _maps = [l.split()[-1] for l in open("/proc/self/maps")
             if any(h in l for h in %r)]
    print(_json.dumps({"results": RESULTS, "counters": _counters(),
                       "compiler_module": "scaly._scaly" in _sys.modules,
                       "heavy_maps": sorted(set(_maps))}))
""" % (HEAVY,))


def run(script_dir, name, cache, env=None):
    """Runs <script_dir>/<name>.py in a fresh process; returns its report."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    full.update({"SCALY_CACHE_DIR": str(cache), "PYTHONPATH": f"{PACKAGE}:{script_dir}"})
    full.update(env or {})
    proc = subprocess.run([sys.executable, os.path.join(script_dir, f"{name}.py")], env=full,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write(directory, name, body):
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as f:
        f.write(textwrap.dedent(body) + REPORT)
    return path


PENDULUM = textwrap.dedent("""
    import numpy as np
    import scaly as sc
    import params

    G = 9.81
    WEIGHTS = np.array([1.0, 0.5, 0.25])

    @sc.function(sc.arg("q", 3), sc.arg("w", 3), outputs=sc.arg("cost"))
    def pendulum_cost(q, w):
        pot = (G * params.LENGTH * (1.0 - sc.cos(q)) * WEIGHTS).sum()
        kin = 0.5 * (w * w).sum() + (sc.sin(q) * sc.sin(2.0 * q)).sum()
        return pot + kin + sc.sin(q[0] - q[1]) * sc.sin(q[1] - q[2])

    q, w = np.array([0.3, -0.2, 0.9]), np.array([1.0, 2.0, -0.5])
    RESULTS = [float(pendulum_cost(q, w))]
""")


def pendulum_numpy(length, g=9.81, weights=(1.0, 0.5, 0.25)):
    q, w = np.array([0.3, -0.2, 0.9]), np.array([1.0, 2.0, -0.5])
    pot = (g * length * (1.0 - np.cos(q)) * np.array(weights)).sum()
    kin = 0.5 * (w * w).sum() + (np.sin(q) * np.sin(2.0 * q)).sum()
    return pot + kin + np.sin(q[0] - q[1]) * np.sin(q[1] - q[2])


@pytest.fixture
def scripts(tmp_path):
    d = tmp_path / "scripts"
    d.mkdir()
    (d / "params.py").write_text("LENGTH = 0.5\n")
    return str(d)


def test_import_scaly_loads_no_compiler(tmp_path):
    code = ("import sys, scaly\n"
            "maps = [l for l in open('/proc/self/maps') if any(h in l for h in %r)]\n"
            "print('scaly._scaly' in sys.modules, len(maps))" % (HEAVY,))
    env = dict(os.environ, PYTHONPATH=PACKAGE, SCALY_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "0"]


def test_importing_the_compiler_module_directly_exits_cleanly(tmp_path):
    # The warm-up thread starts when scaly._scaly loads; exit must wait for it
    # even when the module is imported by name rather than through scaly._core
    # (before the fix, 9 exits in 12 aborted or crashed tearing LLVM down under it).
    env = dict(os.environ, PYTHONPATH=PACKAGE, SCALY_CACHE_DIR=str(tmp_path))
    env.pop("SCALY_JIT_WARMUP", None)
    env.pop("SCALY_CC", None)
    for _ in range(6):
        proc = subprocess.run([sys.executable, "-c", "import scaly._scaly"], env=env,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr


def test_a_warm_process_calls_without_tracing_or_the_compiler(tmp_path, scripts):
    cache = tmp_path / "cache"
    write(scripts, "model", PENDULUM)
    first = run(scripts, "model", cache)
    assert first["counters"]["compiled"] == 1 and first["counters"]["fast_published"] == 1
    second = run(scripts, "model", cache)
    assert second["results"][0] == pytest.approx(pendulum_numpy(0.5), rel=1e-13)
    assert second["results"] == first["results"]
    assert second["counters"]["fast_hit"] == 1
    assert second["counters"]["render"] == 0 and second["counters"]["compiled"] == 0
    assert not second["compiler_module"] and second["heavy_maps"] == []


@pytest.mark.parametrize("edit", ["global", "module attribute", "closure"])
def test_a_changed_value_is_traced_again(tmp_path, scripts, edit):
    cache = tmp_path / "cache"
    body = PENDULUM
    if edit == "closure":
        body = body.replace("G = 9.81\n", "def make(g):\n    return g\nG = make(9.81)\n")
    write(scripts, "model", body)
    first = run(scripts, "model", cache)
    if edit == "global":
        write(scripts, "model", body.replace("G = 9.81", "G = 3.71"))
        expected = pendulum_numpy(0.5, g=3.71)
    elif edit == "module attribute":
        with open(os.path.join(scripts, "params.py"), "w") as f:
            f.write("LENGTH = 0.75\n")
        expected = pendulum_numpy(0.75)
    else:
        write(scripts, "model", body.replace("G = make(9.81)", "G = make(1.62)"))
        expected = pendulum_numpy(0.5, g=1.62)
    second = run(scripts, "model", cache)
    assert second["results"][0] == pytest.approx(expected, rel=1e-13)
    assert second["results"][0] != pytest.approx(first["results"][0], rel=1e-6)
    assert second["counters"]["fast_hit"] == 0 and second["counters"]["render"] == 1


# A user module the model reaches other than as a global of its own code:
# its attributes count too (they once did not: a stale result was served).
MODULE_READS = {
    "package attribute": ("import pkg.sub", "pkg.sub.K"),
    "closure": ("import pkg.sub\nmod = (lambda m: (lambda: m))(pkg.sub)", "mod().K"),
    "helper's return value": ("import pkg.sub\ndef scale():\n    return pkg.sub", "scale().K"),
}


@pytest.mark.parametrize("reach", sorted(MODULE_READS))
def test_a_changed_attribute_of_a_module_reached_indirectly_is_traced_again(
        tmp_path, scripts, reach):
    cache = tmp_path / "cache"
    os.makedirs(os.path.join(scripts, "pkg"))
    with open(os.path.join(scripts, "pkg", "__init__.py"), "w") as f:
        f.write("from . import sub\n")
    prelude, read = MODULE_READS[reach]
    write(scripts, "model", f"""
import numpy as np
import scaly as sc
{prelude}

@sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
def scaled(x):
    return x * {read}

RESULTS = scaled(np.array([1.0, 2.0, 3.0])).tolist()
""")
    for k in (2.0, 3.0):
        with open(os.path.join(scripts, "pkg", "sub.py"), "w") as f:
            f.write(f"K = {k}\n")
        got = run(scripts, "model", cache)
        assert got["results"] == [k, 2 * k, 3 * k], reach


def test_a_closure_over_a_new_function_is_traced_again(tmp_path, scripts):
    cache = tmp_path / "cache"
    body = """
        import numpy as np
        import scaly as sc

        def make(step):
            @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
            def stepped(x):
                return step(x)
            return stepped

        f = make(lambda x: sc.sin(x) * %s)
        RESULTS = f(np.array([0.5, 1.5])).tolist()
    """
    write(scripts, "model", body % "2.0")
    run(scripts, "model", cache)
    write(scripts, "model", body % "3.0")
    second = run(scripts, "model", cache)
    assert second["results"] == pytest.approx((3.0 * np.sin([0.5, 1.5])).tolist(), rel=1e-14)
    assert second["counters"]["fast_hit"] == 0


def test_a_closure_over_another_scaly_math_function_is_traced_again(tmp_path, scripts):
    """sc.sin and sc.cos are made by one factory in scaly.ops: the key tells them apart
    (it used to digest both as the factory's inner function, and ran sin for cos)."""
    cache = tmp_path / "cache"
    body = """
        import numpy as np
        import scaly as sc

        def make(act):
            @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
            def layer(x):
                return act(x) + sc.fmin(x, 0.0)
            return layer

        RESULTS = make(sc.%s)(np.array([0.5, -1.5])).tolist()
    """
    for name in ("sin", "cos", "tanh"):
        write(scripts, "model", body % name)
        got = run(scripts, "model", cache)
        x = np.array([0.5, -1.5])
        want = getattr(np, name)(x) + np.fmin(x, 0.0)
        assert got["results"] == pytest.approx(want.tolist(), rel=1e-14), name


def test_functions_a_factory_makes_in_an_opaque_module_differ_by_what_they_close_over(
        monkeypatch):
    from scaly.runtime import fast
    # In this process the index may be off (scaly.viz imported by an earlier test): the
    # digest of the functions is what is tested here.
    monkeypatch.setattr(fast, "enabled", lambda: True)
    monkeypatch.setattr(fast, "_process_state", lambda: ("files", True))

    def factory(k):
        def scaled(x):
            return x * k
        scaled.__module__ = "scaly.factory_test"  # digested by name, as Scaly's own are
        return scaled

    def user(fn):
        def model(x):
            return fn(x)
        return model

    decl = (sc.arg("x", 2),), (sc.arg("y"),)
    keys = [fast.function_key(user(factory(k)), *decl) for k in (2.0, 3.0, 2.0)]
    assert None not in keys
    assert keys[0] != keys[1] and keys[0] == keys[2]
    assert fast.function_key(user(sc.sin), *decl) != fast.function_key(user(sc.cos), *decl)


def test_values_the_key_cannot_digest_keep_the_ordinary_path(tmp_path, scripts):
    cache = tmp_path / "cache"
    write(scripts, "model", """
        import numpy as np
        import scaly as sc

        class Params:
            gain = 2.0

        P = Params()

        @sc.function(sc.arg("x", 2), outputs=sc.arg("y"))
        def scaled(x):
            return x * P.gain

        RESULTS = scaled(np.array([1.0, 2.0])).tolist()
    """)
    first = run(scripts, "model", cache)
    second = run(scripts, "model", cache)
    assert first["counters"]["fast_published"] == 0
    assert second["results"] == [2.0, 4.0]
    # The graph index (keyed by the trace) still spares the compile.
    assert second["counters"]["fast_hit"] == 0 and second["counters"]["compiled"] == 0
    assert second["counters"]["index_hit"] == 1


def test_a_function_loaded_trace_free_traces_when_its_graph_is_needed(tmp_path, scripts):
    cache = tmp_path / "cache"
    body = PENDULUM + textwrap.dedent("""
    if WITH_GRADIENT:
        g = sc.gradient(pendulum_cost, wrt="q")(q, w)
        eps = 1e-6
        fd = [(pendulum_cost(q + eps * e, w) - pendulum_cost(q - eps * e, w)) / (2 * eps)
              for e in np.eye(3)]
        RESULTS += [float(np.max(np.abs(np.asarray(g) - np.asarray(fd))))]
        RESULTS += [len(pendulum_cost.mlir()) > 0]
""")
    write(scripts, "model", "WITH_GRADIENT = False\n" + body)
    run(scripts, "model", cache)
    write(scripts, "model", "WITH_GRADIENT = True\n" + body)
    # The global WITH_GRADIENT is not read by pendulum_cost: its key is the same.
    second = run(scripts, "model", cache)
    assert second["counters"]["fast_hit"] == 1
    assert second["results"][1] < 1e-8 and second["results"][2] is True


@pytest.mark.parametrize("damage", ["truncate", "delete", "garbage entry"])
def test_a_damaged_entry_or_library_falls_back_and_is_written_again(tmp_path, scripts, damage):
    cache = tmp_path / "cache"
    write(scripts, "model", PENDULUM)
    run(scripts, "model", cache)
    entries = list((cache / "index").glob("fast-*.json"))
    assert len(entries) == 1
    so = cache / json.loads(entries[0].read_text())["artifact"]
    if damage == "truncate":
        so.write_bytes(so.read_bytes()[:100])
    elif damage == "delete":
        so.unlink()
    else:
        entries[0].write_text("{not json")
    second = run(scripts, "model", cache)
    assert second["results"][0] == pytest.approx(pendulum_numpy(0.5), rel=1e-13)
    assert second["counters"]["fast_hit"] == 0
    assert second["counters"]["fast_published"] == 1
    third = run(scripts, "model", cache)
    assert third["counters"]["fast_hit"] == 1 and not third["compiler_module"]


def test_scaly_trace_free_0_turns_the_index_off(tmp_path, scripts):
    cache = tmp_path / "cache"
    write(scripts, "model", PENDULUM)
    run(scripts, "model", cache)
    second = run(scripts, "model", cache, env={"SCALY_TRACE_FREE": "0"})
    assert second["counters"]["fast_hit"] == 0 and second["compiler_module"]
    assert second["results"][0] == pytest.approx(pendulum_numpy(0.5), rel=1e-13)


def test_enums_file_matches_the_compiler_module():
    assert _core.expr_enums() == _core.load().expr_enums()
    assert tuple(_core.expr_enums()["math"]) == sc.ops.MATH_FUNCTIONS


def test_open_library_errors_name_the_path_and_the_symbol(tmp_path):
    missing = tmp_path / "libnothere.so"
    with pytest.raises(OSError, match="libnothere.so"):
        _runtime.open_library(str(missing), "f")
    libm = "libm.so.6"
    with pytest.raises(OSError, match="no symbol scaly_no_such_symbol"):
        _runtime.open_library(libm, "scaly_no_such_symbol")
    address, owner = _runtime.open_library(libm, "cos")
    assert address > 0 and owner is not None
