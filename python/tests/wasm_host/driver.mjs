// Node.js driver of test_wasm_engine.py: `node driver.mjs job.json result.json`.
//
// The job names a scenario (job.kind) and the files it needs; every check of
// the scenario runs in this one process and its results go back as JSON.
// Arrays travel bit-exactly as {dtype, b64}: base64 of the little-endian bytes
// of a typed array (bool as one byte per value); int64 scalars as decimal
// strings. Errors thrown by a call are reported as {error: {name, status,
// statusName, message}} so the Python side can assert on them.

import fs from "fs";
import path from "path";
import { fileURLToPath } from "url";

const here = path.dirname(fileURLToPath(import.meta.url));
const runtime = await import(path.join(here, "..", "..", "scaly", "wasm", "js", "scaly_wasm.mjs"));
const { instantiate, ScalyKernels, ScalyWasmError, SignatureError, scalyImports, toWasm, fromWasm } = runtime;

const ARRAYS = {
  float64: Float64Array, float32: Float32Array, int32: Int32Array, int64: BigInt64Array,
  bool: Uint8Array, uint32: Uint32Array,
};

function dec(x) {
  const b = Buffer.from(x.b64, "base64");
  const copy = new ArrayBuffer(b.length);
  new Uint8Array(copy).set(b);
  return new ARRAYS[x.dtype](copy);
}

function enc(dtype, values) {
  let arr;
  if (values instanceof ARRAYS[dtype]) arr = values;
  else if (dtype === "bool") arr = Uint8Array.from(Array.from(values, (v) => (v ? 1 : 0)));
  else arr = ARRAYS[dtype].from(values);
  return { dtype, b64: Buffer.from(arr.buffer, arr.byteOffset, arr.byteLength).toString("base64") };
}

function errorInfo(e) {
  return {
    error: {
      name: e && e.name, status: e && e.status, statusName: e && e.statusName,
      message: String(e && e.message), isScalyWasmError: e instanceof ScalyWasmError,
      isSignatureError: e instanceof SignatureError, isRuntimeError: e instanceof WebAssembly.RuntimeError,
    },
  };
}

function nbytes(dtype, count) {
  return ARRAYS[dtype].BYTES_PER_ELEMENT * count;
}

function count(port) {
  return port.shape.reduce((a, b) => a * b, 1);
}

/** A value of the scalar export from its encoding: element 0, in the array's own dtype. */
function scalarValue(x) {
  const v = dec(x)[0];
  return x.dtype === "bool" ? v !== 0 : v;
}

/** Write `inputs` into a struct image at `pin` by the manifest's layout. */
function writeImage(k, e, inputs, pin) {
  for (const port of e.inputs) {
    const field = e.structs.in.fields.find((f) => f.field === port.field);
    if (!field) continue;
    const values = dec(inputs[port.name]);
    if (values.length !== field.count) throw new TypeError(`${e.name}.${port.name}: ${values.length} values`);
    k.view(port.dtype, pin + field.offset, field.count).set(values);
  }
}

function readImage(k, e, pout) {
  const out = {};
  for (const port of e.outputs) {
    const field = e.structs.out.fields.find((f) => f.field === port.field);
    out[port.name] = field ? enc(port.dtype, k.view(port.dtype, pout + field.offset, field.count).slice()) : enc(port.dtype, []);
  }
  return out;
}

/** Call `fnName(out, in)` (a struct export, or a host wrapper of that shape) on struct images. */
function imageCall(k, e, inputs, fnName) {
  const pin = k.alloc(Math.max(e.structs.in.size, 1)), pout = k.alloc(Math.max(e.structs.out.size, 1));
  try {
    new Uint8Array(k.exports.memory.buffer, pout, e.structs.out.size).fill(0xa5);
    writeImage(k, e, inputs, pin);
    k.invoke(fnName, toWasm(pout, "uint32"), toWasm(pin, "uint32"));
    return readImage(k, e, pout);
  } finally {
    k.free(pin);
    k.free(pout);
  }
}

