"""Scaly kernels inside a host's WebAssembly instance (docs/wasm.md).

`build(functions, out_dir)` compiles one module of entries for wasm32: an
object archive a host links into its own instance (sharing its linear memory
and its malloc), a standalone module, and manifest.json. The host side:
`load_manifest`, `check_signature` (before a kernel replaces a function),
`to_wasm`/`from_wasm` (the marshalling rules) and `calc_layout` (struct
layout by C's rules on wasm32). scaly/wasm/js/scaly_wasm.mjs is the same host
side for JavaScript engines (Node.js, browsers).
"""

from .archive import WasmBuild, build, cache_key
from .binary import read_signatures
from .layout import calc_layout, typed_struct_layout
from .manifest import SignatureError, check_signature, load_manifest, wasm_type
from .marshal import WASM_TYPES, from_wasm, to_wasm
from .toolchain import WasmToolchainError

__all__ = ["WasmBuild", "build", "cache_key", "read_signatures", "calc_layout",
           "typed_struct_layout", "SignatureError", "check_signature", "load_manifest",
           "wasm_type", "WASM_TYPES", "from_wasm", "to_wasm", "WasmToolchainError"]
