"""scaly.wasm in a real engine: Node.js 20's WebAssembly.

One multi-entry module (`kern`) is built once for wasm32, and its kernels are
called from JavaScript (scaly/wasm/js/scaly_wasm.mjs, driven by
wasm_host/driver.mjs) and compared with the native JIT, to the last bit for
exact arithmetic and within 4 ulp where libm differs (wasi-libc vs glibc):

1. the standalone module: ScalyKernels.call/scalar and the pointer export on
   scaly_alloc'd buffers;
2. a host module of our own (wasm_host/host_alloc.c, host_kern.c) with its own
   malloc linking libkern.a, and a host linking two modules that both have an
   entry named `step`;
3. marshalling of every dtype through the scalar exports, and calls on
   addresses >= 2**31 in a memory grown past 2 GiB (uint32 as negative i32);
4. the compiled layout table against the manifest's (calc_layout's) structs;
5. errors: ScalyWasmError with the status and a message naming the entry, and
   100000 of them without leaking the shadow stack;
6. ScalyKernels.entry's signature check.

Every scenario runs in one Node process: the test writes a JSON job, the
driver writes a JSON result; arrays travel as base64 of their bytes. The
models and their inputs are in wasm_engine_models.py.
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
import scaly.wasm as sw

from models import rollout
from wasm_engine_models import (BY_NAME, HOST_POINTERS, HOST_SCALAR, HOST_STRUCT, INPUTS, KERN,
                                RNG, TRANSCENDENTAL, _inputs, step_alpha, step_beta)
from wasmutil import (dec, enc, encode_inputs, function_names, max_ulp, mismatches, native,
                      run_tool)

HOST_DIR = Path(__file__).parent / "wasm_host"
DRIVER = HOST_DIR / "driver.mjs"
WASI = Path("/usr/lib/wasm32-wasi")
BUILTINS = Path("/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a")
HOST_CFLAGS = ["--target=wasm32-wasi", "-O2", "-Wall", "-Wextra", "-Werror"]
#: Where wasi-libc's libm and glibc's (scalar or libmvec) may differ.
ULPS = 4


# -- helpers -------------------------------------------------------------------


def tolerance(name):
    return ULPS if name in TRANSCENDENTAL else 0


def run_node(job, tmp_path, label):
    job_file, result_file = tmp_path / f"{label}.job.json", tmp_path / f"{label}.result.json"
    job_file.write_text(json.dumps(job))
    p = subprocess.run([NODE_PATH[0], str(DRIVER), str(job_file), str(result_file)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"node driver ({label}) failed:\n{p.stdout}\n{p.stderr}"
    return json.loads(result_file.read_text())


def check_calls(results, calls, where=""):
    """Compare every call's outputs with the native JIT's; returns the
    problems and the largest ulp distance of the transcendental entries."""
    problems, worst = [], 0
    by_id = {r["id"]: r for r in results}
    for c in calls:
        r = by_id[c["id"]]
        fn = c["fn"]
        label = f"{where}{c['id']} "
        if "error" in r:
            problems.append(f"{label}raised {r['error']}")
            continue
        expected = native(fn, c["values"])
        problems += mismatches(fn, r["outputs"], expected, tolerance(c["entry"]), label)
        if c["entry"] in TRANSCENDENTAL:
            worst = max(worst, max_ulp(fn, r["outputs"], expected))
    return problems, worst


def make_call(id_, entry, via, values, fn=None, **extra):
    fn = fn or BY_NAME[entry]
    return {"id": id_, "entry": entry, "via": via, "inputs": encode_inputs(fn, values),
            "values": values, "fn": fn, **extra}


def job_calls(calls):
    return [{k: v for k, v in c.items() if k not in ("values", "fn")} for c in calls]


# -- fixtures --------------------------------------------------------------------

NODE_PATH = [None]


@pytest.fixture(scope="module", autouse=True)
def node():
    path = shutil.which("node")
    if not path:
        pytest.fail("node (Node.js 20 or newer) is not on PATH: the wasm engine tests run the "
                    "built modules in Node's WebAssembly; install nodejs")
    version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout.strip()
    major = int(re.match(r"v(\d+)", version).group(1))
    if major < 20:
        pytest.fail(f"node {version} is too old: the wasm engine tests need Node.js 20 or newer")
    NODE_PATH[0] = path
    return path


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A private cache for the native JIT and the wasm builds (never ~/.cache)."""
    root = tmp_path_factory.mktemp("wasm-engine")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCALY_CACHE_DIR", str(root / "cache"))
        for var in ("SCALY_FP_CONTRACT", "SCALY_CC", "SCALY_CC_OPT"):
            mp.delenv(var, raising=False)
        yield root


