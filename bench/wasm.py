"""WebAssembly benchmark: Scaly kernels called in a wasm32 instance (Node.js) next to the native JIT.

    PYTHONPATH=python SCALY_BUILD_DIR=build /usr/bin/python3 bench/wasm.py [--repeat N]

One run, on a fresh cache (a temporary SCALY_CACHE_DIR): one scaly.wasm.build
of three entries (module `bench`), the same three Functions compiled by the
JIT, then every path below timed round-robin, sample by sample (median of
--repeat samples of >= ~20 ms of calls each), the Node.js ones in one Node
process and the native ones in this one. Models:

  f          f(x, y) = x*y + 1.0, all scalars (a direct scalar export)
  rollout    the seed's rollout (docs/generated-code.md): euler .block()ed,
             vmapped over N = 10 stages
  rollout_long  the same over N = 1000 stages

(a) the call cost of f, per call, in ns:
  JS function       (x, y) => x * y + 1 in the same Node loop
  wasm, by hand     a hand-assembled wasm export computing x*y + 1 (what any
                    export of this arithmetic costs: the JS -> wasm boundary)
  wasm, empty       a hand-assembled export () -> () doing nothing
  scalar export     bench__f__scalar(x, y), the shim's direct scalar export
  runtime scalar()  ScalyKernels.scalar("f", x, y) of scaly_wasm.mjs (entry
                    lookup, marshalling, error handling around the call)
  JIT from Python   f(x, y) with Python floats, the native Kernel (timeit)
  JIT kernel in C   the JIT's own machine code for f, called through a function
                    pointer in a C loop (compiled in process with the JIT's flags;
                    the address is the one the Function's Kernel calls)

(b) the rollouts, per call (and per stage), through
  pointer export    bench__<entry>(arg, res, 0, 0, 0) on buffers allocated once
                    in the instance's memory (no copy per call)
  struct export     bench__<entry>__struct(out, in) on preallocated structs
  runtime call()    ScalyKernels.call(...): allocates the structs, copies the
                    inputs in and the outputs out, frees, per call
  JIT from Python   rollout(zs, us) on NumPy arrays (returns a new array)
  JIT kernel in C   as in (a)

The wasm module is built for wasm32 at -O2, lanes=1, generic (no simd128);
the JIT renders the host recipe (-march=native, its lanes and libmvec), but a
map over a .block()ed function is a loop of calls, which stays scalar, so
both run the same scalar loop here. Every wasm result is checked against the
JIT's (rtol 1e-13: wasi-libc's sin is not glibc's), and `max|d|` printed.
`ratio` is each time over the wasm pointer (or scalar) export's.
"""

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

os.environ["SCALY_CACHE_DIR"] = tempfile.mkdtemp(prefix="scaly-bench-wasm-")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import numpy as np  # noqa: E402

import scaly as sc  # noqa: E402
import scaly.wasm  # noqa: E402
from scaly import _scaly  # noqa: E402
from scaly.runtime import jit  # noqa: E402

RUNTIME_JS = os.path.join(os.path.dirname(os.path.abspath(scaly.wasm.__file__)), "js",
                          "scaly_wasm.mjs")
N_SHORT, N_LONG = 10, 1000
RTOL = 1e-13


# -- models ---------------------------------------------------------------------

@sc.function(sc.arg("x", ()), sc.arg("y", ()), outputs=sc.arg("r"))
def f(x, y):
    return x * y + 1.0


@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
def euler(z, u):
    return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()


@sc.function(sc.arg("zs", 2 * N_SHORT), sc.arg("us", N_SHORT), outputs=sc.arg("zn"))
def rollout(zs, us):
    return sc.vmap(euler, N_SHORT)(zs.reshape((N_SHORT, 2)), us).vec()


@sc.function(sc.arg("zs", 2 * N_LONG), sc.arg("us", N_LONG), outputs=sc.arg("zn"))
def rollout_long(zs, us):
    return sc.vmap(euler, N_LONG)(zs.reshape((N_LONG, 2)), us).vec()