/** The five-argument pointer export on buffers from k.alloc; `withWork`: the
 * caller's workspace instead of the shim's. */
function pointerCall(k, e, inputs, withWork) {
  const owned = [];
  const alloc = (n) => {
    const p = k.alloc(Math.max(n, 8));
    owned.push(p);
    return p;
  };
  try {
    const arg = alloc(4 * Math.max(e.inputs.length, 1)), res = alloc(4 * Math.max(e.outputs.length, 1));
    const outs = [];
    e.inputs.forEach((port, i) => {
      const values = dec(inputs[port.name]);
      const p = alloc(nbytes(port.dtype, values.length));
      k.view(port.dtype, p, values.length).set(values);
      new Uint32Array(k.exports.memory.buffer, arg, e.inputs.length)[i] = p;
    });
    e.outputs.forEach((port, i) => {
      const p = alloc(nbytes(port.dtype, count(port)));
      new Uint8Array(k.exports.memory.buffer, p, nbytes(port.dtype, count(port))).fill(0xa5);
      new Uint32Array(k.exports.memory.buffer, res, e.outputs.length)[i] = p;
      outs.push(p);
    });
    let w = 0;
    if (withWork && e.workspace_bytes > 0) w = alloc(e.workspace_bytes);
    k.invoke(e.exports.pointers.name, toWasm(arg, "uint32"), toWasm(res, "uint32"), 0, toWasm(w, "uint32"), 0);
    const out = {};
    e.outputs.forEach((port, i) => {
      out[port.name] = enc(port.dtype, k.view(port.dtype, outs[i], count(port)).slice());
    });
    return out;
  } finally {
    for (const p of owned.reverse()) k.free(p);
  }
}

/** An all-scalar call through export `exportName` (the shim's scalar export or
 * a host wrapper with its signature). */
function scalarCall(k, e, inputs, exportName) {
  const args = e.inputs.map((port) => toWasm(scalarValue(inputs[port.name]), port.dtype));
  if (e.outputs.length === 1) {
    const port = e.outputs[0];
    return { [port.name]: enc(port.dtype, [fromWasm(k.invoke(exportName, ...args), port.dtype)]) };
  }
  const pout = k.alloc(e.structs.out.size);
  try {
    k.invoke(exportName, toWasm(pout, "uint32"), ...args);
    return readImage(k, e, pout);
  } finally {
    k.free(pout);
  }
}

/** One call of a job: {entry, via, inputs}. */
function runCall(k, c) {
  const e = k.entry(c.entry);
  try {
    switch (c.via) {
      case "call": { // ScalyKernels.call: the struct export, marshalled by the runtime
        const ins = {};
        for (const port of e.inputs) ins[port.name] = dec(c.inputs[port.name]);
        const r = k.call(c.entry, ins);
        const out = {};
        for (const port of e.outputs) out[port.name] = enc(port.dtype, r[port.name]);
        return { outputs: out };
      }
      case "scalar": { // ScalyKernels.scalar: host values in, host values out
        const r = k.scalar(c.entry, ...e.inputs.map((port) => scalarValue(c.inputs[port.name])));
        const out = {};
        if (e.outputs.length === 1) out[e.outputs[0].name] = enc(e.outputs[0].dtype, [r]);
        else for (const port of e.outputs) out[port.name] = enc(port.dtype, [r[port.name]]);
        return { outputs: out };
      }
      case "struct":
        return { outputs: imageCall(k, e, c.inputs, e.exports.struct.name) };
      case "pointers":
        return { outputs: pointerCall(k, e, c.inputs, false) };
      case "pointers_w":
        return { outputs: pointerCall(k, e, c.inputs, true) };
      case "host_pointers": // the host's C wrapper: its malloc'd buffers, the five-argument export
        return { outputs: imageCall(k, e, c.inputs, c.export || `host_${c.entry}`) };
      case "host_struct":
        return { outputs: imageCall(k, e, c.inputs, c.export || `host_${c.entry}_struct`) };
      case "host_scalar":
        return { outputs: scalarCall(k, e, c.inputs, c.export || `host_${c.entry}_scalar`) };
      default:
        throw new Error(`unknown via ${c.via}`);
    }
  } catch (err) {
    return errorInfo(err);
  }
}