@pytest.fixture(scope="module")
def kern(env):
    built = sw.build(KERN, env / "kern", name="kern", cache_dir=env / "cache")
    assert built.manifest["module"] == "kern"
    assert [e["name"] for e in built.manifest["entries"]] == [f.name for f in KERN]
    return built


@pytest.fixture(scope="module")
def host(env, kern):
    """host.wasm: host_alloc.c + host_kern.c + libkern.a, linked with wasm-ld."""
    d = env / "host"
    d.mkdir()
    for name in ("host_alloc.c", "host_kern.c"):
        run_tool(["clang-19", *HOST_CFLAGS, f"-I{HOST_DIR}", f"-I{kern.out_dir}", "-c",
                  HOST_DIR / name, "-o", d / name.replace(".c", ".o")], d)
    run_tool(["wasm-ld-19", "--no-entry", "host_alloc.o", "host_kern.o", kern.archive,
              WASI / "crt1-reactor.o", WASI / "libc.a", BUILTINS, "-o", "host.wasm"], d)
    return d / "host.wasm"


@pytest.fixture(scope="module")
def two(env):
    """two.wasm: the archives of modules alpha and beta (both with an entry
    `step`) in one host."""
    d = env / "two"
    alpha = sw.build(step_alpha, d / "alpha", name="alpha", cache_dir=env / "cache")
    beta = sw.build(step_beta, d / "beta", name="beta", cache_dir=env / "cache")
    run_tool(["clang-19", *HOST_CFLAGS, f"-I{HOST_DIR}", "-c", HOST_DIR / "host_alloc.c",
              "-o", d / "host_alloc.o"], d)
    for side, b in (("alpha", alpha), ("beta", beta)):
        run_tool(["clang-19", *HOST_CFLAGS, f"-I{HOST_DIR}", f"-I{b.out_dir}", f"-DSIDE={side}",
                  f'-DSIDE_HEADER="{side}_wasm.h"', "-c", HOST_DIR / "host_two.c",
                  "-o", d / f"host_{side}.o"], d)
    run_tool(["wasm-ld-19", "--no-entry", "host_alloc.o", "host_alpha.o", "host_beta.o",
              alpha.archive, beta.archive, WASI / "crt1-reactor.o", WASI / "libc.a", BUILTINS,
              "-o", "two.wasm"], d)
    return d / "two.wasm", alpha, beta


# -- 1. the standalone module ------------------------------------------------------------


def standalone_calls(kern):
    calls = []
    for e in kern.manifest["entries"]:
        vias = ["call", "struct", "pointers"]
        if e["workspace_bytes"]:
            vias.append("pointers_w")
        if e["exports"]["scalar"]:
            vias.append("scalar")
        for k, values in enumerate(INPUTS[e["name"]]):
            for via in vias:
                calls.append(make_call(f"{e['name']}/{via}/{k}", e["name"], via, values))
    return calls


def test_standalone_module_matches_native_jit(kern, tmp_path):
    m = kern.manifest
    scalar = {e["name"] for e in m["entries"] if e["exports"]["scalar"]}
    assert scalar == {"hyp", "zoo", "kscal", "isbig", "fsc"}
    assert next(e for e in m["entries"] if e["name"] == "spill")["workspace_bytes"] > 0
    calls = standalone_calls(kern)
    result = run_node({"kind": "standalone", "wasm": str(kern.wasm),
                       "manifest": str(kern.manifest_path), "calls": job_calls(calls)},
                      tmp_path, "standalone")
    problems, worst = check_calls(result["calls"], calls)
    assert not problems, "\n".join(problems)
    print(f"standalone: {len(calls)} calls; transcendental entries within {worst} ulp")


# -- 2. a host module with its own malloc ----------------------------------------------


def test_archive_exports_only_prefixed_symbols(kern):
    out = run_tool(["llvm-nm-19", "--defined-only", "--extern-only", kern.archive], kern.out_dir)
    symbols = [line.split()[-1] for line in out.splitlines() if re.match(r"^[0-9a-f]+ ", line)]
    assert symbols, out
    assert all(s.startswith("kern__") for s in symbols), symbols
    for f in KERN:
        assert f"kern__{f.name}" in symbols and f"kern__{f.name}__struct" in symbols
    assert "kern__scaly_layout" in symbols
    header = kern.exports_header.read_text()
    assert '#include "kern.h"' in header
    assert "void kern__rollout__struct(rollout_out* out, const rollout_in* in);" in header
    assert "double kern__hyp__scalar(double a0, double a1);" in header


