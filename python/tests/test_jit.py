"""JIT, on-disk cache and reuse (seed 000, "Compilation and caching" onwards)."""

import json
import os
import shutil
import subprocess
import threading
import time

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module, render_native
from scaly.runtime import jit
from scaly.runtime import CompileError, counters

from jitutil import ENERGY, key_dirs, run_snippet, temporaries


def index_files(cache):
    """Index entries and their contents (none yet when Scaly's files just changed)."""
    index = cache / "index"
    return {p: (index / p).read_bytes() for p in os.listdir(index)} if index.exists() else {}


def make_energy(name="energy"):
    def energy(x):
        return sc.sumsqr(x)
    energy.__name__ = name
    return sc.function(sc.L("x", 3), sc.L("energy", ...))(energy)


def test_first_call_compiles_and_matches_numpy(cache):
    energy = make_energy()
    x = np.array([1.5, -2.0, 0.25])
    assert energy(x) == pytest.approx(x @ x, rel=1e-15)
    assert isinstance(energy(x), np.ndarray) and energy(x).shape == ()


def test_cache_directory_holds_the_exact_source_and_artifact(cache):
    energy = make_energy()
    energy.compile()
    (key,) = key_dirs(cache)
    files = sorted(os.listdir(cache / key))
    assert files == ["energy.c", "energy.h", "energy.o", "meta.json"]
    cc = jit._compiler()
    assert (cache / key / "energy.c").read_text() == render_native(
        energy, cc.fp_contract, cc.lanes, cc.vector_libm).source
    assert "CPU baseline: host-local native CPU" in (cache / key / "energy.c").read_text()
    assert len(key) == 64 and int(key, 16) >= 0


def test_compile_loads_without_evaluating_and_returns_self(cache):
    energy = make_energy()
    before = counters()
    assert energy.compile() is energy
    after = counters()
    assert after["compile"] == before["compile"] + 1
    assert after["load"] == before["load"] + 1


def test_cache_root_resolution(tmp_path):
    code = "import json; from scaly.runtime import cache_root; print(json.dumps(str(cache_root())))"
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_") and k != "XDG_CACHE_HOME"}
    run = lambda extra: json.loads(subprocess.run(
        ["/usr/bin/python3", "-c", code], env={**env, **extra}, capture_output=True, text=True,
        check=True).stdout)
    from jitutil import PACKAGE_DIR
    base = {"PYTHONPATH": PACKAGE_DIR, "HOME": str(tmp_path / "home")}
    assert run({**base, "SCALY_CACHE_DIR": str(tmp_path / "c")}) == str(tmp_path / "c")
    assert run({**base, "XDG_CACHE_HOME": str(tmp_path / "x")}) == str(tmp_path / "x" / "scaly")
    assert run(base) == str(tmp_path / "home" / ".cache" / "scaly")


def test_new_process_reuses_without_lowering_rendering_or_compiling(cache):
    code = ENERGY + """
import json, numpy as np
from scaly.runtime import counters
energy.compile()
out = counters()
out["value"] = float(energy(np.array([1.0, 2.0, 3.0])))
print(json.dumps(out))
"""
    first = run_snippet(code, cache)
    assert first["compiled"] == 1 and first["lowered"] == 1 and first["value"] == 14.0
    second = run_snippet(code, cache)
    assert second["lowered"] == 0 and second["rendered"] == 0 and second["compiled"] == 0
    assert second["index_hit"] == 1 and second["value"] == 14.0


def test_moved_cache_still_hits_the_index(cache, tmp_path):
    code = ENERGY + "import json\nfrom scaly.runtime import counters\nenergy.compile()\nprint(json.dumps(counters()))"
    run_snippet(code, cache)
    moved = tmp_path / "moved"
    shutil.move(str(cache), str(moved))
    out = run_snippet(code, moved)
    assert out["index_hit"] == 1 and out["lowered"] == 0


def test_deleted_artifact_is_rebuilt(cache):
    code = ENERGY + "import json\nfrom scaly.runtime import counters\nenergy.compile()\nprint(json.dumps({**counters(), 'v': float(energy([1,1,1]))}))"
    run_snippet(code, cache)
    (key,) = key_dirs(cache)
    os.unlink(cache / key / "energy.o")
    out = run_snippet(code, cache)
    assert out["compiled"] == 1 and out["v"] == 3.0