# -- the Node.js side -------------------------------------------------------------

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { instantiate } from "__RUNTIME__";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const manifest = JSON.parse(readFileSync(cfg.manifest, "utf8"));
const bytes = readFileSync(cfg.wasm);

let t0 = process.hrtime.bigint();
const k = await instantiate(bytes, manifest);
const instantiateMs = Number(process.hrtime.bigint() - t0) / 1e6;
const ex = k.exports;

// A module assembled by hand: mul_add(x, y) = x*y + 1 (f64) and nop().
function handModule() {
  const section = (id, body) => [id, body.length, ...body];
  const name = (s) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  const one = Array.from(new Uint8Array(new Float64Array([1.0]).buffer));
  const mulAdd = [0x00, 0x20, 0x00, 0x20, 0x01, 0xa2, 0x44, ...one, 0xa0, 0x0b];
  const nop = [0x00, 0x0b];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 2, 0x7c, 0x7c, 1, 0x7c, 0x60, 0, 0]),
    ...section(3, [2, 0, 1]),
    ...section(7, [2, ...name("mul_add"), 0, 0, ...name("nop"), 0, 1]),
    ...section(10, [2, mulAdd.length, ...mulAdd, nop.length, ...nop]),
  ]);
}
const hand = (await WebAssembly.instantiate(handModule())).instance.exports;

// Each loop is its own function literal (new Function), so that every call
// site sees one callee.
const scalarLoop = () => new Function("fn", "n",
  "let s = 0; for (let i = 0; i < n; ++i) s += fn(i * 1e-6, 1.0000001); return s;");
const runtimeLoop = () => new Function("k", "n",
  "let s = 0; for (let i = 0; i < n; ++i) s += k.scalar('f', i * 1e-6, 1.0000001); return s;");
const nopLoop = () => new Function("fn", "n", "for (let i = 0; i < n; ++i) fn(); return 0;");
const ptrLoop = () => new Function("fn", "a", "r", "n",
  "for (let i = 0; i < n; ++i) fn(a, r, 0, 0, 0); return 0;");
const structLoop = () => new Function("fn", "o", "p", "n",
  "for (let i = 0; i < n; ++i) fn(o, p); return 0;");
const callLoop = () => new Function("k", "name", "inputs", "n",
  "let s = 0; for (let i = 0; i < n; ++i) s += k.call(name, inputs).zn[0]; return s;");

// Preallocated buffers for the pointer and struct exports of each rollout.
function buffers(entry, zs, us) {
  const e = k.entry(entry);
  const pzs = k.alloc(8 * zs.length), pus = k.alloc(8 * us.length), pzn = k.alloc(8 * zs.length);
  const parg = k.alloc(8), pres = k.alloc(4);
  const pin = k.alloc(e.structs.in.size), pout = k.alloc(e.structs.out.size);
  const off = (s, field) => s.fields.find((f) => f.field === field).offset;
  const mem = () => ex.memory.buffer;  // after every alloc (memory may have grown)
  new Float64Array(mem(), pzs, zs.length).set(zs);
  new Float64Array(mem(), pus, us.length).set(us);
  new Uint32Array(mem(), parg, 2).set([pzs, pus]);
  new Uint32Array(mem(), pres, 1).set([pzn]);
  new Float64Array(mem(), pin + off(e.structs.in, "zs"), zs.length).set(zs);
  new Float64Array(mem(), pin + off(e.structs.in, "us"), us.length).set(us);
  return {
    parg, pres, pin, pout,
    ptrOut: () => Array.from(new Float64Array(mem(), pzn, zs.length)),
    structOut: () => Array.from(new Float64Array(mem(), pout + off(e.structs.out, "zn"), zs.length)),
  };
}