def test_host_module_with_its_own_malloc(kern, host, tmp_path):
    names = function_names(host)
    assert {"host_malloc", "host_free", "host_rollout", "host_zoo_scalar"} <= names
    libc_alloc = names & {"malloc", "free", "dlmalloc", "dlfree", "aligned_alloc", "calloc",
                          "realloc", "sbrk", "internal_memalign"}
    assert not libc_alloc, f"the host module holds libc's allocator: {sorted(libc_alloc)}"
    # The check can see dlmalloc: the standalone module has it (scaly_alloc).
    assert "dlmalloc" in function_names(kern.wasm) or "malloc" in function_names(kern.wasm)

    calls = []
    for name in HOST_POINTERS:
        for k, values in enumerate(INPUTS[name]):
            calls.append(make_call(f"{name}/host_pointers/{k}", name, "host_pointers", values))
    for name in HOST_STRUCT:
        for k, values in enumerate(INPUTS[name]):
            calls.append(make_call(f"{name}/host_struct/{k}", name, "host_struct", values))
    for name in HOST_SCALAR:
        for k, values in enumerate(INPUTS[name]):
            calls.append(make_call(f"{name}/host_scalar/{k}", name, "host_scalar", values))
    # And every entry through the runtime on the host's instance and allocator.
    calls += standalone_calls(kern)
    failures = [
        {"label": "struct in=0", "export": "kern__rollout__struct", "args": ["OUT", 0], "status": 4},
        {"label": "pointers arg=0", "export": "kern__spill", "args": [0, "OUT", 0, 0, 0],
         "status": 1},
        {"label": "struct out=0", "export": "kern__zoo__struct", "args": [0, "OUT"], "status": 3},
    ]
    after = [make_call(f"after/{f.name}", f.name, "call", INPUTS[f.name][0]) for f in KERN]
    result = run_node({"kind": "host", "wasm": str(host), "manifests": {"kern": str(kern.manifest_path)},
                       "calls": {"kern": job_calls(calls)},
                       "errors": {"module": "kern", "out_size": 256, "failures": failures,
                                  "rounds": 30000, "after": job_calls(after)}},
                      tmp_path, "host")
    problems, worst = check_calls(result["calls"]["kern"], calls, "host ")
    assert not problems, "\n".join(problems)
    # The host's allocator served the calls, and every block came back.
    before, mid = result["before"], result["afterCalls"]
    assert mid["mallocs"] - before["mallocs"] > len(calls), (before, mid)
    assert mid["live"] == before["live"] and mid["mallocs"] - mid["frees"] == before["mallocs"] - before["frees"]
    # Before release(), call() kept one in and one out struct per entry it called.
    assert result["kept"]["mallocs"] - result["kept"]["frees"] == \
        before["mallocs"] - before["frees"] + 2 * len(KERN), (before, result["kept"])
    # The layout the host's copy of the archive was compiled with is the manifest's.
    assert result["layout"]["kern"] == manifest_table(kern.manifest)
    # Failing calls in the host's instance (its stack is wasm-ld's default
    # 64 KiB): each a ScalyWasmError, and the instance stays usable.
    errors = result["errors"]
    assert not errors["problems"], errors["problems"]
    assert errors["first"]["struct in=0"]["message"].startswith("rollout: SCALY_ERR_NULL_INPUT")
    problems, _ = check_calls(errors["after"], after, "host after errors ")
    assert not problems, "\n".join(problems)
    print(f"host: {len(calls)} calls; transcendental entries within {worst} ulp")


