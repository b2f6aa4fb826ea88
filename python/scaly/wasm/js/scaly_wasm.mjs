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

/** A manifest paired with a binary whose compiled layout table differs from it. */
export class LayoutError extends Error {
  constructor(message) {
    super(message);
    this.name = "LayoutError";
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

/** (Re)create the typed-array views of a call plan's fields over `buffer`
 * (views die when memory grows). */
function bindViews(plan, buffer) {
  for (const port of plan.inputs)
    port.view = port.count ? new port.Array(buffer, plan.pin + port.offset, port.count) : null;
  for (const port of plan.outputs)
    port.view = port.count ? new port.Array(buffer, plan.pout + port.offset, port.count) : null;
  plan.buffer = buffer;
}

/** Write input value `v` into its field's view, by the marshalling rules: a
 * typed array of the field's own type is copied whole; numbers are checked
 * element by element, as toWasm does. */
function writeInput(entry, port, v) {
  const view = port.view;
  const isArray = typeof v === "object" && v !== null && "length" in v;
  if (!isArray) {
    if (port.count !== 1)
      throw new TypeError(`${entry}: input ${port.name} has 1 value, expected ${port.count}`);
    view[0] = toWasm(v, port.dtype);
    return;
  }
  const n = v.length;
  if (n !== port.count)
    throw new TypeError(`${entry}: input ${port.name} has ${n} values, expected ${port.count}`);
  if (v instanceof port.Array && port.dtype !== "bool") view.set(v);
  else if (port.dtype === "float64" || port.dtype === "float32") copyNumbers(view, v, n, port.dtype);
  else for (let i = 0; i < n; ++i) view[i] = toWasm(v[i], port.dtype);
}

/** view[i] = v[i], each a number (else toWasm's TypeError): kept apart, so
 * that the engine compiles this loop for float views alone. */
function copyNumbers(view, v, n, dtype) {
  for (let i = 0; i < n; ++i) {
    const x = v[i];
    if (typeof x !== "number") toWasm(x, dtype); // throws
    view[i] = x;
  }
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
  constructor(exports, manifest, state, { alloc, free, checkLayout = true } = {}) {
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
    // Per entry: what call() needs, worked out once, and the structs it keeps.
    this._plans = new Map();
    if (checkLayout) this.checkLayout();
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
      throw this._failure(e);
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

  /** What call() needs of entry `name`: its export, and per port the field's
   * offset, count and array type. The structs themselves are allocated on the
   * first call and kept (release() frees them). */
  _plan(name) {
    const e = this.entry(name);
    const fn = this.exports[e.exports.struct.name];
    if (typeof fn !== "function") throw new TypeError(`the instance has no export ${e.exports.struct.name}`);
    const ports = (list, s) => list.map((port) => {
      const field = s.fields.find((f) => f.field === port.field);
      return { name: port.name, dtype: port.dtype, Array: ARRAYS[port.dtype],
               offset: field ? field.offset : 0, count: field ? field.count : 0, view: null };
    });
    const plan = { entry: e, fn, inSize: e.structs.in.size, outSize: e.structs.out.size,
                   inputs: ports(e.inputs, e.structs.in), outputs: ports(e.outputs, e.structs.out),
                   pin: 0, pout: 0, buffer: null };
    this._plans.set(name, plan);
    return plan;
  }

  /** Call entry `name` through its typed structs: `inputs` maps each input's
   * name to a number (bigint for int64, boolean for bool) or an array of its
   * values in C order (a typed array of the port's type is copied in whole);
   * returns the outputs the same way, as typed-array copies, or written into
   * the typed arrays `into` maps output names to (then nothing is allocated).
   * The structs are allocated on the first call of each entry and reused. */
  call(name, inputs, into) {
    const plan = this._plans.get(name) || this._plan(name);
    if (plan.pin === 0) {
      plan.pin = this.alloc(plan.inSize);
      try {
        plan.pout = this.alloc(plan.outSize);
      } catch (err) {
        this.free(plan.pin);
        plan.pin = 0;
        throw err;
      }
      plan.buffer = null;
    }
    let buffer = this.exports.memory.buffer;
    if (plan.buffer !== buffer) bindViews(plan, buffer);
    for (const port of plan.inputs) {
      const v = inputs[port.name];
      if (v === undefined && !(port.name in inputs)) throw new TypeError(`${name}: missing input ${port.name}`);
      if (port.count !== 0) writeInput(name, port, v);
    }
    this.state.pending = null;
    try {
      plan.fn(toWasm(plan.pout, "uint32"), toWasm(plan.pin, "uint32"));
    } catch (e) {
      throw this._failure(e);
    }
    buffer = this.exports.memory.buffer;
    if (plan.buffer !== buffer) bindViews(plan, buffer);
    const out = {};
    for (const port of plan.outputs) {
      const target = into ? into[port.name] : undefined;
      if (target !== undefined) {
        if (!(target instanceof port.Array) || target.length !== port.count)
          throw new TypeError(`${name}: into.${port.name} must be a ${port.Array.name} of ${port.count} values`);
        target.set(port.view);
        out[port.name] = target;
      } else {
        out[port.name] = port.count ? port.view.slice() : [];
      }
    }
    return out;
  }

  /** Free the structs call() keeps (the next call allocates them again). */
  release() {
    for (const plan of this._plans.values()) {
      if (plan.pin) this.free(plan.pin);
      if (plan.pout) this.free(plan.pout);
      plan.pin = plan.pout = 0;
      plan.buffer = null;
    }
  }

  /** The exception a failed call raises: a ScalyWasmError when the kernel
   * reported a status just before trapping, else `e` itself. */
  _failure(e) {
    const p = this.state.pending;
    this.state.pending = null;
    if (p && e instanceof WebAssembly.RuntimeError)
      return new ScalyWasmError(p.status, p.message, this.manifest.status_codes);
    return e;
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

  /** The compiled layout table: [{size, align, offsets, sizes}] per typed
   * struct, in the manifest's order (each entry's in, then out); `sizes` are
   * the fields' sizes in bytes (absent from the tables of older builds, whose
   * manifests do not list "size" in layout.table_fields). */
  layoutTable() {
    const layout = this.manifest.layout;
    if (!layout || typeof this.exports[layout.name] !== "function")
      throw new LayoutError(`the instance has no export ${layout ? layout.name : "(none in the manifest)"}: ` +
                            `it holds no kernels of module ${this.manifest.module}`);
    const withSizes = (layout.table_fields || ["offset"]).includes("size");
    const address = fromWasm(this.invoke(layout.name), "uint32");
    const words = new Uint32Array(this.exports.memory.buffer, address);
    const structs = [];
    let k = 1;
    for (let i = 0; i < words[0] && k + 3 <= words.length; ++i) {
      const [size, align, n] = [words[k], words[k + 1], words[k + 2]];
      const s = { size, align, offsets: Array.from(words.subarray(k + 3, k + 3 + n)) };
      k += 3 + n;
      if (withSizes) {
        s.sizes = Array.from(words.subarray(k, k + n));
        k += n;
      }
      structs.push(s);
    }
    return structs;
  }

  /** The run-time layout guard: compare the binary's layout table with the
   * manifest's structs (each entry's in, then out: size, alignment and every
   * field's offset and size) and throw a LayoutError naming the first field
   * that differs. Returns the table. The constructor (and instantiate) call
   * it unless given { checkLayout: false }. */
  checkLayout() {
    const table = this.layoutTable();
    const m = this.manifest;
    const fail = (what) => {
      throw new LayoutError(`module ${m.module}: the manifest does not match the binary's layout table ` +
                            `(${m.layout.name}): ${what}; the manifest belongs to another build: use the ` +
                            `manifest.json written with this .wasm (or pass { checkLayout: false })`);
    };
    const structs = m.entries.flatMap((e) => [["in", e, e.inputs], ["out", e, e.outputs]]);
    const bytes = { float64: 8, float32: 4, int32: 4, int64: 8, bool: 1 };
    for (const [i, [side, e, ports]] of structs.entries()) {
      const s = e.structs[side];
      const t = table[i];
      if (!t) fail(`it has ${table.length} typed structs, the manifest ${structs.length}: none for ${s.c_name} (entry ${e.name})`);
      for (const [j, f] of s.fields.entries()) {
        const port = ports.find((p) => p.field === f.field);
        const ours = `${f.count} ${port ? port.dtype : f.c_type} value${f.count === 1 ? "" : "s"}`;
        const label = `${s.c_name}.${f.field} (entry ${e.name}, ${side === "in" ? "input" : "output"} ` +
                      `${port ? port.name : f.field})`;
        if (j >= t.offsets.length)
          fail(`${label} is missing: the binary's ${s.c_name} has ${t.offsets.length} fields, the manifest's ${s.fields.length}`);
        const size = port ? f.count * bytes[port.dtype] : undefined;
        if (t.offsets[j] !== f.offset || (t.sizes && size !== undefined && t.sizes[j] !== size)) {
          const theirs = t.sizes ? `bytes [${t.offsets[j]}, ${t.offsets[j] + t.sizes[j]})` : `offset ${t.offsets[j]}`;
          const mine = t.sizes ? `bytes [${f.offset}, ${f.offset + size})` : `offset ${f.offset}`;
          fail(`${label} is at ${theirs} in the binary but at ${mine} in the manifest (${ours})`);
        }
      }
      if (t.offsets.length > s.fields.length)
        fail(`${s.c_name} (entry ${e.name}) has ${t.offsets.length} fields in the binary, ${s.fields.length} in the manifest: ` +
             `the binary's field ${s.fields.length + 1} at offset ${t.offsets[s.fields.length]} is not in the manifest`);
      if (t.size !== s.size || t.align !== s.align)
        fail(`${s.c_name} (entry ${e.name}) has sizeof ${t.size}, _Alignof ${t.align} in the binary but ` +
             `${s.size}, ${s.align} in the manifest`);
    }
    if (table.length > structs.length)
      fail(`it has ${table.length} typed structs, the manifest ${structs.length} (entries ${m.entries.map((e) => e.name).join(", ")})`);
    return table;
  }
}

/** Instantiate a standalone module (<name>.wasm) and its kernels. The
 * binary's layout table is checked against the manifest first (a LayoutError
 * names the first field that differs); { checkLayout: false } skips that. */
export async function instantiate(bytes, manifest, imports = {}, { checkLayout = true } = {}) {
  if ("scaly" in imports) throw new TypeError("the import namespace 'scaly' is the runtime's own (scaly.error)");
  const state = {};
  const { instance } = await WebAssembly.instantiate(bytes, { ...imports, ...scalyImports(state) });
  if (instance.exports._initialize) instance.exports._initialize();
  return new ScalyKernels(instance.exports, manifest, state, { checkLayout });
}

export { WASM_TYPES };
