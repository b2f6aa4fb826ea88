"""manifest.json: what a WebAssembly build exports, read off what the backend
emitted (the rendered module's entries, the C functions the emitter printed,
the shim's exports) and what the linker produced (the export signatures in the
binary). The format is documented in docs/wasm.md."""

from __future__ import annotations

import json
from pathlib import Path

from .binary import read_signatures
from .layout import TYPED_STRUCT_ALIGN, typed_struct_fields, calc_layout
from .marshal import WASM_TYPES
from .toolchain import WasmToolchainError, versions

FORMAT = "scaly-wasm-manifest-1"

_C_WASM = {"double": "f64", "float": "f32", "int64_t": "i64", "int32_t": "i32", "int": "i32",
           "uint8_t": "i32", "uint32_t": "i32"}


class SignatureError(RuntimeError):
    """A kernel's manifest entry does not match the function it would replace."""


def wasm_type(c_type):
    """The WebAssembly value type a C parameter or result of `c_type` becomes on
    wasm32 (None for void)."""
    c_type = c_type.replace("const ", "").strip()
    if c_type == "void":
        return None
    if c_type.endswith("*"):
        return "i32"
    return _C_WASM[c_type]


def _port(p, c):
    name, shape, dtype = p
    return {"name": name, "shape": list(shape), "dtype": dtype, "field": c["field"],
            "c_type": c["c_type"], "wasm": WASM_TYPES[dtype]}


def _struct(entry, suffix, ports):
    fields = typed_struct_fields(ports)
    offsets, size, align = calc_layout(fields, TYPED_STRUCT_ALIGN)
    return {"c_name": f"{entry}_{suffix}", "size": size, "align": align,
            "fields": [{"field": f, "c_type": t, "count": n, "offset": offsets[f]}
                       for f, t, n in fields if f != "unused_"]}


def _export(x, binary_exports):
    """One shim export: its C declaration and its signature in the binary, which
    must be the one its C types give."""
    params = [wasm_type(t) for t, _ in x["c_params"]]
    result = wasm_type(x["c_result"])
    kind, signature = binary_exports.get(x["name"], (None, None))
    if kind != "func":
        raise WasmToolchainError(f"scaly.wasm: the linked module lacks the export {x['name']}")
    expected = (tuple(params), (result,) if result else ())
    if signature != expected:
        raise WasmToolchainError(f"scaly.wasm: export {x['name']} has signature {signature} in "
                                 f"the linked module, but its C declaration gives {expected}")
    return {"name": x["name"], "c_result": x["c_result"],
            "c_params": [f"{t} {n}" for t, n in x["c_params"]], "params": params,
            "result": result}


