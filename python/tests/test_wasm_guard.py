"""scaly_wasm.mjs in Node.js 20: the run-time layout guard that instantiate()
and ScalyKernels run by default (issue 32), call()'s kept structs and `into`,
and a 64 x 64 matmul widened into SIMD128.

The guard's case is the one reported: a manifest of a 4-element build paired
with the binary of an 8-element build of the same module ran silently and
returned wrong values."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
import scaly.wasm as sw

RUNTIME = Path(sw.__file__).parent / "js" / "scaly_wasm.mjs"


def _scale(n, m=None):
    @sc.function(sc.arg("x", n), sc.arg("w", m or n), outputs=sc.arg("y"))
    def scale(x, w):
        return w.sum() * x + 1.0 if m else w * x + 1.0
    return scale


@sc.function(sc.arg("A", (64, 64)), sc.arg("B", (64, 64)), outputs=sc.arg("C"))
def matmul(A, B):
    return A @ B


@sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=(sc.arg("zn"), sc.arg("total")))
def two(zs, us):
    return zs * 2.0 - 1.0, us.sum()


@pytest.fixture(scope="module")
def builds(tmp_path_factory):
    if not shutil.which("node") or not shutil.which("clang-19"):
        pytest.fail("node and clang-19 are needed (scripts/setup.sh installs them)")
    out = tmp_path_factory.mktemp("guard")
    cache = tmp_path_factory.mktemp("cache")
    return {
        "m4": sw.build(_scale(4), out / "m4", name="m", cache_dir=cache),
        "m8": sw.build(_scale(8), out / "m8", name="m", cache_dir=cache),
        # The last field 3 values, not 4: the same sizeof (padded to 16), other bytes.
        "m43": sw.build(_scale(4, 3), out / "m43", name="m", cache_dir=cache),
        "m44": sw.build(_scale(4, 4), out / "m44", name="m", cache_dir=cache),
        "two": sw.build(two, out / "two", cache_dir=cache),
        "mm1": sw.build(matmul, out / "mm1", name="mm1", cache_dir=cache),
        "mm2": sw.build(matmul, out / "mm2", name="mm2", lanes=2, cache_dir=cache),
    }


def node(tmp_path, body, *args):
    script = tmp_path / "run.mjs"
    script.write_text(f"""
import {{ readFileSync }} from "node:fs";
import * as rt from "{RUNTIME.as_uri()}";
const {{ instantiate, ScalyKernels, scalyImports, LayoutError }} = rt;
const read = (p) => JSON.parse(readFileSync(p, "utf8"));
const out = {{}};
{body}
console.log(JSON.stringify(out));
""")
    p = subprocess.run(["node", str(script), *map(str, args)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


GUARD = """
const [manifestPath, wasmPath, values] = [process.argv[2], process.argv[3], JSON.parse(process.argv[4])];
const manifest = read(manifestPath), bytes = readFileSync(wasmPath);
const attempt = async (f) => {
  try { return { value: await f() }; }
  catch (e) { return { error: e.name, message: e.message, isLayoutError: e instanceof LayoutError }; }
};
out.default = await attempt(async () => Array.from((await instantiate(bytes, manifest)).call("scale", values).y));
out.optOut = await attempt(async () =>
  Array.from((await instantiate(bytes, manifest, {}, { checkLayout: false })).call("scale", values).y));
// A host's own instance: ScalyKernels checks as well (unless told not to).
const state = {};
const { instance } = await WebAssembly.instantiate(bytes, scalyImports(state));
instance.exports._initialize();
out.kernels = await attempt(async () => new ScalyKernels(instance.exports, manifest, state) && "constructed");
out.kernelsOptOut = await attempt(async () =>
  new ScalyKernels(instance.exports, manifest, state, { checkLayout: false }) && "constructed");
