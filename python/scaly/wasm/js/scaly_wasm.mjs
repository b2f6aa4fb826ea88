// The host side of Scaly's WebAssembly kernels, for JavaScript engines
// (Node.js, browsers): the error import, the marshalling rules, the typed
// structs laid out by the manifest, the signature check and the layout table.
// docs/wasm.md describes each rule; scaly.wasm (Python) implements the same.

/** A kernel call that returned a non-success status. */
export class ScalyWasmError extends Error {
  constructor(status, message, statusCodes = []) {
    super(message);
    this.name = "ScalyWasmError";
    this.status = status;
    // The name the module's header gives the status (the manifest's status_codes).
    const code = statusCodes.find((c) => c.value === status);
    this.statusName = code ? code.name : `unknown status ${status}`;
  }
}

/** A manifest entry that does not match what the host expected. */
export class SignatureError extends Error {
  constructor(message) {
    super(message);
    this.name = "SignatureError";
  }
}

const WASM_TYPES = { float64: "f64", float32: "f32", int32: "i32", int64: "i64", bool: "i32", uint32: "i32" };

/** The value a call takes for `value` of `dtype` (docs/wasm.md, "Marshalling"). */
export function toWasm(value, dtype) {
  switch (dtype) {
    case "float64":
    case "float32":
      if (typeof value !== "number") throw new TypeError(`a ${dtype} value must be a number, got ${typeof value}`);
      return value;
    case "bool":
      if (value !== true && value !== false && value !== 0 && value !== 1)
        throw new TypeError(`a bool value must be true, false, 0 or 1, got ${value}`);
      return value ? 1 : 0;
    case "int32":
      if (!Number.isInteger(value)) throw new TypeError(`an int32 value must be an integer, got ${value}`);
      if (value < -(2 ** 31) || value >= 2 ** 31) throw new RangeError(`${value} is not an int32`);
      return value;
    case "int64": {
      if (typeof value !== "bigint" && !Number.isSafeInteger(value))
        throw new TypeError(`an int64 value must be a BigInt or a safe integer, got ${value}`);
      const v = BigInt(value);
      if (v < -(2n ** 63n) || v >= 2n ** 63n) throw new RangeError(`${value} is not an int64`);
      return v;
    }
    case "uint32":
      if (!Number.isInteger(value)) throw new TypeError(`a uint32 value must be an integer, got ${value}`);
      if (value < 0 || value >= 2 ** 32) throw new RangeError(`${value} is not a uint32`);
      return value >= 2 ** 31 ? value - 2 ** 32 : value; // the i32 with the same bits
    default:
      throw new TypeError(`no WebAssembly marshalling for dtype ${dtype}`);
  }
}

/** The host value of `raw`, a call's result of `dtype`. */
export function fromWasm(raw, dtype) {
  switch (dtype) {
    case "float64":
    case "float32":
    case "int32":
      return raw;
    case "int64":
      return BigInt.asIntN(64, BigInt(raw));
    case "bool":
      return raw !== 0;
    case "uint32":
      return raw >>> 0; // masked back from the signed i32
    default:
      throw new TypeError(`no WebAssembly marshalling for dtype ${dtype}`);
  }
}

const ARRAYS = {
  float64: Float64Array, float32: Float32Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
};

/** The `scaly` import object: `error` keeps the message a failing call sends. */
export function scalyImports(state) {
  return {
    scaly: {
      error(status, address, length) {
        const bytes = new Uint8Array(state.memory().buffer, address >>> 0, length);
        state.pending = { status, message: new TextDecoder().decode(bytes) };
      },
    },
  };
}

/** Kernels of one built module inside an instance (standalone or a host's). */
export class ScalyKernels {
  /**
   * @param exports the instance's exports
   * @param manifest the build's manifest.json, parsed
   * @param state the object given to scalyImports
   * @param alloc (bytes) => address, free (address) => void: the host's allocator
   *        (default: the standalone module's scaly_alloc / scaly_free)
   */
  constructor(exports, manifest, state, { alloc, free } = {}) {
    this.exports = exports;
    this.manifest = manifest;
    this.state = state;
    state.memory = () => exports.memory;
    this.alloc = alloc || ((n) => {
      const address = fromWasm(exports.scaly_alloc(toWasm(n, "uint32")), "uint32");
      if (address === 0) throw new RangeError(`scaly_alloc could not allocate ${n} bytes`);
      return address;
    });
    this.free = free || ((p) => exports.scaly_free(toWasm(p, "uint32")));
  }

  /** Call export `name` with raw wasm values; a trap after a reported error
   * becomes a ScalyWasmError naming the status. */
  invoke(name, ...args) {
    const fn = this.exports[name];
    if (typeof fn !== "function") throw new TypeError(`the instance has no export ${name}`);
    this.state.pending = null;
    try {
      return fn(...args);
    } catch (e) {
      const p = this.state.pending;
      this.state.pending = null;
      if (p && e instanceof WebAssembly.RuntimeError)
        throw new ScalyWasmError(p.status, p.message, this.manifest.status_codes);
      throw e;
    }
  }