function runCalls(k, calls) {
  return calls.map((c) => ({ id: c.id, ...runCall(k, c) }));
}

async function loadStandalone(job) {
  const manifest = JSON.parse(fs.readFileSync(job.manifest));
  return instantiate(fs.readFileSync(job.wasm), manifest);
}

/** A host module (host.wasm): its own allocator (host_malloc/host_free), the
 * archive(s) of one or more Scaly modules linked in. */
async function loadHost(job) {
  const state = {};
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(job.wasm), scalyImports(state));
  const x = instance.exports;
  if (x._initialize) x._initialize();
  const alloc = (n) => fromWasm(x.host_malloc(toWasm(n, "uint32")), "uint32");
  const free = (p) => x.host_free(toWasm(p, "uint32"));
  const kernels = {};
  for (const [name, file] of Object.entries(job.manifests))
    kernels[name] = new ScalyKernels(x, JSON.parse(fs.readFileSync(file)), state, { alloc, free });
  const stats = () => {
    const p = fromWasm(x.host_heap_stats(), "uint32");
    const [mallocs, frees, live, top] = new Uint32Array(x.memory.buffer, p, 4);
    return { mallocs, frees, live, top };
  };
  return { instance, kernels, stats };
}

/** The error loop: `rounds` failing calls through several exports, each a
 * ScalyWasmError with the expected status; returns what went differently. */
function errorLoop(k, failures, rounds) {
  const problems = [];
  const first = {};
  for (let i = 0; i < rounds; ++i) {
    const f = failures[i % failures.length];
    try {
      k.invoke(f.export, ...f.args.map((a) => toWasm(a, "uint32")));
      problems.push({ i, failure: f.label, got: "no error" });
    } catch (e) {
      if (!(e instanceof ScalyWasmError) || e.status !== f.status) problems.push({ i, failure: f.label, ...errorInfo(e) });
      if (!(f.label in first)) first[f.label] = errorInfo(e).error;
    }
    if (problems.length > 5) break;
  }
  return { problems, first };
}

