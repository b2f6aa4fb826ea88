// Runs a plan of calls on a standalone Scaly module (test_wasm_build.py):
// node plan_driver.mjs <module.wasm> <plan.json>; prints the results as JSON.
import fs from "fs";
const [wasmPath, planPath] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planPath, "utf8"));
let memory;
const errors = [];
const imports = {scaly: {error: (status, ptr, len) => {
  errors.push([status, new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len))]);
}}};
const {instance} = await WebAssembly.instantiate(fs.readFileSync(wasmPath), imports);
const ex = instance.exports;
memory = ex.memory;
ex._initialize();
const arg = (v, t) => (t === "i64" ? BigInt(v) : v);
const out = {};

// The layout table, as the compiler laid the structs out.
const p = ex[plan.module + "__scaly_layout"]();
const u32 = new Uint32Array(memory.buffer);
let i = p / 4;
const count = u32[i++];
out.layout = [];
for (let s = 0; s < count; ++s) {
  const size = u32[i++], align = u32[i++], n = u32[i++];
  const offsets = [], sizes = [];
  for (let k = 0; k < n; ++k) offsets.push(u32[i++]);
  for (let k = 0; k < n; ++k) sizes.push(u32[i++]);
  out.layout.push([size, align, offsets, sizes]);
}

// Scalar exports returning their result.
out.scalar = plan.scalar.map(([name, args, types]) =>
  ex[name](...args.map((v, k) => arg(v, types[k]))));

// Struct exports and a scalar export writing through `out`.
const view = () => new DataView(memory.buffer);
const put = (base, [offset, t, values]) => values.forEach((v, k) => {
  const d = view();
  if (t === "double") d.setFloat64(base + offset + 8 * k, v, true);
  else if (t === "float") d.setFloat32(base + offset + 4 * k, v, true);
  else if (t === "int64_t") d.setBigInt64(base + offset + 8 * k, BigInt(v), true);
  else if (t === "int32_t") d.setInt32(base + offset + 4 * k, v, true);
  else if (t === "uint8_t") d.setUint8(base + offset + k, v);
});
const get = (base, [offset, t, n]) => Array.from({length: n}, (_, k) => {
  const d = view();
  if (t === "double") return d.getFloat64(base + offset + 8 * k, true);
  if (t === "float") return d.getFloat32(base + offset + 4 * k, true);
  if (t === "int64_t") return d.getBigInt64(base + offset + 8 * k, true).toString();
  if (t === "int32_t") return d.getInt32(base + offset + 4 * k, true);
  if (t === "uint8_t") return d.getUint8(base + offset + k);
});
out.struct = plan.struct.map(({name, inSize, outSize, inputs, outputs, args, types}) => {
  const inp = ex.scaly_alloc(Math.max(inSize, 1)), o = ex.scaly_alloc(outSize);
  new Uint8Array(memory.buffer, o, outSize).fill(0xAB);
  inputs.forEach((f) => put(inp, f));
  if (args) ex[name](o, ...args.map((v, k) => arg(v, types[k])));
  else ex[name](o, inp);
  const r = outputs.map((f) => get(o, f));
  ex.scaly_free(inp);
  ex.scaly_free(o);
  return r;
});

// The pointers export on the host's buffers, without a workspace (w = 0).
out.pointers = plan.pointers.map(({name, inputs, outputs}) => {
  const bytes = {double: 8, float: 4, int64_t: 8, int32_t: 4, uint8_t: 1};
  const ins = inputs.map(([t, values]) => ex.scaly_alloc(bytes[t] * values.length));
  inputs.forEach(([t, values], k) => put(ins[k], [0, t, values]));
  const outs = outputs.map(([t, n]) => ex.scaly_alloc(bytes[t] * n));
  const argp = ex.scaly_alloc(4 * ins.length), resp = ex.scaly_alloc(4 * outs.length);
  ins.forEach((q, k) => view().setUint32(argp + 4 * k, q, true));
  outs.forEach((q, k) => view().setUint32(resp + 4 * k, q, true));
  ex[name](argp, resp, 0, 0, 0);
  return outputs.map(([t, n], k) => get(outs[k], [0, t, n]));
});

// A sparse output's index tables, at the addresses their exports return.
out.tables = plan.tables.map(([name, n]) =>
  Array.from(new Int32Array(memory.buffer, ex[name](), n)));

// A failed call: the error import gets the message, then the call traps, and
// the instance stays usable.
try {
  ex[plan.failing](0, 0, 0, 0, 0);
  out.trap = null;
} catch (e) {
  out.trap = e.constructor.name;
}
out.errors = errors;
const [name, args, types] = plan.scalar[0];
out.after = ex[name](...args.map((v, k) => arg(v, types[k])));
console.log(JSON.stringify(out));
