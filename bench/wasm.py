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
  k.call(), arrays  ScalyKernels.call(entry, {zs, us}) with JS arrays: checks
                    and copies the inputs into the structs it keeps, calls the
                    struct export, returns a new Float64Array per output
  k.call(), typed   the same with Float64Array inputs (copied whole)
  k.call(), into    the same, writing the outputs into Float64Arrays the
                    caller passes (nothing allocated per call)
  JIT from Python   rollout(zs, us) on NumPy arrays (returns a new array)
  JIT kernel in C   as in (a)

(c) a 64 x 64 matmul, C = A @ B (a call of the module's matmul helper: row
  by row, the inner loop over contiguous columns), per call, through the
  pointer export of the lanes=1 build (module `bench`) and of a lanes=2
  build (module `bench_simd`, compiled with -msimd128, where Clang's loop
  vectorizer turns the inner loop into f64x2 instructions), k.call() on the
  lanes=2 build, the JIT from Python, the JIT's kernel in C and NumPy.

The wasm modules are built for wasm32 at -O2, generic, `bench` with lanes=1
(no simd128); the JIT renders the host recipe (-march=native, its lanes and
libmvec). A map over a .block()ed function is a loop of calls, which stays
scalar, so both run the same scalar loop for the rollouts. Every wasm result
is checked against the JIT's (rtol 1e-13: wasi-libc's sin is not glibc's), and
`max|d|` printed. `ratio` is each time over the wasm pointer (or scalar)
export's in (a) and (b), over the JIT kernel's C time in (c); the last lines
put the two targets side by side: k.call over the pointer export at N = 1000,
and the matmul in wasm over native.
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
import scaly.codegen  # noqa: E402
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


MM = 64


@sc.function(sc.arg("A", (MM, MM)), sc.arg("B", (MM, MM)), outputs=sc.arg("C"))
def matmul(A, B):
    return A @ B


# -- the Node.js side -------------------------------------------------------------

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { instantiate } from "__RUNTIME__";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const modules = {};
let instantiateMs = 0;
for (const [name, m] of Object.entries(cfg.modules)) {
  const manifest = JSON.parse(readFileSync(m.manifest, "utf8"));
  const bytes = readFileSync(m.wasm);
  const t0 = process.hrtime.bigint();
  modules[name] = await instantiate(bytes, manifest);  // with the layout check
  if (name === "bench") instantiateMs = Number(process.hrtime.bigint() - t0) / 1e6;
}
const k = modules.bench;
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
const callLoop = () => new Function("k", "name", "inputs", "into", "out", "n",
  "let s = 0; for (let i = 0; i < n; ++i) s += k.call(name, inputs, into)[out][0]; return s;");