def test_two_modules_with_an_entry_named_step(two, tmp_path):
    wasm, alpha, beta = two
    assert alpha.manifest["entries"][0]["name"] == beta.manifest["entries"][0]["name"] == "step"
    names = function_names(wasm)
    assert {"alpha__step__struct", "beta__step__struct", "host_alpha_step", "host_beta_step"} <= names
    calls = {"alpha": [], "beta": []}
    expect = {}
    for side, fn in (("alpha", step_alpha), ("beta", step_beta)):
        for k in range(3):
            values = _inputs(f"step_{side}", RNG)
            for via in ("host_struct", "call", "pointers"):
                c = make_call(f"{side}/{via}/{k}", "step", via, values, fn=fn,
                              export=f"host_{side}_step")
                calls[side].append(c)
        expect[side] = fn
    result = run_node({"kind": "host", "wasm": str(wasm),
                       "manifests": {"alpha": str(alpha.manifest_path),
                                     "beta": str(beta.manifest_path)},
                       "calls": {s: job_calls(c) for s, c in calls.items()}}, tmp_path, "two")
    problems = []
    for side, fn in expect.items():
        by_id = {r["id"]: r for r in result["calls"][side]}
        for c in calls[side]:
            r = by_id[c["id"]]
            if "error" in r:
                problems.append(f"{c['id']}: {r['error']}")
                continue
            # alpha's step calls sin: 4 ulp; beta's is exact.
            problems += mismatches(fn, r["outputs"], native(fn, c["values"]),
                                   ULPS if side == "alpha" else 0, f"{c['id']} ")
    assert not problems, "\n".join(problems)
    assert result["after"]["live"] == result["before"]["live"]
    assert result["layout"] == {"alpha": manifest_table(alpha.manifest),
                                "beta": manifest_table(beta.manifest)}


# -- 3. marshalling -------------------------------------------------------------------------


MARSHAL_RULES = [
    (1.5, "float64"), (-0.0, "float64"), (5e-324, "float64"), (0.1, "float32"),
    (3.4028235677973366e38, "float32"), (1e-46, "float32"),
    (0, "int32"), (-2**31, "int32"), (2**31 - 1, "int32"), (123456, "int32"),
    (2**53 + 1, "int64"), (-(2**63), "int64"), (2**63 - 1, "int64"), (-(2**53) - 3, "int64"),
    (True, "bool"), (False, "bool"), (1, "bool"), (0, "bool"),
    (0, "uint32"), (2**31 - 1, "uint32"), (2**31, "uint32"), (2**31 + 4096, "uint32"),
    (2**32 - 1, "uint32"), (3_000_000_000, "uint32"),
]
#: Out of range: both sides refuse them.
MARSHAL_REFUSED = [(2**31, "int32"), (-(2**31) - 1, "int32"), (2**63, "int64"),
                   (2**32, "uint32"), (-1, "uint32"), (2, "bool")]
#: Raw results and what they mean.
MARSHAL_BACK = [(-1, "uint32"), (-(2**31), "uint32"), (2**31 - 1, "uint32"), (2, "bool"),
                (0, "bool"), (-5, "int32"), (-(2**63), "int64"), (2**53 + 1, "int64"),
                (0.1, "float64")]