@pytest.mark.parametrize("victim,damage", [
    ("energy.o", b""), ("energy.o", b"\x7fELF garbage"), ("energy.o", "truncate"),
    ("energy.c", b"int main(void) { return 1; }"), ("meta.json", b"{not json"),
])
def test_damaged_cache_files_are_detected_and_rebuilt(cache, victim, damage):
    code = ENERGY + "import json\nfrom scaly.runtime import counters\nenergy.compile()\nprint(json.dumps({**counters(), 'v': float(energy([1,2,2]))}))"
    run_snippet(code, cache)
    (key,) = key_dirs(cache)
    path = cache / key / victim
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "truncate" else damage)
    out = run_snippet(code, cache)
    assert out["v"] == 9.0 and out["compiled"] == 1
    assert (cache / key / victim).read_bytes() == data or victim == "meta.json"


def test_garbage_index_entry_is_ignored(cache):
    code = ENERGY + "import json\nfrom scaly.runtime import counters\nenergy.compile()\nprint(json.dumps({**counters(), 'v': float(energy([0,0,2]))}))"
    run_snippet(code, cache)
    (entry,) = os.listdir(cache / "index")
    for junk in (b"\x00\x01garbage", b'{"artifact": "../../etc/passwd", "name": "x", "workspace_bytes": 0}'):
        (cache / "index" / entry).write_bytes(junk)
        out = run_snippet(code, cache)
        assert out["v"] == 4.0 and out["index_hit"] == 0


def test_second_function_with_same_source_hits_memory(cache):
    a = make_energy()
    a.compile()
    before = counters()
    b = make_energy()
    b.compile()
    after = counters()
    assert after["compiled"] == before["compiled"] and after["lowered"] == before["lowered"]
    assert after["memory_hit"] == before["memory_hit"] + 1
    assert b(np.ones(3)) == 3.0


def test_recompile_uses_a_fresh_key_and_keeps_old_handles(cache):
    energy = make_energy()
    old = energy.compile()._kernel
    index_before = index_files(cache)
    dirs_before = set(key_dirs(cache))
    energy.recompile()
    assert energy._kernel is None
    before = counters()
    energy.compile()
    after = counters()
    assert after["compiled"] == before["compiled"] + 1 and after["rendered"] == before["rendered"] + 1
    new_dirs = set(key_dirs(cache)) - dirs_before
    assert len(new_dirs) == 1
    assert index_files(cache) == index_before
    x = np.array([1.0, 2.0, 3.0])
    assert old(x) == 14.0 and energy(x) == 14.0


def test_scaly_cc_opt_changes_the_key(cache, monkeypatch):
    make_energy().compile()
    monkeypatch.setenv("SCALY_CC_OPT", "-O3")
    e2 = make_energy()
    e2.compile()
    assert len(key_dirs(cache)) == 2
    assert e2(np.ones(3)) == 3.0


@pytest.mark.parametrize("cc", ["gcc", "clang-19"])
def test_external_compiler_builds_a_shared_library(cache, monkeypatch, cc):
    monkeypatch.setenv("SCALY_CC", cc)
    energy = make_energy(f"energy_{cc.replace('-', '_')}")
    x = np.array([3.0, 4.0, 12.0])
    assert energy(x) == 169.0
    (key,) = key_dirs(cache)
    name = energy.name
    assert sorted(os.listdir(cache / key)) == sorted([f"{name}.c", f"{name}.h", f"lib{name}.so", "meta.json"])


LONG = "energy_" + "x" * 293  # 300 characters: beyond a file name's 255 with lib, .so, .tmp...


def _cached_files(cache):
    return [f for d, _, files in os.walk(cache) for f in files]


@pytest.mark.parametrize("cc", [None, "gcc"])
def test_a_long_function_name_is_hashed_in_file_names_not_in_c(cache, monkeypatch, cc):
    """Any valid identifier works: the cache names its files after the start of a long
    name and a hash of it, while the entry keeps the name (issue 33)."""
    if cc:
        monkeypatch.setenv("SCALY_CC", cc)
    energy = make_energy(LONG)
    x = np.array([3.0, 4.0, 12.0])
    assert energy(x) == 169.0
    (key,) = key_dirs(cache)
    (source,) = [f for f in os.listdir(cache / key) if f.endswith(".c")]
    assert len(source) < 140 and f"int {LONG}(" in (cache / key / source).read_text()
    np.testing.assert_allclose(sc.gradient(energy)(x), 2 * x)  # derivatives add to the name
    assert np.allclose(sc.hessian(energy, layout="csc")(x).toarray(), 2 * np.eye(3))
    assert len(key_dirs(cache)) > 2 and all(len(f) <= 255 for f in _cached_files(cache))
    # Short names are the file names, as before.
    make_energy().compile()
    assert "energy.c" in _cached_files(cache)