const scenarios = {
  /** Test 1 (and the calls of others): every call of job.calls on the standalone module. */
  async standalone(job) {
    const k = await loadStandalone(job);
    return { calls: runCalls(k, job.calls) };
  },

  /** Test 2: calls through the host module; the heap statistics of its allocator. */
  async host(job) {
    const { kernels, stats } = await loadHost(job);
    const before = stats();
    const out = {};
    for (const [name, calls] of Object.entries(job.calls)) out[name] = runCalls(kernels[name], calls);
    // call() keeps each entry's structs for the next call; release() frees them.
    const kept = stats();
    for (const k of Object.values(kernels)) k.release();
    const afterCalls = stats();
    const layout = {};
    for (const [name, k] of Object.entries(kernels)) layout[name] = k.layoutTable();
    let errors = null;
    if (job.errors) {
      const k = kernels[job.errors.module];
      const pout = k.alloc(job.errors.out_size);
      errors = errorLoop(k, job.errors.failures.map((f) => ({ ...f, args: f.args.map((a) => (a === "OUT" ? pout : a)) })), job.errors.rounds);
      errors.after = runCalls(k, job.errors.after);
      k.free(pout);
    }
    return { calls: out, before, kept, afterCalls, after: stats(), layout, errors };
  },

  /** Test 3: marshalling rules (toWasm/fromWasm) and calls on addresses >= 2^31. */
  async marshal(job) {
    const k = await loadStandalone(job);
    const rules = job.rules.map(([value, dtype]) => {
      const v = dtype === "int64" ? BigInt(value) : value;
      try {
        const raw = toWasm(v, dtype);
        return {
          raw: typeof raw === "bigint" ? raw.toString() : raw,
          bits: typeof raw === "number" ? enc("float64", [raw]) : null, // JSON loses -0
          back: String(fromWasm(raw, dtype)),
        };
      } catch (e) {
        return { error: e.name };
      }
    });
    const back = job.back.map(([raw, dtype]) => {
      const r = fromWasm(dtype === "int64" ? BigInt(raw) : raw, dtype);
      return typeof r === "bigint" ? r.toString() : r;
    });
    const scalars = runCalls(k, job.scalars);

    // Grow the memory past 2 GiB; the new pages are ours (the module's malloc
    // grows past them when it needs memory).
    const memory = k.exports.memory;
    const pagesBefore = memory.buffer.byteLength / 65536;
    const want = 2 ** 31 / 65536 + 64; // 2 GiB + 4 MiB
    memory.grow(want - pagesBefore);
    const bytes = memory.buffer.byteLength;
    let next = 2 ** 31 + 4096;
    const high = (n) => {
      const p = next;
      next = Math.ceil((next + n) / 64) * 64 + 64;
      return p;
    };
    const highAlloc = { alloc: high, free: () => {}, exports: k.exports, view: (d, p, n) => k.view(d, p, n), invoke: (...a) => k.invoke(...a) };
    const highCalls = job.high.map((c) => {
      const e = k.entry(c.entry);
      const start = next;
      let r;
      try {
        if (c.via === "pointers") r = { outputs: pointerCall(highAlloc, e, c.inputs, c.work) };
        else if (c.via === "struct") r = { outputs: imageCall(highAlloc, e, c.inputs, e.exports.struct.name) };
        else if (c.via === "scalar") r = { outputs: scalarCall(highAlloc, e, c.inputs, e.exports.scalar.name) };
        else throw new Error(c.via);
      } catch (err) {
        r = errorInfo(err);
      }
      return { id: c.id, first: start, last: next, ...r };
    });
    // A growth beyond 4 GiB is refused; the engine's limit for this module.
    let maxPages = memory.buffer.byteLength / 65536;
    try {
      memory.grow(65536 - maxPages);
      maxPages = memory.buffer.byteLength / 65536;
    } catch (e) {
      maxPages = { refused: e.message, pages: memory.buffer.byteLength / 65536 };
    }
    let beyond = null;
    try {
      memory.grow(1);
      beyond = "grew";
    } catch (e) {
      beyond = e.message;
    }
    // After all that, the module's own allocator and the runtime still work.
    const after = runCalls(k, job.after);
    return { rules, back, scalars, pagesBefore, bytes, highCalls, maxPages, beyond, after };
  },

  /** Test 4: the compiled layout table of the standalone module. */
  async layout(job) {
    const k = await loadStandalone(job);
    return { table: k.layoutTable() };
  },

  /** Test 5: errors, the error loop, then correct results. */
  async errors(job) {
    const k = await loadStandalone(job);
    const single = job.single.map((f) => {
      const pout = k.alloc(f.out_size || 64);
      try {
        k.invoke(f.export, ...f.args.map((a) => toWasm(a === "OUT" ? pout : a, "uint32")));
        return { label: f.label, error: null };
      } catch (e) {
        return { label: f.label, ...errorInfo(e) };
      } finally {
        k.free(pout);
      }
    });
    const pout = k.alloc(job.out_size);
    const t0 = Date.now();
    const loop = errorLoop(k, job.failures.map((f) => ({ ...f, args: f.args.map((a) => (a === "OUT" ? pout : a)) })), job.rounds);
    const ms = Date.now() - t0;
    k.free(pout);
    return { single, loop, ms, after: runCalls(k, job.after) };
  },

  /** Test 6: ScalyKernels.entry(name, expected). */
  async signature(job) {
    const k = await loadStandalone(job);
    return {
      checks: job.checks.map((c) => {
        try {
          const e = k.entry(c.name, c.expected);
          return { id: c.id, ok: true, entry: e.name };
        } catch (err) {
          return { id: c.id, ok: false, ...errorInfo(err) };
        }
      }),
    };
  },
};

const [jobFile, resultFile] = process.argv.slice(2);
const job = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const result = await scenarios[job.kind](job);
fs.writeFileSync(resultFile, JSON.stringify(result));