def test_marshalling_every_dtype_and_memory_above_2gib(kern, tmp_path):
    # The scalar exports: f32 parameters get float64 values the engine rounds,
    # int64 goes as BigInt (beyond 2**53), bool as 0/1.
    f32_cases = [
        ("zoo", {"d": 0.1, "f": 0.1, "i": -2**30, "k": 2**62 + 12345, "b": True}),
        ("zoo", {"d": -7.25, "f": 1.0000000596046448, "i": 2**30 - 1, "k": -(2**62) - 1,
                 "b": False}),
        ("zoo", {"d": 1e-310, "f": 3.4028235e38, "i": 0, "k": 2**53 + 1, "b": 1}),  # FLT_MAX
        ("zoo", {"d": 2.0, "f": 1e39, "i": 1, "k": 0, "b": 0}),  # rounds to inf
        ("fsc", {"f": 0.1, "d": 0.0}),
        ("fsc", {"f": 16777217.0, "d": 1.0}),
        ("kscal", {"k": 2**61 + 7, "i": -5}),
        ("kscal", {"k": -(2**62) + 1, "i": 2**31 - 1}),
        ("isbig", {"x": 0.1000000001, "f": 0.1}),   # f rounds up to 0.10000000149...
        ("isbig", {"x": 0.1000000015, "f": 0.1}),
        ("hyp", {"x": 0.1, "y": 0.7}),
    ]
    scalars = []
    for k, (name, raw) in enumerate(f32_cases):
        fn = BY_NAME[name]
        # Each value travels in float64/int64 as given (float32 ports: the
        # unrounded float64), the native call gets it rounded by NumPy.
        job_inputs = {n: enc(raw[n], "int64" if d == "int64" else
                             ("bool" if d == "bool" else
                              ("int32" if d == "int32" else "float64")))
                      for n, _, d in fn.inputs}
        with np.errstate(over="ignore"):   # 1e39 becomes inf, as in the engine
            values = {n: np.asarray(raw[n]).astype(d) for n, _, d in fn.inputs}
        scalars.append({"id": f"{name}/scalar/{k}", "entry": name, "via": "scalar",
                        "inputs": job_inputs, "values": values, "fn": fn})
    # Calls whose every buffer (inputs, outputs, arg/res arrays, workspace,
    # structs) is at an address >= 2**31.
    high = []
    for name, via, work in [("rollout", "pointers", False), ("spill", "pointers", True),
                            ("spill", "struct", False), ("ints", "pointers", False),
                            ("mixlay", "struct", False), ("zoo", "struct", False),
                            ("zoo", "scalar", False), ("trans", "pointers", False),
                            ("mat", "struct", False), ("flags", "pointers", False)]:
        values = INPUTS[name][0]
        high.append(make_call(f"{name}/{via}/high", name, via, values, work=work))
    after = [make_call(f"after/{f.name}", f.name, "call", INPUTS[f.name][1]) for f in KERN]
    result = run_node({"kind": "marshal", "wasm": str(kern.wasm),
                       "manifest": str(kern.manifest_path),
                       "rules": [[str(v) if d == "int64" else v, d]
                                 for v, d in MARSHAL_RULES + MARSHAL_REFUSED],
                       "back": [[str(v) if d == "int64" else v, d] for v, d in MARSHAL_BACK],
                       "scalars": job_calls(scalars), "high": job_calls(high),
                       "after": job_calls(after)}, tmp_path, "marshal")

    # The rules: the raw value JS passes is Python's to_wasm, and back.
    js_rules = result["rules"]
    for (value, dtype), js in zip(MARSHAL_RULES, js_rules):
        raw = sw.to_wasm(value, dtype)
        assert "error" not in js, (value, dtype, js)
        if dtype.startswith("float"):   # bit for bit (-0.0 included)
            assert dec(js["bits"])[0].tobytes() == np.float64(raw).tobytes(), (value, dtype, js)
        else:
            js_raw = int(js["raw"])
            assert js_raw == raw and type(raw) is int, (value, dtype, js_raw, raw)
        back = sw.from_wasm(raw, dtype)
        if dtype.startswith("float"):
            assert float(js["back"]) == back, (value, dtype, js["back"], back)
        else:
            assert str(back).lower() == js["back"], (value, dtype, js["back"], back)
        if dtype == "uint32":
            assert back == value and -(2**31) <= raw < 2**31
    for (value, dtype), js in zip(MARSHAL_REFUSED, js_rules[len(MARSHAL_RULES):]):
        assert "error" in js, (value, dtype, js)
        with pytest.raises((OverflowError, TypeError, ValueError)):
            sw.to_wasm(value, dtype)
    for (raw, dtype), js in zip(MARSHAL_BACK, result["back"]):
        py = sw.from_wasm(raw, dtype)
        assert (int(js) if dtype == "int64" else js) == py, (raw, dtype, js, py)

    problems, _ = check_calls(result["scalars"], scalars, "scalar ")
    assert not problems, "\n".join(problems)
    by_id = {r["id"]: r for r in result["scalars"]}
    # float32 rounding happened in the engine: 0.1 -> 0.100000001490116..., 2 * that.
    assert dec(by_id["zoo/scalar/0"]["outputs"]["f2"])[0] == np.float32(0.1) * np.float32(2)
    assert dec(by_id["fsc/scalar/5"]["outputs"]["r"])[0] == np.float32(16777216.0 * 0.5)
    assert not dec(by_id["isbig/scalar/8"]["outputs"]["gt"])[0]
    assert dec(by_id["zoo/scalar/0"]["outputs"]["k2"])[0] == 2**62 + 12345 - 3

    # The memory grew past 2 GiB and every buffer of the high calls lies above 2**31.
    assert result["bytes"] >= 2**31 + 64 * 65536
    for r in result["highCalls"]:
        assert r["first"] >= 2**31 and r["last"] < 2**32, r
        assert sw.to_wasm(r["first"], "uint32") == r["first"] - 2**32 < 0
    problems, _ = check_calls(result["highCalls"], high, "above 2 GiB ")
    assert not problems, "\n".join(problems)
    # The module declares no maximum: wasm32's 4 GiB (65536 pages) is the limit.
    dump = run_tool(["wasm-objdump", "-x", kern.wasm], kern.out_dir)
    limits = re.search(r"memory\[0\] pages: initial=(\d+)(?: max=(\d+))?", dump)
    assert limits, dump
    assert limits.group(2) is None or int(limits.group(2)) == 65536, limits.group(0)
    assert result["maxPages"] == 65536, result["maxPages"]
    assert result["beyond"] != "grew"
    problems, _ = check_calls(result["after"], after, "after growing ")
    assert not problems, "\n".join(problems)