def test_a_long_function_name_hits_the_index_in_a_new_process(cache):
    code = ENERGY.replace("def energy", f"def {LONG}").replace("sc.L(\"energy\"", "sc.L(\"e\"") + \
        f"import json\nfrom scaly.runtime import counters\nv = float({LONG}([1, 2, 3]))\n" \
        "print(json.dumps({**counters(), 'v': v}))"
    first = run_snippet(code, cache)
    assert first["compiled"] == 1 and first["v"] == 14.0
    second = run_snippet(code, cache)
    assert second["index_hit"] == 1 and second["compiled"] == 0 and second["v"] == 14.0


def test_missing_compiler_is_a_clear_error(cache, monkeypatch):
    monkeypatch.setenv("SCALY_CC", "/nonexistent/bin/cc")
    with pytest.raises(CompileError, match="SCALY_CC"):
        make_energy("energy_missing_cc").compile()


def test_failing_compiler_shows_its_diagnostics(cache, monkeypatch, tmp_path):
    fake = tmp_path / "fakecc"
    fake.write_text("#!/bin/sh\nfor a; do [ \"$a\" = -shared ] && { echo 'fakecc: boom at line 7' >&2; exit 3; }; done\nexec gcc \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SCALY_CC", str(fake))
    with pytest.raises(CompileError, match="boom at line 7"):
        make_energy("energy_failing_cc").compile()
    assert temporaries(cache) == []