"""


def test_reported_case_4_element_manifest_with_8_element_binary(builds, tmp_path):
    m4, m8 = builds["m4"], builds["m8"]
    values = {"x": [1, 2, 3, 4], "w": [2, 2, 2, 2]}
    # Paired right: the guard passes and the values are the JIT's.
    right = node(tmp_path, GUARD, m4.manifest_path, m4.wasm, json.dumps(values))
    expected = _scale(4)(np.array(values["x"], float), np.array(values["w"], float))
    assert right["default"]["value"] == expected.tolist() == [3, 5, 7, 9]
    assert right["kernels"]["value"] == "constructed"
    # The reported pairing: refused by default, naming the first field that differs.
    wrong = node(tmp_path, GUARD, m4.manifest_path, m8.wasm, json.dumps(values))
    for how in ("default", "kernels"):
        assert wrong[how]["isLayoutError"], wrong[how]
        message = wrong[how]["message"]
        assert "scale_in.x (entry scale, input x) is at bytes [0, 64) in the binary but at bytes " \
               "[0, 32) in the manifest (4 float64 values)" in message, message
        assert "m__scaly_layout" in message and "checkLayout: false" in message
    # The opt-out runs the call as before the guard: silently wrong (w read from x's tail).
    assert wrong["optOut"]["value"] != expected.tolist()
    assert wrong["kernelsOptOut"]["value"] == "constructed"


def test_guard_sees_a_count_hidden_by_padding(builds, tmp_path):
    # w of 3 values against 4: both structs are 64 bytes, only the field's size differs.
    b43, b44 = builds["m43"], builds["m44"]
    assert b43.manifest["entries"][0]["structs"]["in"]["size"] == \
        b44.manifest["entries"][0]["structs"]["in"]["size"]
    got = node(tmp_path, GUARD, b44.manifest_path, b43.wasm,
               json.dumps({"x": [1, 2, 3, 4], "w": [1, 1, 1, 1]}))
    assert got["default"]["isLayoutError"]
    assert "scale_in.w_ (entry scale, input w) is at bytes [32, 56) in the binary but at bytes " \
           "[32, 64) in the manifest (4 float64 values)" in got["default"]["message"]


def test_guard_names_a_missing_struct(builds, tmp_path):
    # A manifest with one more entry than the binary: no struct for it in the table.
    manifest = json.loads(builds["m4"].manifest_path.read_text())
    extra = json.loads(json.dumps(manifest["entries"][0]))
    extra["name"] = "again"
    extra["structs"]["in"]["c_name"] = "again_in"
    manifest["entries"].append(extra)
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    got = node(tmp_path, GUARD, path, builds["m4"].wasm, json.dumps({"x": [1, 2, 3, 4], "w": [1] * 4}))
    assert got["default"]["isLayoutError"]
    assert "it has 2 typed structs, the manifest 4: none for again_in (entry again)" in \
        got["default"]["message"]


CALLS = """
const b = read(process.argv[2]);
let allocs = 0, frees = 0;
const bytes = readFileSync(process.argv[3]);
const state = {};
const { instance } = await WebAssembly.instantiate(bytes, scalyImports(state));
const x = instance.exports;
x._initialize();
const k = new ScalyKernels(x, b, state, {
  alloc: (n) => { ++allocs; return x.scaly_alloc(n) >>> 0; },
  free: (p) => { ++frees; x.scaly_free(p); },
});
const zs = Array.from({ length: 20 }, (_, i) => i / 7), us = Array.from({ length: 10 }, (_, i) => i - 4.5);
const first = k.call("two", { zs, us });
for (let i = 0; i < 100; ++i) k.call("two", { zs, us });
out.allocsAfter101 = allocs;
// Memory grows between calls (the kept structs' views are made again).
const pages = x.memory.buffer.byteLength / 65536;
k.alloc(4 << 20);
out.grew = x.memory.buffer.byteLength / 65536 > pages;
const typed = k.call("two", { zs: Float64Array.from(zs), us: Float64Array.from(us) });
const into = { zn: new Float64Array(20), total: new Float64Array(1) };
const r = k.call("two", { zs, us }, into);
out.intoSame = r.zn === into.zn && r.total === into.total;
out.first = { zn: Array.from(first.zn), total: Array.from(first.total) };
out.typed = { zn: Array.from(typed.zn), total: Array.from(typed.total) };
out.into = { zn: Array.from(into.zn), total: Array.from(into.total) };
// The results are copies: a later call with other inputs leaves them alone.
k.call("two", { zs: new Array(20).fill(0), us: new Array(10).fill(0) });
out.firstAfter = Array.from(first.zn);
out.errors = [];
for (const bad of [{ zs: [...zs.slice(1), "1"], us }, { zs: zs.slice(1), us }, { zs }]) {
  try { k.call("two", bad); out.errors.push("none"); } catch (e) { out.errors.push(`${e.name}: ${e.message}`); }
}
try { k.call("two", { zs, us }, { zn: new Float32Array(20) }); } catch (e) { out.errors.push(`${e.name}: ${e.message}`); }
k.release();
out.freesAfterRelease = frees;
out.again = Array.from(k.call("two", { zs, us }).zn);
out.allocsAtEnd = allocs;
"""


def test_call_keeps_its_structs_and_writes_into(builds, tmp_path):
    b = builds["two"]
    got = node(tmp_path, CALLS, b.manifest_path, b.wasm)
    zs, us = np.arange(20) / 7, np.arange(10) - 4.5
    zn, total = two(zs, us)
    want = {"zn": zn.tolist(), "total": [float(total)]}
    assert got["first"] == got["typed"] == got["into"] == want
    assert got["firstAfter"] == want["zn"] and got["again"] == want["zn"]
    assert got["allocsAfter101"] == 2, "call() allocates its two structs once"
    assert got["grew"] and got["intoSame"]
    assert got["errors"] == [
        "TypeError: a float64 value must be a number, got string",
        "TypeError: two: input zs has 19 values, expected 20",
        "TypeError: two: missing input us",
        "TypeError: two: into.zn must be a Float64Array of 20 values",
    ]
    # release() frees the two structs; the next call allocates them again.
    assert got["freesAfterRelease"] == 2 and got["allocsAtEnd"] == 2 + 1 + 2


SIMD = """
const result = {};
for (const [name, manifestPath, wasmPath] of [["mm1", process.argv[2], process.argv[3]],
                                              ["mm2", process.argv[4], process.argv[5]]]) {
  const k = await instantiate(readFileSync(wasmPath), read(manifestPath));
  const inputs = read(process.argv[6]);
  result[name] = Array.from(k.call("matmul", { A: Float64Array.from(inputs.A), B: Float64Array.from(inputs.B) }).C);
}
out.result = result;
"""


def test_matmul_with_simd128_lanes_runs_in_node(builds, tmp_path):
    mm1, mm2 = builds["mm1"], builds["mm2"]
    assert "-msimd128" in mm2.manifest["compile_flags"]
    assert "-msimd128" not in mm1.manifest["compile_flags"]
    code = {k: subprocess.run(["wasm-objdump", "-d", str(b.wasm)], capture_output=True, text=True,
                              check=True).stdout for k, b in (("mm1", mm1), ("mm2", mm2))}
    # Clang's loop vectorizer turns the matmul helper's inner loop into f64x2.
    assert "f64x2.mul" in code["mm2"] and "f64x2.add" in code["mm2"]
    assert "f64x2" not in code["mm1"]
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((64, 64)), rng.standard_normal((64, 64))
    (tmp_path / "in.json").write_text(json.dumps({"A": A.ravel().tolist(), "B": B.ravel().tolist()}))
    got = node(tmp_path, SIMD, mm1.manifest_path, mm1.wasm, mm2.manifest_path, mm2.wasm,
               tmp_path / "in.json")["result"]
    native = matmul(A, B).ravel()
    # The same sums in the same order, lane by lane: the native JIT's bits.
    np.testing.assert_array_equal(np.array(got["mm1"]), native)
    np.testing.assert_array_equal(np.array(got["mm2"]), native)