const cases = {};
const add = (label, run) => (cases[label] = { run, number: 1, samples: [] });
add("js", ((L) => (n) => L((x, y) => x * y + 1, n))(scalarLoop()));
add("hand", ((L) => (n) => L(hand.mul_add, n))(scalarLoop()));
add("nop", ((L) => (n) => L(hand.nop, n))(nopLoop()));
add("scalar", ((L) => (n) => L(ex.bench__f__scalar, n))(scalarLoop()));
add("runtime_scalar", ((L) => (n) => L(k, n))(runtimeLoop()));
const outputs = {};
for (const [entry, data] of Object.entries(cfg.rollouts)) {
  const b = buffers(entry, data.zs, data.us);
  const fnPtr = ex[`bench__${entry}`], fnStruct = ex[`bench__${entry}__struct`];
  add(`${entry}:ptr`, ((L) => (n) => L(fnPtr, b.parg, b.pres, n))(ptrLoop()));
  add(`${entry}:struct`, ((L) => (n) => L(fnStruct, b.pout, b.pin, n))(structLoop()));
  const inputs = { zs: data.zs, us: data.us };
  add(`${entry}:call`, ((L) => (n) => L(k, entry, inputs, n))(callLoop()));
  fnPtr(b.parg, b.pres, 0, 0, 0);
  fnStruct(b.pout, b.pin);
  outputs[entry] = { ptr: b.ptrOut(), struct: b.structOut(), call: Array.from(k.call(entry, inputs).zn) };
}
outputs.f = { scalar: ex.bench__f__scalar(1.5, 2.0), runtime: k.scalar("f", 1.5, 2.0) };

const sample = (c) => {
  const t = process.hrtime.bigint();
  c.run(c.number);
  return Number(process.hrtime.bigint() - t) / c.number;
};
for (const c of Object.values(cases)) {  // warm up (tiering), then calibrate to >= 20 ms
  for (let w = 0; w < 3; ++w) c.run(2000);
  while (sample(c) * c.number < 2e7 && c.number < 1 << 26) c.number *= 4;
}
for (let r = 0; r < cfg.repeat; ++r)
  for (const c of Object.values(cases)) c.samples.push(sample(c));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const ns = Object.fromEntries(Object.entries(cases).map(([l, c]) => [l, median(c.samples)]));
console.log(JSON.stringify({ node: process.version, instantiateMs, ns, outputs }));
"""


def run_node(build, rollouts, repeat, workdir):
    node = shutil.which("node")
    if node is None:
        sys.exit("bench/wasm.py: node (Node.js) not found on PATH")
    script = os.path.join(workdir, "bench_wasm.mjs")
    with open(script, "w") as fh:
        fh.write(NODE_SCRIPT.replace("__RUNTIME__", "file://" + RUNTIME_JS))
    cfg = os.path.join(workdir, "bench_wasm.json")
    with open(cfg, "w") as fh:
        json.dump({"manifest": str(build.manifest_path), "wasm": str(build.wasm), "repeat": repeat,
                   "rollouts": {name: {"zs": zs.tolist(), "us": us.tolist()}
                                for name, (zs, us) in rollouts.items()}}, fh)
    out = subprocess.run([node, script, cfg], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench/wasm.py: the Node.js run failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the native side --------------------------------------------------------------

LOOP_C = """
typedef int (*scaly_bench_entry)(const double**, double**, int*, double*, int);

/* Calls `entry` `reps` times through a pointer (so nothing is inlined or hoisted). */
int scaly_bench_loop(scaly_bench_entry entry, long long reps, const double** arg, double** res) {
  int status = 0;
  for (long long i = 0; i < reps; ++i)
    status |= entry(arg, res, 0, 0, 0);
  return status;
}
"""


def jit_address(fn):
    """The address of the code `fn`'s Kernel calls (the JIT's in-memory tables)."""
    fn.compile()
    for table in (jit._BY_KEY, jit._BY_INDEX):
        for address, _owner, workspace, name in table.values():
            if name == fn.name:
                assert workspace == 0
                return address
    raise RuntimeError(f"no JIT kernel for {fn.name}")


class CLoop:
    """The JIT kernels' own C time: a loop compiled in process with the JIT's flags."""

    def __init__(self):
        cc = jit._compiler()
        data = _scaly.jit_compile([("scaly_bench_loop.c", LOOP_C)], cc.compile_flags())
        self.obj = _scaly.jit_load(data, "scaly_bench_loop")
        ptr = ctypes.POINTER(ctypes.c_void_p)
        self.loop = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_longlong, ptr, ptr)(
            self.obj.lookup("scaly_bench_loop"))

    def caller(self, fn, inputs, outputs):
        """A callable running `fn`'s kernel `reps` times on these arrays."""
        address = jit_address(fn)
        arg = (ctypes.c_void_p * len(inputs))(*[a.ctypes.data for a in inputs])
        res = (ctypes.c_void_p * len(outputs))(*[a.ctypes.data for a in outputs])
        keep = (inputs, outputs, arg, res)

        def run(reps):
            assert self.loop(address, reps, arg, res) == 0, keep
        return run