def test_parallel_cold_cache(cache):
    code = ENERGY + "import json\nprint(json.dumps(float(energy([1.0, 2.0, 4.0]))))"
    from jitutil import PACKAGE_DIR
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"SCALY_CACHE_DIR": str(cache), "PYTHONPATH": PACKAGE_DIR})
    procs = [subprocess.Popen(["/usr/bin/python3", "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(8)]
    results = [p.communicate() + (p.returncode,) for p in procs]
    assert all(rc == 0 for _, _, rc in results), [err for _, err, _ in results]
    assert {out.strip() for out, _, _ in results} == {"21.0"}
    assert len(key_dirs(cache)) == 1
    # One graph entry, and one trace-free entry (each process may publish it).
    entries = os.listdir(cache / "index")
    assert len([e for e in entries if not e.startswith("fast-")]) == 1
    assert len([e for e in entries if e.startswith("fast-")]) == 1
    assert temporaries(cache) == []


def test_sources_changed_recently_force_rendering(cache, tmp_path):
    # A private copy of the package whose files we may touch.
    from jitutil import PACKAGE_DIR
    copy = tmp_path / "pkg"
    shutil.copytree(os.path.join(PACKAGE_DIR, "scaly"), copy / "scaly",
                    ignore=shutil.ignore_patterns("__pycache__"))
    old = time.time() - 3600
    for d, _, files in os.walk(copy):
        for f in files:
            os.utime(os.path.join(d, f), (old, old))
    code = ENERGY + "import json\nfrom scaly.runtime import counters\nenergy.compile()\nprint(json.dumps(counters()))"
    run_snippet(code, cache, pythonpath=str(copy))
    assert run_snippet(code, cache, pythonpath=str(copy))["rendered"] == 0
    os.utime(copy / "scaly" / "ops.py")  # changed just now: less than two seconds ago
    assert run_snippet(code, cache, pythonpath=str(copy))["rendered"] == 1
    os.utime(copy / "scaly" / "ops.py", (old, old))
    changed_after_import = ENERGY + """
import json, os, scaly
from scaly.runtime import counters
os.utime(os.path.join(os.path.dirname(scaly.__file__), "ops.py"))
energy.compile()
print(json.dumps(counters()))"""
    assert run_snippet(changed_after_import, cache, pythonpath=str(copy))["rendered"] == 1
    # Nor does such a process write index entries: a fresh cache stays without one.
    fresh = tmp_path / "fresh-cache"
    assert run_snippet(changed_after_import, fresh, pythonpath=str(copy))["compiled"] == 1
    assert not (fresh / "index").exists() or os.listdir(fresh / "index") == []


def test_numerical_call_inputs(cache):
    @sc.function(sc.arg("a", (2, 2)), sc.arg("s", ()), sc.arg("n", 3, dtype="int64"),
                 outputs=(sc.arg("y"), sc.arg("m")))
    def mixed(a, s, n):
        return a * s, n * 2

    y, m = mixed([[1, 2], [3, 4]], 0.5, np.array([1, 2, 3]))
    np.testing.assert_array_equal(y, [[0.5, 1.0], [1.5, 2.0]])
    np.testing.assert_array_equal(m, [2, 4, 6])
    assert y.dtype == np.float64 and m.dtype == np.int64
    with pytest.raises(ValueError, match="input 'a' expects shape \\(2, 2\\), got \\(4,\\)"):
        mixed(np.zeros(4), 1.0, np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="input 'n' expects dtype int64"):
        mixed(np.zeros((2, 2)), 1.0, np.zeros(3))
    with pytest.raises(TypeError, match="takes 3 inputs"):
        mixed(np.zeros((2, 2)), 1.0)
    with pytest.raises(TypeError, match="input 'n'"):
        mixed(np.zeros((2, 2)), 1.0, [0.5, 1, 2])


def test_contiguous_input_of_the_right_dtype_is_not_copied(cache):
    energy = make_energy()
    kernel = energy.compile()._kernel
    x = np.arange(3.0)
    for _ in range(5):
        energy(x)
    assert kernel.copies == 0
    energy(x[::-1])          # not contiguous: converted
    energy([1.0, 2.0, 3.0])  # a list: converted
    assert kernel.copies == 2


def test_large_calls_release_the_gil(cache):
    @sc.function(sc.arg("x", 20000), outputs=sc.arg("y"))
    def twice(x):
        return sc.vmap(make_scale(), 20000)(x)

    assert twice.compile()._kernel.releases_gil
    assert not make_energy().compile()._kernel.releases_gil
    x = np.random.default_rng(1).normal(size=20000)
    results = {}
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(i, twice(x))) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results.values():
        np.testing.assert_array_equal(r, 2 * x)


def test_a_kept_workspace_serves_repeated_and_concurrent_calls(cache):
    # The heap workspace is kept by the kernel between calls; a call that
    # finds it in use (another thread, GIL released) allocates its own.
    @sc.function(sc.arg("x", 40000), outputs=(sc.arg("s"), sc.arg("y")))
    def spread(x):
        y = sc.sin(x) * x
        return sc.sum(y[::-1] * x), y[::2] + y[1::2]

    kernel = spread.compile()._kernel
    assert kernel.workspace_bytes > 4096 and kernel.releases_gil
    rng = np.random.default_rng(3)
    inputs = [rng.normal(size=40000) for _ in range(8)]

    def want(x):
        y = np.sin(x) * x
        return np.sum(y[::-1] * x), y[::2] + y[1::2]

    alone = [spread(x) for x in inputs]  # the same workspace, one call after another
    for x, (s, y) in zip(inputs, alone):
        np.testing.assert_allclose(s, want(x)[0], rtol=1e-12)
        np.testing.assert_allclose(y, want(x)[1], rtol=1e-14, atol=1e-15)
    results = {}
    threads = [threading.Thread(target=lambda i=i: results.__setitem__(
        i, [spread(inputs[i]) for _ in range(20)])) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8
    for i, calls in results.items():  # bit for bit what the call alone gave
        for s, y in calls:
            assert s == alone[i][0]
            np.testing.assert_array_equal(y, alone[i][1])


def make_scale():
    @sc.function(sc.arg("v", ()), outputs=sc.arg("w"))
    def scale(v):
        return 2.0 * v
    return scale


def test_in_process_compile_caches_the_header_it_reads_without_sparse_tables(cache, monkeypatch):
    """The JIT renders the header without the sparse output's index tables (the
    source never uses them), compiles that header, and caches exactly it; an export
    of the same Function keeps the tables."""
    compiled = []
    real_compile = jit._scaly.jit_compile

    def recording_compile(files, flags):
        compiled.append(dict(files))
        return real_compile(files, flags)

    monkeypatch.setattr(jit._scaly, "jit_compile", recording_compile)
    @sc.function(sc.arg("x", 40), outputs=sc.arg("y"))
    def chain(x):
        return x[:-1] * x[1:].sin()

    J = sc.jacobian(chain, layout="csc")
    x = np.linspace(0.1, 2.0, 40)
    got = J(x).toarray()
    want = np.zeros((39, 40))
    idx = np.arange(39)
    want[idx, idx] = np.sin(x[1:])
    want[idx, idx + 1] = x[:-1] * np.cos(x[1:])
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    (key,) = key_dirs(cache)
    header = next((cache / key).glob("*.h")).read_text()
    (files,) = compiled
    assert files[f"{J.name}.h"] == header
    assert "_COLIND" not in header and "_ROW {" not in header
    assert "_NNZ 78" in header and header.rstrip().endswith("#endif")
    exported = render_c_module(J).header
    assert "_COLIND { \\" in exported and "_ROW { \\" in exported


def test_a_key_part_given_in_pieces_hashes_as_its_concatenation():
    # The cache key hashes a module's source and header as one part without
    # building their concatenation; the key is the one of the joined text.
    from scaly.runtime.jit import _key
    source, header = "int f(void);\n" * 3, "#define T { \\\n    1, 2 }\n"
    assert _key("v", (source, header.encode()), "x") == _key("v", source + header, "x")
    assert _key("v", (source, header), "x") != _key("v", source, header, "x")


def test_header_without_sparse_tables_drops_exactly_the_table_macros_of_every_entry():
    """Two entries with sparse outputs in one module, rendered with and without the
    index tables (the JIT's render option): the two headers differ by each table
    macro (first line `#define <entry>_<out>_<T> {` through its closing `}`) and a
    note in each sparse output's comment, nothing more."""
    from scaly.codegen import _render_recorded

    @sc.function(sc.arg("x", 30), outputs=sc.arg("y"))
    def pairs(x):
        return x[:-1] * x[1:]

    @sc.function(sc.arg("x", 30), outputs=sc.arg("e"))
    def energy(x):
        return (x[:-1] * x[1:].cos()).sum()

    J = sc.jacobian(pairs, layout="csr")
    H = sc.hessian(energy, layout="csc")
    module = render_c_module([J, H], name="both")
    options = {"cpu": "generic", "lanes": 1, "dialect": "gnu", "vector_libm": "none",
               "reciprocal": False, "lang": "c", "name": "both", "sparse_tables": False}
    without = _render_recorded([J, H], options, "export")
    assert without.source == module.source
    lines = module.header.splitlines(keepends=True)
    kept, in_table, tables = [], False, 0
    for line in lines:
        starts = line.startswith("#define ") and line.rstrip().endswith("{ \\")
        if starts:
            tables += 1
        in_table = in_table or starts
        if not in_table:
            kept.append(line)
        elif line.rstrip().endswith("}"):
            in_table = False
    assert tables == 4  # ROWPTR and COL, COLIND and ROW
    note = "\n * (The index tables are left out of this header.)"
    assert without.header.count(note) == 2
    assert without.header.replace(note, "") == "".join(kept)
    assert "_NNZ" in without.header


HEAP_PROBE = """
import ctypes, json
import scaly
from scaly import _runtime

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.mallinfo2.restype = MallInfo2
grew = {}
for size in (8 << 20, 40 << 20):
    mapped = libc.mallinfo2().hblkhd
    block = libc.malloc(size)
    grew[size] = libc.mallinfo2().hblkhd - mapped
    libc.free(block)
print(json.dumps({"policy": _runtime.heap_policy, "mapped": [grew[8 << 20], grew[40 << 20]]}))
"""


def _has_mallinfo2():
    import ctypes
    try:
        return hasattr(ctypes.CDLL(None), "mallinfo2")
    except OSError:
        return False


@pytest.mark.skipif(not _has_mallinfo2(), reason="needs glibc >= 2.33 (mallinfo2)")
@pytest.mark.parametrize("env, applied", [
    ({}, True),
    ({"SCALY_HEAP_POLICY": "0"}, False),
    ({"SCALY_HEAP_POLICY": "Off"}, False),
    ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"}, False),
    ({"MALLOC_MMAP_THRESHOLD_": "131072"}, False),
])
def test_heap_policy_serves_megabyte_blocks_from_the_heap_unless_the_user_chose(cache, env, applied):
    # A fresh process under glibc's defaults maps an 8 MiB block on its own
    # (fresh pages on every use); under Scaly's policy it comes from the heap,
    # whose free memory the process keeps, while a 40 MiB block is mapped
    # either way. Measured by glibc's own count of mapped bytes.
    out = run_snippet(HEAP_PROBE, cache, env)
    assert out["policy"] is applied
    small, large = out["mapped"]
    assert large >= 40 << 20
    assert (small == 0) if applied else (small >= 8 << 20)