def test_python_to_wasm_takes_numpy_scalars():
    """Host values usually come out of NumPy arrays: to_wasm of a NumPy scalar
    is to_wasm of the same Python value (the raw value JS passes, checked
    above)."""
    types = {"float64": np.float64, "float32": np.float32, "int32": np.int32,
             "int64": np.int64, "bool": np.bool_, "uint32": np.uint32}
    problems = []
    for value, dtype in MARSHAL_RULES:
        with np.errstate(over="ignore"):
            np_value = types[dtype](value)
        expected = sw.to_wasm(value if dtype != "float32" else float(np_value), dtype)
        try:
            got = sw.to_wasm(np_value, dtype)
        except Exception as e:  # noqa: BLE001 -- reported below
            problems.append(f"to_wasm({np_value!r}, {dtype!r}) raised {type(e).__name__}: {e}")
            continue
        if got != expected or type(got) is not type(expected):
            problems.append(f"to_wasm({np_value!r}, {dtype!r}) = {got!r}, expected {expected!r}")
    assert not problems, "\n".join(problems)


# -- 4. layout ---------------------------------------------------------------------------------


C_BYTES = {"double": 8, "float": 4, "int32_t": 4, "int64_t": 8, "uint8_t": 1}


def manifest_table(manifest):
    return [{"size": s["size"], "align": s["align"], "offsets": [f["offset"] for f in s["fields"]],
             "sizes": [f["count"] * C_BYTES[f["c_type"]] for f in s["fields"]]}
            for e in manifest["entries"] for s in (e["structs"]["in"], e["structs"]["out"])]


def test_layout_table_matches_manifest(kern, tmp_path):
    m = kern.manifest
    result = run_node({"kind": "layout", "wasm": str(kern.wasm), "manifest": str(kern.manifest_path)},
                      tmp_path, "layout")
    table = result["table"]
    assert len(table) == 2 * len(m["entries"])
    expected = manifest_table(m)
    for e, (t_in, t_out), (x_in, x_out) in zip(m["entries"], zip(table[::2], table[1::2]),
                                                zip(expected[::2], expected[1::2])):
        assert t_in == x_in, (e["name"], "in", t_in, x_in)
        assert t_out == x_out, (e["name"], "out", t_out, x_out)
    # The manifest's structs are calc_layout's, from the ports.
    for e in m["entries"]:
        for side, ports in (("in", e["inputs"]), ("out", e["outputs"])):
            offsets, size, align = sw.typed_struct_layout(ports)
            s = e["structs"][side]
            assert (s["size"], s["align"]) == (size, align), (e["name"], side)
            assert {f["field"]: f["offset"] for f in s["fields"]} == \
                {k: v for k, v in offsets.items() if k != "unused_"}
            counts = {p["field"]: int(np.prod(p["shape"], dtype=np.int64)) for p in ports}
            assert all(f["count"] == counts[f["field"]] for f in s["fields"])
    # The mixes the test is after: padding before int64/double, bool arrays,
    # a three-dimensional port.
    mix = next(e for e in m["entries"] if e["name"] == "mixlay")["structs"]
    assert [(f["field"], f["offset"], f["count"]) for f in mix["in"]["fields"]] == \
        [("flag", 0, 3), ("big", 8, 2), ("small", 24, 3), ("grid", 40, 12), ("last", 136, 1)]
    assert (mix["in"]["size"], mix["in"]["align"]) == (144, 16)
    assert [(f["field"], f["offset"]) for f in mix["out"]["fields"]] == \
        [("o1", 0), ("o2", 12), ("o3", 24), ("o4", 32)]
    zoo_in = next(e for e in m["entries"] if e["name"] == "zoo")["structs"]["in"]
    assert [f["offset"] for f in zoo_in["fields"]] == [0, 8, 12, 16, 24] and zoo_in["size"] == 32
    pad_in = next(e for e in m["entries"] if e["name"] == "pad")["structs"]["in"]
    assert [f["field"] for f in pad_in["fields"]] == ["x"]   # the empty port has no field


# -- 5. errors ----------------------------------------------------------------------------------