def make_manifest(module, functions, wasm_path, key, flags=()):
    """The manifest of a build of rendered `module` (scaly.codegen.RenderedModule
    with its wasm shim) from `functions`, linked into `wasm_path`."""
    signatures = read_signatures(Path(wasm_path).read_bytes())
    binary = signatures["exports"]
    emitted = {f["name"]: f for f in module.functions}
    exports = [dict(x) for x in module.wasm_exports]
    no_scalar = dict(module.wasm_no_scalar)
    entries = []
    for fn, info in zip(functions, module.entries):
        c = emitted[info.name]
        mine = [x for x in exports if x["entry"] == info.name]
        by_kind = {x["kind"]: _export(x, binary) for x in mine if x["kind"] != "table"}
        lengths = {f"{p['field']}_{t.lower()}": n for p in info.c_outputs for t, n in p["tables"]}
        tables = [dict(_export(x, binary), output_table=x["detail"], length=lengths[x["detail"]])
                  for x in mine if x["kind"] == "table"]
        entries.append({
            "name": info.name,
            "inputs": [_port(p, c_) for p, c_ in zip(fn.inputs, info.c_inputs)],
            "outputs": [_port(p, c_) for p, c_ in zip(fn.outputs, info.c_outputs)],
            "c_name": c["name"], "header": f"{module.name}.h",
            "c_params": c["params"], "c_restype": c["result"],
            "pointer_type": info.pointer_type, "workspace_bytes": info.workspace_bytes,
            "exports": {"pointers": by_kind["pointers"], "struct": by_kind["struct"],
                        "scalar": by_kind.get("scalar")},
            "no_scalar_export": no_scalar[info.name] or None,
            "structs": {"in": _struct(info.name, "in", info.c_inputs),
                        "out": _struct(info.name, "out", info.c_outputs)},
            "tables": tables,
        })
    entry_names = {e["name"] for e in entries}
    left_out = [{"c_name": f["name"], "c_params": f["params"], "c_restype": f["result"],
                 "reason": f"internal procedure ({f['specifiers'] or 'static'}) of the module: "
                           "reached only through the entries, never exported"}
                for f in module.functions if f["name"] not in entry_names]
    layout = next(x for x in exports if x["kind"] == "layout")
    return {
        "format": FORMAT, "module": module.name, "target": "wasm32-wasi", "cache_key": key,
        "compile_flags": list(flags), "recipe": module.recipe,
        "toolchain": versions(), "archive": f"lib{module.name}.a", "wasm": f"{module.name}.wasm",
        "header": f"{module.name}.h", "exports_header": f"{module.name}_wasm.h",
        "shim": f"{module.name}_wasm.c",
        "imports": [{"module": m, "name": n, "params": list(s[0]), "result": (s[1] or [None])[0]}
                    for m, n, kind, s in signatures["imports"] if kind == "func"],
        "allocation": {"alloc": "scaly_alloc", "free": "scaly_free",
                       "archive": "libscaly_alloc.a",
                       "note": "exported by the standalone module; a host linking the archive "
                               "uses its own malloc, or links libscaly_alloc.a (with wasi-libc) "
                               "for these exports"},
        # The table lists, per struct, each field's offset, then each field's size.
        "layout": dict(_export(layout, binary), table_fields=["offset", "size"]),
        "status_codes": [{"value": v, "name": n, "meaning": m} for v, n, m in module.status_codes],
        "entries": entries,
        "left_out": left_out,
    }


def load_manifest(path):
    """Read a manifest.json, checking its format."""
    try:
        manifest = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"scaly.wasm: cannot read the manifest {path}: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"scaly.wasm: {path} is not a Scaly wasm manifest (format {FORMAT!r})")
    return manifest


def _describe(ports):
    return ", ".join(f"{p[0]}: {p[2]}{list(p[1])}" for p in ports)


def check_signature(manifest, fn):
    """The manifest's entry for Function `fn`, after checking that its inputs and
    outputs (names, shapes, dtypes, in order) are the manifest's: a kernel
    replaces a function only when the two agree. Raises SignatureError naming
    both signatures otherwise, or when the manifest has no such entry."""
    entry = next((e for e in manifest["entries"] if e["name"] == fn.name), None)
    if entry is None:
        raise SignatureError(f"scaly.wasm: the manifest of module {manifest['module']!r} has no "
                             f"entry {fn.name!r} (it has "
                             f"{', '.join(e['name'] for e in manifest['entries'])})")
    ours = ([(n, tuple(s), d) for n, s, d in fn.inputs], [(n, tuple(s), d) for n, s, d in fn.outputs])
    theirs = ([(p["name"], tuple(p["shape"]), p["dtype"]) for p in entry["inputs"]],
              [(p["name"], tuple(p["shape"]), p["dtype"]) for p in entry["outputs"]])
    if ours != theirs:
        raise SignatureError(
            f"scaly.wasm: kernel out of sync: {fn.name} is ({_describe(ours[0])}) -> "
            f"({_describe(ours[1])}) but the manifest says ({_describe(theirs[0])}) -> "
            f"({_describe(theirs[1])})")
    return entry