// Buffers allocated once in the instance's memory for the pointer and struct
// exports of an all-float64 entry, filled with `inputs`.
function buffers(kk, entry, inputs) {
  const e = kk.entry(entry);
  const mem = () => kk.exports.memory.buffer;  // after every alloc (memory may have grown)
  const count = (port) => port.shape.reduce((a, b) => a * b, 1);
  const pin = e.inputs.map((port) => kk.alloc(8 * count(port)));
  const pout = e.outputs.map((port) => kk.alloc(8 * count(port)));
  const parg = kk.alloc(4 * pin.length), pres = kk.alloc(4 * pout.length);
  const sin = kk.alloc(e.structs.in.size), sout = kk.alloc(e.structs.out.size);
  const off = (s, field) => s.fields.find((f) => f.field === field).offset;
  e.inputs.forEach((port, i) => {
    new Float64Array(mem(), pin[i], count(port)).set(inputs[port.name]);
    new Float64Array(mem(), sin + off(e.structs.in, port.field), count(port)).set(inputs[port.name]);
  });
  new Uint32Array(mem(), parg, pin.length).set(pin);
  new Uint32Array(mem(), pres, pout.length).set(pout);
  const port = e.outputs[0];
  return {
    parg, pres, sin, sout, out: port.name, count: count(port),
    ptrOut: () => Array.from(new Float64Array(mem(), pout[0], count(port))),
    structOut: () => Array.from(new Float64Array(mem(), sout + off(e.structs.out, port.field), count(port))),
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
for (const c of cfg.kernels) {
  const kk = modules[c.module], x = kk.exports, label = `${c.module}.${c.entry}`;
  const b = buffers(kk, c.entry, c.inputs);
  const fnPtr = x[`${c.module}__${c.entry}`], fnStruct = x[`${c.module}__${c.entry}__struct`];
  add(`${label}:ptr`, ((L) => (n) => L(fnPtr, b.parg, b.pres, n))(ptrLoop()));
  add(`${label}:struct`, ((L) => (n) => L(fnStruct, b.sout, b.sin, n))(structLoop()));
  const arrays = c.inputs;
  const typed = Object.fromEntries(Object.entries(c.inputs).map(([n, v]) => [n, Float64Array.from(v)]));
  const into = { [b.out]: new Float64Array(b.count) };
  add(`${label}:call`, ((L) => (n) => L(kk, c.entry, arrays, undefined, b.out, n))(callLoop()));
  add(`${label}:call_typed`, ((L) => (n) => L(kk, c.entry, typed, undefined, b.out, n))(callLoop()));
  add(`${label}:call_into`, ((L) => (n) => L(kk, c.entry, typed, into, b.out, n))(callLoop()));
  fnPtr(b.parg, b.pres, 0, 0, 0);
  fnStruct(b.sout, b.sin);
  outputs[label] = {
    ptr: b.ptrOut(), struct: b.structOut(), call: Array.from(kk.call(c.entry, arrays)[b.out]),
    call_typed: Array.from(kk.call(c.entry, typed)[b.out]),
    call_into: Array.from(kk.call(c.entry, typed, into)[b.out]),
  };
}
outputs.f = { scalar: ex.bench__f__scalar(1.5, 2.0), runtime: k.scalar("f", 1.5, 2.0) };

const sample = (c) => {
  const t = process.hrtime.bigint();
  c.run(c.number);
  return Number(process.hrtime.bigint() - t) / c.number;
};
for (const c of Object.values(cases)) {  // warm up (tiering), then calibrate to >= 20 ms
  for (let w = 0; w < 3; ++w) c.run(200);
  while (sample(c) * c.number < 2e7 && c.number < 1 << 26) c.number *= 4;
}
for (let r = 0; r < cfg.repeat; ++r)
  for (const c of Object.values(cases)) c.samples.push(sample(c));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
const ns = Object.fromEntries(Object.entries(cases).map(([l, c]) => [l, median(c.samples)]));
const simd = WebAssembly.validate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123,
  3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11]));