def test_errors_raise_and_leave_the_instance_usable(kern, tmp_path):
    single = [
        {"label": "rollout struct in=0", "export": "kern__rollout__struct", "args": ["OUT", 0]},
        {"label": "zoo struct in=0", "export": "kern__zoo__struct", "args": ["OUT", 0]},
        {"label": "mixlay struct in=0", "export": "kern__mixlay__struct", "args": ["OUT", 0],
         "out_size": 256},
        {"label": "rollout struct out=0", "export": "kern__rollout__struct", "args": [0, "OUT"],
         "out_size": 512},
        {"label": "rollout pointers arg=0", "export": "kern__rollout", "args": [0, "OUT", 0, 0, 0]},
        {"label": "rollout pointers res=0", "export": "kern__rollout", "args": ["OUT", 0, 0, 0, 0]},
        {"label": "spill pointers arg=0", "export": "kern__spill", "args": [0, "OUT", 0, 0, 0]},
    ]
    expected = {
        "rollout struct in=0": (4, "rollout", "SCALY_ERR_NULL_INPUT"),
        "zoo struct in=0": (4, "zoo", "SCALY_ERR_NULL_INPUT"),
        "mixlay struct in=0": (4, "mixlay", "SCALY_ERR_NULL_INPUT"),
        "rollout struct out=0": (3, "rollout", "SCALY_ERR_NULL_RESULT"),
        "rollout pointers arg=0": (1, "rollout", "SCALY_ERR_NULL_ABI"),
        "rollout pointers res=0": (1, "rollout", "SCALY_ERR_NULL_ABI"),
        "spill pointers arg=0": (1, "spill", "SCALY_ERR_NULL_ABI"),
    }
    failures = [
        {"label": "rollout struct in=0", "export": "kern__rollout__struct", "args": ["OUT", 0],
         "status": 4},
        {"label": "hyp pointers arg=0", "export": "kern__hyp", "args": [0, "OUT", 0, 0, 0],
         "status": 1},
        {"label": "zoo struct out=0", "export": "kern__zoo__struct", "args": [0, "OUT"],
         "status": 3},
        {"label": "spill struct in=0", "export": "kern__spill__struct", "args": ["OUT", 0],
         "status": 4},
        {"label": "mixlay struct in=0", "export": "kern__mixlay__struct", "args": ["OUT", 0],
         "status": 4},
    ]
    after = []
    for f in KERN:
        e = next(x for x in kern.manifest["entries"] if x["name"] == f.name)
        vias = ["call", "pointers"] + (["scalar"] if e["exports"]["scalar"] else [])
        for via in vias:
            after.append(make_call(f"after/{f.name}/{via}", f.name, via, INPUTS[f.name][2]))
    result = run_node({"kind": "errors", "wasm": str(kern.wasm), "manifest": str(kern.manifest_path),
                       "single": single, "failures": failures, "rounds": 100000, "out_size": 256,
                       "after": job_calls(after)}, tmp_path, "errors")
    for r in result["single"]:
        status, entry, name = expected[r["label"]]
        err = r.get("error")
        assert err, f"{r['label']}: no error"
        assert err["isScalyWasmError"] and err["name"] == "ScalyWasmError", (r["label"], err)
        assert err["status"] == status and err["statusName"] == name, (r["label"], err)
        assert err["message"].startswith(f"{entry}: {name}"), (r["label"], err["message"])
    loop = result["loop"]
    assert not loop["problems"], loop["problems"]
    assert set(loop["first"]) == {f["label"] for f in failures}
    assert loop["first"]["hyp pointers arg=0"]["message"].startswith("hyp: SCALY_ERR_NULL_ABI")
    problems, _ = check_calls(result["after"], after, "after 100000 errors ")
    assert not problems, "\n".join(problems)
    print(f"errors: 100000 failing calls in {result['ms']} ms")


def _doubling(name):
    """x * 2 as an entry named `name`."""
    def body(x):
        return x * 2.0
    body.__name__ = body.__qualname__ = name
    return sc.function(sc.arg("x", 3), outputs=sc.arg("y"))(body)