def c_ns_per_call(runs, repeat):
    """Median ns per call of each `run(reps)`, round-robin, samples of >= ~20 ms."""
    numbers = []
    for run in runs:
        n = 1000
        while True:
            t = time.perf_counter()
            run(n)
            if time.perf_counter() - t > 0.02 or n > 1 << 28:
                break
            n *= 4
        numbers.append(n)
    samples = [[] for _ in runs]
    for _ in range(repeat):
        for k, (run, n) in enumerate(zip(runs, numbers)):
            t = time.perf_counter()
            run(n)
            samples[k].append((time.perf_counter() - t) / n * 1e9)
    return [statistics.median(s) for s in samples]


def py_ns_per_call(calls, repeat):
    """Median ns per call of each Python callable (timeit), round-robin."""
    numbers = []
    for call in calls:
        n = 1
        while timeit.timeit(call, number=n) < 0.02 and n < 1 << 22:
            n *= 4
        numbers.append(n)
    samples = [[] for _ in calls]
    for _ in range(repeat):
        for k, (call, n) in enumerate(zip(calls, numbers)):
            samples[k].append(timeit.timeit(call, number=n) / n * 1e9)
    return [statistics.median(s) for s in samples]


# -- report -------------------------------------------------------------------------

def fmt(ns):
    return f"{ns:.2f} ns" if ns < 100 else f"{ns / 1e3:.3f} us"