console.log(JSON.stringify({ node: process.version, simd, instantiateMs, ns, outputs }));
"""


def run_node(builds, kernels, repeat, workdir):
    node = shutil.which("node")
    if node is None:
        sys.exit("bench/wasm.py: node (Node.js) not found on PATH")
    script = os.path.join(workdir, "bench_wasm.mjs")
    with open(script, "w") as fh:
        fh.write(NODE_SCRIPT.replace("__RUNTIME__", "file://" + RUNTIME_JS))
    cfg = os.path.join(workdir, "bench_wasm.json")
    with open(cfg, "w") as fh:
        json.dump({"modules": {b.name: {"manifest": str(b.manifest_path), "wasm": str(b.wasm)}
                               for b in builds},
                   "repeat": repeat,
                   "kernels": [{"module": m, "entry": fn.name,
                                "inputs": {n: a.ravel().tolist() for n, a in inputs.items()}}
                               for m, fn, inputs in kernels]}, fh)
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

    def generic(self, fn, lanes):
        """The address of `fn` rendered as scaly.wasm renders it (cpu=generic, no
        vector math), compiled natively for the x86-64 baseline: SSE2, the same
        128-bit vector width as wasm's SIMD128."""
        module = sc.codegen.render_c_module(fn, name=f"{fn.name}_generic", cpu="generic",
                                            lanes=lanes)
        data = _scaly.jit_compile([(f"{module.name}.c", module.source),
                                   (f"{module.name}.h", module.header)],
                                  ["-O2", "-ffp-contract=off", "-fno-math-errno", "-fPIC"])
        obj = _scaly.jit_load(data, module.name)
        self.keep = getattr(self, "keep", []) + [obj]
        return obj.lookup(fn.name)

    def caller(self, fn, inputs, outputs, address=None):
        """A callable running `fn`'s kernel (or the code at `address`) `reps`
        times on these arrays."""
        address = address or jit_address(fn)
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

    entries = [f, rollout, rollout_long, matmul]
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
    simd = scaly.wasm.build([matmul], os.path.join(workdir, "bench_simd"), name="bench_simd",
                            lanes=2, cache_dir=cache)

    t = time.perf_counter()
    for fn in entries:
        fn.compile()
    jit_ms = 1e3 * (time.perf_counter() - t)
    cc = jit._compiler()

    rng = np.random.default_rng(0)
    inputs = {}
    for fn, n in ((rollout, N_SHORT), (rollout_long, N_LONG)):
        inputs[fn] = {"zs": rng.standard_normal(2 * n), "us": rng.standard_normal(n)}
    inputs[matmul] = {"A": rng.standard_normal((MM, MM)), "B": rng.standard_normal((MM, MM))}
    kernels = [("bench", rollout, inputs[rollout]), ("bench", rollout_long, inputs[rollout_long]),
               ("bench", matmul, inputs[matmul]), ("bench_simd", matmul, inputs[matmul])]

    node = run_node([build, simd], kernels, opts.repeat, workdir)
    ns = node["ns"]

    # Check: the wasm results are the JIT's.
    worst = 0.0
    assert node["outputs"]["f"]["scalar"] == f(1.5, 2.0) == node["outputs"]["f"]["runtime"] == 4.0
    for module, fn, ins in kernels:
        expected = np.asarray(fn(*ins.values())).ravel()
        for how, got in node["outputs"][f"{module}.{fn.name}"].items():
            np.testing.assert_allclose(got, expected, rtol=RTOL, atol=0,
                                       err_msg=f"{module}.{fn.name} through {how}")
            worst = max(worst, float(np.max(np.abs(np.asarray(got) - expected))))

    # Native: the JIT from Python, and its kernels' own C time.
    loop = CLoop()
    x, y = 1.5, 2.0
    fx, fy, fr = np.array(x), np.array(y), np.empty(())
    native_runs = [loop.caller(f, [fx, fy], [fr])]
    py_calls = [lambda: f(x, y)]
    for fn in (rollout, rollout_long, matmul):
        ins = list(inputs[fn].values())
        native_runs.append(loop.caller(fn, ins, [np.empty(np.shape(fn(*ins)))]))
        py_calls.append(lambda fn=fn, ins=ins: fn(*ins))
    A, B = inputs[matmul]["A"], inputs[matmul]["B"]
    generic_out = np.empty((MM, MM))
    native_runs.append(loop.caller(matmul, [A, B], [generic_out],
                                   address=loop.generic(matmul, lanes=2)))
    py_calls.append(lambda: A @ B)
    c_ns = c_ns_per_call(native_runs, opts.repeat)
    py_ns = py_ns_per_call(py_calls, opts.repeat)
    assert fr[()] == 4.0
    np.testing.assert_array_equal(generic_out, matmul(A, B))

    print(f"node {node['node']} (SIMD128: {'yes' if node['simd'] else 'NO'}); host recipe: "
          f"{cc.recipe()}; cores: {os.cpu_count()}; repeat {opts.repeat}")
    print(f"scaly.wasm.build of 4 entries: {fresh_ms:.0f} ms fresh, {cached_ms:.1f} ms cached "
          f"(same archive, byte for byte); {build.wasm.stat().st_size} bytes of .wasm, "
          f"{build.archive.stat().st_size} of archive; Node instantiate (with the layout "
          f"check): {node['instantiateMs']:.2f} ms; JIT compile of the same 4: {jit_ms:.0f} ms")
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
    for k, (fn, n) in enumerate(((rollout, N_SHORT), (rollout_long, N_LONG))):
        w = f"bench.{fn.name}"
        table(f"(b) {fn.name}: euler .block() + vmap over N = {n} (ratio: over the pointer "
              f"export's)", [
                  ("Node: pointer export, buffers preallocated", ns[f"{w}:ptr"]),
                  ("Node: struct export, structs preallocated", ns[f"{w}:struct"]),
                  ("Node: k.call(), JS arrays in", ns[f"{w}:call"]),
                  ("Node: k.call(), Float64Arrays in", ns[f"{w}:call_typed"]),
                  ("Node: k.call(), Float64Arrays in, into", ns[f"{w}:call_into"]),
                  ("Python: JIT rollout(zs, us) (timeit)", py_ns[k + 1]),
                  ("C: the JIT's kernel via a pointer", c_ns[k + 1]),
              ], ns[f"{w}:ptr"], per=n)
    table(f"(c) matmul: C = A @ B, {MM} x {MM} (ratio: over the JIT kernel's C time)", [
        ("Node: pointer export, lanes=1", ns["bench.matmul:ptr"]),
        ("Node: pointer export, lanes=2 (simd128)", ns["bench_simd.matmul:ptr"]),
        ("Node: k.call(), lanes=2, Float64Arrays in", ns["bench_simd.matmul:call_typed"]),
        ("Python: JIT matmul(A, B) (timeit)", py_ns[3]),
        ("C: the JIT's kernel via a pointer", c_ns[3]),
        ("C: generic x86-64 (SSE2, 128-bit), lanes=2", c_ns[4]),
        ("Python: NumPy A @ B (timeit)", py_ns[4]),
    ], c_ns[3])
    long = f"bench.{rollout_long.name}"
    print(f"\nk.call over the pointer export, N = {N_LONG} (target <= 1.5): "
          f"JS arrays {ns[f'{long}:call'] / ns[f'{long}:ptr']:.2f}x, "
          f"Float64Arrays {ns[f'{long}:call_typed'] / ns[f'{long}:ptr']:.2f}x, "
          f"into {ns[f'{long}:call_into'] / ns[f'{long}:ptr']:.2f}x; "
          f"N = {N_SHORT}: JS arrays "
          f"{ns[f'bench.{rollout.name}:call'] / ns[f'bench.{rollout.name}:ptr']:.2f}x")
    print(f"matmul {MM} x {MM} in wasm over the native JIT kernel (target <= 1.5): "
          f"lanes=1 {ns['bench.matmul:ptr'] / c_ns[3]:.2f}x, "
          f"lanes=2 (simd128) {ns['bench_simd.matmul:ptr'] / c_ns[3]:.2f}x; over the same C "
          f"compiled natively for 128-bit vectors (SSE2): lanes=2 "
          f"{ns['bench_simd.matmul:ptr'] / c_ns[4]:.2f}x")
    print(f"wasm pointer export over the JIT kernel's C time: "
          f"N = {N_SHORT}: {ns[f'bench.{rollout.name}:ptr'] / c_ns[1]:.2f}x, "
          f"N = {N_LONG}: {ns[f'{long}:ptr'] / c_ns[2]:.2f}x; "
          f"JIT call from Python over the wasm pointer export from Node: "
          f"N = {N_SHORT}: {py_ns[1] / ns[f'bench.{rollout.name}:ptr']:.2f}x, "
          f"N = {N_LONG}: {py_ns[2] / ns[f'{long}:ptr']:.2f}x")
    print(f"(total {time.perf_counter() - started:.1f} s; its temporary cache is removed)")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["SCALY_CACHE_DIR"], ignore_errors=True)
