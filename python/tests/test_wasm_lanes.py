"""scaly.wasm.build(lanes=2 or 4): loops widened into WebAssembly's 128-bit SIMD
(-msimd128), run by Node.js's engine and compared with the native JIT."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
import scaly.wasm as sw

RUNTIME = Path(sw.__file__).parent / "js" / "scaly_wasm.mjs"


@sc.function(sc.arg("x", 64), sc.arg("y", 64), outputs=sc.arg("z"))
def wave(x, y):
    return (x * 2.0 + y).sin()


@sc.function(sc.arg("x", 64), sc.arg("y", 64), outputs=sc.arg("z"))
def arith(x, y):
    return (x * y - 1.5) / (y * y + 2.0) + x


@sc.function(sc.arg("a", 40, dtype="float32"), outputs=sc.arg("b"))
def single(a):
    return a * a * 0.5 - a / (a * a + 1.0)


def _ulps(a, b):
    bits = {np.dtype(np.float64): np.int64, np.dtype(np.float32): np.int32}[a.dtype]
    ia, ib = a.view(bits).astype(np.int64), b.view(bits).astype(np.int64)
    return int(np.max(np.abs(ia - ib)))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not shutil.which("node") or not shutil.which("clang-19"):
        pytest.fail("node and clang-19 are needed (scripts/setup.sh installs them)")
    out = tmp_path_factory.mktemp("lanes")
    cache = tmp_path_factory.mktemp("cache")
    return {lanes: sw.build([wave, arith, single], out / f"l{lanes}", name=f"simd{lanes}",
                            lanes=lanes, cache_dir=cache) for lanes in (1, 2, 4)}


def _run(b, inputs, tmp_path):
    script = tmp_path / "run.mjs"
    script.write_text(f"""
import {{ readFileSync }} from "node:fs";
import {{ instantiate }} from "{RUNTIME.as_uri()}";
const manifest = JSON.parse(readFileSync(process.argv[2], "utf8"));
const k = await instantiate(readFileSync(process.argv[3]), manifest);
const inputs = JSON.parse(readFileSync(process.argv[4], "utf8"));
const out = {{}};
for (const [name, values] of Object.entries(inputs)) {{
  const r = k.call(name, values);
  out[name] = Object.fromEntries(Object.entries(r).map(([n, v]) => [n, Array.from(v)]));
}}
console.log(JSON.stringify(out));
""")
    (tmp_path / "inputs.json").write_text(json.dumps(inputs))
    p = subprocess.run(["node", str(script), str(b.manifest_path), str(b.wasm),
                        str(tmp_path / "inputs.json")], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_lanes_use_simd_and_match_the_jit(built, tmp_path):
    rng = np.random.default_rng(7)
    x, y = rng.uniform(-3, 3, 64), rng.uniform(0.5, 4, 64)
    a = rng.uniform(-2, 2, 40).astype(np.float32)
    inputs = {"wave": {"x": x.tolist(), "y": y.tolist()},
              "arith": {"x": x.tolist(), "y": y.tolist()},
              "single": {"a": [float(v) for v in a]}}
    native = {"wave": wave(x, y), "arith": arith(x, y), "single": single(a)}
    for lanes, b in built.items():
        assert b.manifest["recipe"].count(f"lanes={lanes},") == 1
        assert ("-msimd128" in b.manifest["compile_flags"]) == (lanes > 1)
        code = subprocess.run(["wasm-objdump", "-d", str(b.wasm)], capture_output=True,
                              text=True, check=True).stdout
        assert ("f64x2" in code) == (lanes > 1), f"lanes={lanes}: SIMD instructions"
        got = _run(b, inputs, tmp_path)
        for name, want in native.items():
            w = np.asarray(got[name][("z" if name != "single" else "b")], dtype=want.dtype)
            if name == "wave":  # wasi-libc's sin against glibc's
                assert _ulps(w, want) <= 4, (lanes, name)
            else:  # exact arithmetic: the same bits
                np.testing.assert_array_equal(w, want, err_msg=f"lanes={lanes} {name}")


def test_lanes_builds_differ_and_are_cached_apart(built):
    keys = {b.manifest["cache_key"] for b in built.values()}
    assert len(keys) == 3
    assert built[1].archive.read_bytes() != built[2].archive.read_bytes()


@pytest.mark.parametrize("lanes", [0, 3, 8, "2", 2.0, True])
def test_lanes_must_be_1_2_or_4(lanes, tmp_path):
    with pytest.raises(ValueError, match="lanes=.* is not one of 1, 2, 4"):
        sw.build(arith, tmp_path / "o", lanes=lanes, cache_dir=tmp_path / "c")