def test_error_messages_are_entry_and_status_cut_at_160_bytes(env, tmp_path):
    """The message is "<entry>: <status name> (<meaning>)" (docs/wasm.md, Errors), its
    first 160 bytes (the shim's buffer): entry names of 1, 120 and 170 characters cut
    nothing, the status text and the entry name; three statuses through three exports."""
    names = ["e", "m" * 120, "l" * 170]
    built = sw.build([_doubling(n) for n in names], tmp_path / "msg", name="msg",
                     cache_dir=env / "cache")
    calls = [(n, f"msg__{n}", [0, "OUT", 0, 0, 0]) for n in names]
    calls += [("e", "msg__e__struct", ["OUT", 0]), ("e", "msg__e__struct", [0, "OUT"])]
    single = [{"label": f"{k}", "export": export, "args": args}
              for k, (_, export, args) in enumerate(calls)]
    result = run_node({"kind": "errors", "wasm": str(built.wasm),
                       "manifest": str(built.manifest_path), "single": single, "failures": [],
                       "rounds": 0, "out_size": 64, "after": []}, tmp_path, "messages")
    codes = {c["value"]: c for c in built.manifest["status_codes"]}
    seen = set()
    for (entry, export, _), r in zip(calls, result["single"]):
        err = r["error"]
        code = codes[err["status"]]
        expected = f"{entry}: {code['name']} ({code['meaning']})".encode()[:160].decode()
        assert err["isScalyWasmError"] and err["message"] == expected, (export, err)
        seen.add(code["name"])
    assert seen == {"SCALY_ERR_NULL_ABI", "SCALY_ERR_NULL_INPUT", "SCALY_ERR_NULL_RESULT"}


# -- 6. signature check ---------------------------------------------------------------------------


def _ports(ports):
    return [[n, list(s), d] for n, s, d in ports]


def _hyp_changed():
    @sc.function(sc.arg("x", (), dtype="float32"), sc.arg("y", ()), outputs=sc.arg("r"))
    def hyp(x, y):
        return sc.sqrt(x * x + y * y)
    return hyp


#: An entry `hyp` whose first input changed dtype since the module was built.
hyp_changed = _hyp_changed()


def test_signature_check(kern, tmp_path):
    checks = [{"id": f"match/{f.name}", "name": f.name,
               "expected": {"inputs": _ports(f.inputs), "outputs": _ports(f.outputs)}} for f in KERN]
    base = {"inputs": _ports(rollout.inputs), "outputs": _ports(rollout.outputs)}

    def variant(id_, **change):
        checks.append({"id": id_, "name": change.pop("name", "rollout"),
                       "expected": {**base, **change}})

    variant("shape", inputs=[["zs", [21], "float64"], ["us", [10], "float64"]])
    variant("shape 2-d", inputs=[["zs", [10, 2], "float64"], ["us", [10], "float64"]])
    variant("dtype", inputs=[["zs", [20], "float32"], ["us", [10], "float64"]])
    variant("port name", inputs=[["z", [20], "float64"], ["us", [10], "float64"]])
    variant("order", inputs=[["us", [10], "float64"], ["zs", [20], "float64"]])
    variant("missing input", inputs=[["zs", [20], "float64"]])
    variant("output dtype", outputs=[["zn", [20], "float32"]])
    variant("output name", outputs=[["out", [20], "float64"]])
    variant("extra output", outputs=[["zn", [20], "float64"], ["e", [], "float64"]])
    variant("no such entry", name="rollout2")
    checks.append({"id": "scalar shape", "name": "hyp",
                   "expected": {"inputs": [["x", [1], "float64"], ["y", [], "float64"]],
                                "outputs": [["r", [], "float64"]]}})
    checks.append({"id": "hyp changed", "name": "hyp",
                   "expected": {"inputs": _ports(hyp_changed.inputs),
                                "outputs": _ports(hyp_changed.outputs)}})
    checks.append({"id": "no expectation", "name": "zoo", "expected": None})
    result = run_node({"kind": "signature", "wasm": str(kern.wasm),
                       "manifest": str(kern.manifest_path), "checks": checks}, tmp_path, "signature")
    for c, r in zip(checks, result["checks"]):
        assert r["id"] == c["id"]
        if c["id"].startswith("match/") or c["id"] == "no expectation":
            assert r["ok"] and r["entry"] == c["name"], r
        else:
            assert not r["ok"], (c["id"], r)
            assert r["error"]["isSignatureError"] and r["error"]["name"] == "SignatureError", r
            if c["id"] != "no such entry":
                assert "kernel out of sync" in r["error"]["message"], r
    # Python's check agrees: the manifest's entries match the functions, and
    # a changed function of the same name is refused.
    for f in KERN:
        assert sw.check_signature(kern.manifest, f)["name"] == f.name
    with pytest.raises(sw.SignatureError, match="kernel out of sync"):
        sw.check_signature(kern.manifest, hyp_changed)