def table(title, rows, base, per=None):
    print(f"\n== {title}")
    head = f"{'path':<40} {'per call':>11}"
    if per:
        head += f" {'per stage':>11}"
    print(head + f" {'ratio':>8}")
    for label, ns in rows:
        line = f"{label:<40} {fmt(ns):>11}"
        if per:
            line += f" {fmt(ns / per):>11}"
        print(line + f" {ns / base:>8.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    opts = parser.parse_args()
    started = time.perf_counter()
    workdir = os.path.join(os.environ["SCALY_CACHE_DIR"], "out")
    cache = os.path.join(os.environ["SCALY_CACHE_DIR"], "wasm-builds")

    entries = [f, rollout, rollout_long]
    t = time.perf_counter()
    build = scaly.wasm.build(entries, os.path.join(workdir, "bench"), name="bench",
                             cache_dir=cache)
    fresh_ms = 1e3 * (time.perf_counter() - t)
    t = time.perf_counter()
    again = scaly.wasm.build(entries, os.path.join(workdir, "bench2"), name="bench",
                             cache_dir=cache)
    cached_ms = 1e3 * (time.perf_counter() - t)
    assert not build.cached and again.cached
    assert build.archive.read_bytes() == again.archive.read_bytes()

    t = time.perf_counter()
    for fn in entries:
        fn.compile()
    jit_ms = 1e3 * (time.perf_counter() - t)
    cc = jit._compiler()

    rng = np.random.default_rng(0)
    rollouts = {}
    for fn, n in ((rollout, N_SHORT), (rollout_long, N_LONG)):
        rollouts[fn.name] = (rng.standard_normal(2 * n), rng.standard_normal(n))

    node = run_node(build, rollouts, opts.repeat, workdir)
    ns = node["ns"]

    # Check: the wasm results are the JIT's.
    worst = 0.0
    assert node["outputs"]["f"]["scalar"] == f(1.5, 2.0) == node["outputs"]["f"]["runtime"] == 4.0
    for name, (zs, us) in rollouts.items():
        expected = np.asarray({"rollout": rollout, "rollout_long": rollout_long}[name](zs, us))
        for how, got in node["outputs"][name].items():
            np.testing.assert_allclose(got, expected, rtol=RTOL, atol=0,
                                       err_msg=f"{name} through the {how} export")
            worst = max(worst, float(np.max(np.abs(np.asarray(got) - expected))))

    # Native: the JIT from Python, and its kernels' own C time.
    loop = CLoop()
    x, y = 1.5, 2.0
    fx, fy, fr = np.array(x), np.array(y), np.empty(())
    native_runs = [loop.caller(f, [fx, fy], [fr])]
    py_calls = [lambda: f(x, y)]
    for name, (zs, us) in rollouts.items():
        fn = {"rollout": rollout, "rollout_long": rollout_long}[name]
        native_runs.append(loop.caller(fn, [zs, us], [np.empty_like(zs)]))
        py_calls.append(lambda fn=fn, zs=zs, us=us: fn(zs, us))
    c_ns = c_ns_per_call(native_runs, opts.repeat)
    py_ns = py_ns_per_call(py_calls, opts.repeat)
    assert fr[()] == 4.0

    print(f"node {node['node']}; host recipe: {cc.recipe()}; cores: {os.cpu_count()}; "
          f"repeat {opts.repeat}")
    print(f"scaly.wasm.build of 3 entries: {fresh_ms:.0f} ms fresh, {cached_ms:.1f} ms cached "
          f"(same archive, byte for byte); {build.wasm.stat().st_size} bytes of .wasm, "
          f"{build.archive.stat().st_size} of archive; Node instantiate: "
          f"{node['instantiateMs']:.2f} ms; JIT compile of the same 3: {jit_ms:.0f} ms")
    print(f"wasm results vs the JIT's: max|d| = {worst:.1e} (rtol {RTOL:g})")

    base = ns["scalar"]
    table("(a) f(x, y) = x*y + 1.0, one call (ratio: over the scalar export's)", [
        ("Node: JS function (x, y) => x*y + 1", ns["js"]),
        ("Node: empty wasm export nop()", ns["nop"]),
        ("Node: hand-written wasm x*y + 1", ns["hand"]),
        ("Node: scalar export bench__f__scalar", ns["scalar"]),
        ("Node: runtime k.scalar('f', x, y)", ns["runtime_scalar"]),
        ("Python: JIT f(x, y) (timeit)", py_ns[0]),
        ("C: the JIT's kernel via a pointer", c_ns[0]),
    ], base)
    for k, (name, n) in enumerate(((rollout.name, N_SHORT), (rollout_long.name, N_LONG))):
        base = ns[f"{name}:ptr"]
        table(f"(b) {name}: euler .block() + vmap over N = {n} (ratio: over the pointer "
              f"export's)", [
                  ("Node: pointer export, buffers preallocated", ns[f"{name}:ptr"]),
                  ("Node: struct export, structs preallocated", ns[f"{name}:struct"]),
                  ("Node: runtime k.call() (alloc + copies)", ns[f"{name}:call"]),
                  ("Python: JIT rollout(zs, us) (timeit)", py_ns[k + 1]),
                  ("C: the JIT's kernel via a pointer", c_ns[k + 1]),
              ], base, per=n)
    print(f"\nwasm pointer export over the JIT kernel's C time: "
          f"N = {N_SHORT}: {ns[f'{rollout.name}:ptr'] / c_ns[1]:.2f}x, "
          f"N = {N_LONG}: {ns[f'{rollout_long.name}:ptr'] / c_ns[2]:.2f}x; "
          f"JIT call from Python over the wasm pointer export from Node: "
          f"N = {N_SHORT}: {py_ns[1] / ns[f'{rollout.name}:ptr']:.2f}x, "
          f"N = {N_LONG}: {py_ns[2] / ns[f'{rollout_long.name}:ptr']:.2f}x")
    print(f"(total {time.perf_counter() - started:.1f} s; its temporary cache is removed)")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["SCALY_CACHE_DIR"], ignore_errors=True)