  /** The manifest's entry `name`, after checking it against the host's expected
   * signature {inputs: [[name, shape, dtype]], outputs: [...]} when one is given. */
  entry(name, expected) {
    const e = this.manifest.entries.find((x) => x.name === name);
    if (!e) throw new SignatureError(`module ${this.manifest.module} has no entry ${name}`);
    if (expected) {
      const describe = (ports) => JSON.stringify(ports.map((p) => (Array.isArray(p) ? p : [p.name, p.shape, p.dtype])));
      const ours = describe(expected.inputs) + " -> " + describe(expected.outputs);
      const theirs = describe(e.inputs) + " -> " + describe(e.outputs);
      if (ours !== theirs)
        throw new SignatureError(`kernel out of sync: ${name} is ${ours} but the manifest says ${theirs}`);
    }
    return e;
  }

  view(dtype, address, count) {
    return new ARRAYS[dtype](this.exports.memory.buffer, address, count);
  }

  /** Call entry `name` through its typed structs: `inputs` maps each input's
   * name to a number (bigint for int64, boolean for bool) or an array of its
   * values in C order; returns the outputs the same way (typed-array copies). */
  call(name, inputs) {
    const e = this.entry(name);
    const sIn = e.structs.in, sOut = e.structs.out;
    let pin = 0, pout = 0;
    try {
      pin = this.alloc(sIn.size);
      pout = this.alloc(sOut.size);
      for (const port of e.inputs) {
        if (!(port.name in inputs)) throw new TypeError(`${name}: missing input ${port.name}`);
        const field = sIn.fields.find((f) => f.field === port.field);
        if (!field) continue; // a port without values
        const v = inputs[port.name];
        const values = typeof v === "object" && v !== null && "length" in v ? Array.from(v) : [v];
        if (values.length !== field.count)
          throw new TypeError(`${name}: input ${port.name} has ${values.length} values, expected ${field.count}`);
        const view = this.view(port.dtype, pin + field.offset, field.count);
        values.forEach((x, i) => (view[i] = toWasm(x, port.dtype)));
      }
      this.invoke(e.exports.struct.name, toWasm(pout, "uint32"), toWasm(pin, "uint32"));
      const out = {};
      for (const port of e.outputs) {
        const field = sOut.fields.find((f) => f.field === port.field);
        out[port.name] = field ? this.view(port.dtype, pout + field.offset, field.count).slice() : [];
      }
      return out;
    } finally {
      if (pin) this.free(pin);
      if (pout) this.free(pout);
    }
  }

  /** Call an all-scalar entry through its direct scalar export: host values in,
   * the output (or an object of outputs) back. */
  scalar(name, ...values) {
    const e = this.entry(name);
    const x = e.exports.scalar;
    if (!x) throw new TypeError(`${name} has no scalar export: ${e.no_scalar_export}`);
    if (values.length !== e.inputs.length)
      throw new TypeError(`${name} takes ${e.inputs.length} inputs, got ${values.length}`);
    const args = values.map((v, i) => toWasm(v, e.inputs[i].dtype));
    if (e.outputs.length === 1) return fromWasm(this.invoke(x.name, ...args), e.outputs[0].dtype);
    const pout = this.alloc(e.structs.out.size);
    try {
      this.invoke(x.name, toWasm(pout, "uint32"), ...args);
      const out = {};
      for (const port of e.outputs) {
        const field = e.structs.out.fields.find((f) => f.field === port.field);
        out[port.name] = fromWasm(this.view(port.dtype, pout + field.offset, 1)[0], port.dtype);
      }
      return out;
    } finally {
      this.free(pout);
    }
  }

  /** The compiled layout table: [{size, align, offsets}] per typed struct, in
   * the manifest's order (each entry's in, then out). */
  layoutTable() {
    const address = fromWasm(this.invoke(this.manifest.layout.name), "uint32");
    const words = new Uint32Array(this.exports.memory.buffer, address);
    const structs = [];
    let k = 1;
    for (let i = 0; i < words[0]; ++i) {
      const [size, align, n] = [words[k], words[k + 1], words[k + 2]];
      structs.push({ size, align, offsets: Array.from(words.subarray(k + 3, k + 3 + n)) });
      k += 3 + n;
    }
    return structs;
  }
}

/** Instantiate a standalone module (<name>.wasm) and its kernels. */
export async function instantiate(bytes, manifest, imports = {}) {
  if ("scaly" in imports) throw new TypeError("the import namespace 'scaly' is the runtime's own (scaly.error)");
  const state = {};
  const { instance } = await WebAssembly.instantiate(bytes, { ...imports, ...scalyImports(state) });
  if (instance.exports._initialize) instance.exports._initialize();
  return new ScalyKernels(instance.exports, manifest, state);
}

export { WASM_TYPES };
