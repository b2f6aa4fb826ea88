"""Build one module of Scaly entries for wasm32: an object archive to link into
a host's own instance, a standalone reactor module, and the manifest read off
what was built. Builds are cached under a key over everything that goes in."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from .. import __version__
from .._function import Function
from ..codegen import _aot_options, _render_recorded, default_scalarize_limit
from ..runtime.jit import _key, _sha256, _write_atomic, cache_root
from . import toolchain
from .manifest import make_manifest

#: Bumped when the layout of a cached build changes.
WASM_CACHE_VERSION = "scaly-wasm-1"

#: The archive of the allocation exports (the same for every module: link one).
ALLOC_ARCHIVE = "libscaly_alloc.a"


@dataclass(frozen=True)
class WasmBuild:
    """What `build` wrote into `out_dir`: the files' paths, and the manifest."""

    name: str
    out_dir: Path
    archive: Path
    wasm: Path
    manifest_path: Path
    header: Path
    exports_header: Path
    manifest: dict
    #: Whether the objects came from the cache.
    cached: bool

    def files(self):
        """Every file of the build, by name."""
        return {p.name: p for p in (self.archive, self.wasm, self.manifest_path, self.header,
                                    self.exports_header, self.out_dir / f"{self.name}.c",
                                    self.out_dir / f"{self.name}_wasm.c",
                                    self.out_dir / "scaly_alloc.c", self.out_dir / ALLOC_ARCHIVE)}


def _render(functions, name, scalarize_limit, lanes):
    if scalarize_limit is None:
        scalarize_limit = default_scalarize_limit(lanes)
    functions, options = _aot_options(functions, name=name, cpu="generic", lanes=lanes, dialect="gnu",
                                      vector_libm="none", reciprocal=False, lang="c",
                                      casadi=False, fp_contract="off",
                                      scalarize_limit=scalarize_limit, record_stages=False,
                                      caller="scaly.wasm.build")
    options["wasm_shim"] = True
    module = _render_recorded(functions, options, "wasm")
    if module.solvers:
        raise ValueError("scaly.wasm.build: these functions reach a solver (sc.qp); the QP "
                         "library is not built for wasm32, so they cannot be built for "
                         "WebAssembly yet")
    return functions, module


def _sources(module):
    n = module.name
    return {f"{n}.c": module.source, f"{n}.h": module.header, f"{n}_wasm.c": module.wasm_shim,
            f"{n}_wasm.h": module.wasm_header, "scaly_alloc.c": module.wasm_alloc}


def _outputs(module):
    """Every file of a build: what is built, then the sources."""
    n = module.name
    return [f"lib{n}.a", ALLOC_ARCHIVE, f"{n}.wasm", "manifest.json", *_sources(module)]


def _package_digest():
    """Scaly's build logic for wasm: the files of this package."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in sorted(here.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def compile_flags(lanes):
    """The flags of the module's objects: the toolchain's, plus -msimd128 (128-bit
    WebAssembly SIMD, which every current engine runs) when loops are widened."""
    return [*toolchain.COMPILE_FLAGS, *(["-msimd128"] if lanes > 1 else [])]


def cache_key(sources, flags=toolchain.COMPILE_FLAGS):
    """The key of a build: the sources and headers, the compile and link flags,
    the toolchain's versions, and Scaly's version and wasm build logic."""
    return _key(WASM_CACHE_VERSION, __version__, _package_digest(),
                json.dumps(toolchain.versions(), sort_keys=True),
                json.dumps([list(flags), toolchain.STACK_BYTES]),
                *(f"{k}\0{v}" for k, v in sorted(sources.items())))


def _compile_and_link(directory, name, flags):
    """In `directory` (holding the sources): the objects, lib<name>.a and <name>.wasm.
    Relative paths only, so the outputs do not depend on where they were built."""
    clang, ar, ld = toolchain.tool("clang"), toolchain.tool("llvm-ar"), toolchain.tool("wasm-ld")
    libc, builtins = toolchain.libraries()
    obj = f"{name}_wasm.o"
    toolchain.run([clang, *flags, "-c", f"{name}_wasm.c", "-o", obj], directory,
                  f"compiling {name}_wasm.c for wasm32")
    toolchain.run([clang, *toolchain.COMPILE_FLAGS, "-c", "scaly_alloc.c", "-o", "scaly_alloc.o"],
                  directory, "compiling scaly_alloc.c for wasm32")
    archive = f"lib{name}.a"
    toolchain.run([ar, "rcsD", archive, obj], directory, f"archiving {archive}")
    # The allocation exports on their own, for a host that links the archive
    # but has no malloc of its own (wasi-libc's then serves them).
    toolchain.run([ar, "rcsD", ALLOC_ARCHIVE, "scaly_alloc.o"], directory,
                  f"archiving {ALLOC_ARCHIVE}")
    toolchain.run([ld, "--no-entry", "--strip-debug", "-z", f"stack-size={toolchain.STACK_BYTES}",
                   "--whole-archive", archive, "--no-whole-archive", "scaly_alloc.o",
                   toolchain.reactor_start(), libc, builtins, "-o", f"{name}.wasm"],
                  directory, f"linking {name}.wasm")
    for o in (obj, "scaly_alloc.o"):
        os.unlink(os.path.join(directory, o))


def _check_layout(directory, manifest):
    """Compile, for wasm32, static assertions that every typed struct has the
    size, alignment and offsets calc_layout gives (the manifest's): a build
    whose layout rules drifted from C's fails here, not as garbage later."""
    lines = ["#include <stddef.h>", f'#include "{manifest["header"]}"', ""]
    for entry in manifest["entries"]:
        for s in entry["structs"].values():
            t = s["c_name"]
            lines.append(f'_Static_assert(sizeof({t}) == {s["size"]}, "{t}: sizeof differs from '
                         f'calc_layout\'s {s["size"]}");')
            lines.append(f'_Static_assert(_Alignof({t}) == {s["align"]}, "{t}: _Alignof differs '
                         f'from calc_layout\'s {s["align"]}");')
            for f in s["fields"]:
                lines.append(f'_Static_assert(offsetof({t}, {f["field"]}) == {f["offset"]}, '
                             f'"{t}.{f["field"]}: offset differs from calc_layout\'s '
                             f'{f["offset"]}");')
    path = "layout_check.c"
    (directory / path).write_text("\n".join(lines) + "\n")
    try:
        toolchain.run([toolchain.tool("clang"), *toolchain.COMPILE_FLAGS, "-fsyntax-only", path],
                      directory, "checking the typed structs' layout on wasm32")
    finally:
        (directory / path).unlink()


def _cached(directory, files):
    """Whether `directory` holds a complete build whose files match meta.json."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
        return all(meta["files"].get(f) == _sha256((directory / f).read_bytes()) for f in files)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def _build_into_cache(root, key, module, functions, flags):
    """The cache folder of `key`, built if missing or damaged. A build happens in a
    temporary folder renamed into place whole: nothing half-written is ever there."""
    final = root / key
    name = module.name
    outputs = _outputs(module)
    if _cached(final, outputs):
        return final, True
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{key[:16]}.tmp.", dir=root))
    try:
        for file, text in _sources(module).items():
            (tmp / file).write_text(text)
        _compile_and_link(tmp, name, flags)
        manifest = make_manifest(module, functions, tmp / f"{name}.wasm", key, flags)
        _check_layout(tmp, manifest)
        (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        meta = {"key": key, "files": {f: _sha256((tmp / f).read_bytes()) for f in outputs}}
        (tmp / "meta.json").write_text(json.dumps(meta, indent=1))
        if final.exists():  # damaged: moved aside, then removed
            aside = root / f"{key[:16]}.damaged.{os.getpid()}.{threading.get_ident()}"
            os.replace(final, aside)
            shutil.rmtree(aside, ignore_errors=True)
        try:
            os.replace(tmp, final)
        except OSError:
            if not _cached(final, outputs):  # another process's build won the race
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final, False


def build(functions, out_dir, *, name=None, scalarize_limit=None, lanes=1, cache_dir=None):
    """Build Scaly `functions` (one Function or a list) for wasm32 into `out_dir`.

    Writes, for module `name` (default: the first function's name):
    lib<name>.a, a wasm32 object archive holding only the entries' code, to
    link into a host's own instance (its memory, its malloc); <name>.wasm, a
    standalone reactor module (call `_initialize` once) with scaly_alloc and
    scaly_free exports (also alone in libscaly_alloc.a, for a host without a
    malloc of its own); manifest.json (docs/wasm.md: each entry's Scaly and C
    views and export names, what was left out and why, the struct layouts);
    <name>.c/.h, the shim <name>_wasm.c and its declarations <name>_wasm.h.

    `lanes` (1, 2 or 4) widens loops of independent iterations as
    render_c_module's lanes do, compiled with -msimd128 (WebAssembly's 128-bit
    SIMD) when above 1; math functions stay wasi-libc's, one lane at a time.

    Builds are cached under SCALY_CACHE_DIR (or `cache_dir`)/wasm, keyed over
    the sources, headers, toolchain versions and Scaly's version; the same
    sources give the same archive, byte for byte. Returns a `WasmBuild`.
    """
    fns = list(functions) if isinstance(functions, (list, tuple)) else [functions]
    for f in fns:
        if not isinstance(f, Function):
            raise TypeError(f"scaly.wasm.build: expected a scaly Function or a list of them, got "
                            f"{type(f).__name__}")
    if not isinstance(out_dir, (str, os.PathLike)):
        raise TypeError(f"scaly.wasm.build: out_dir must be a path, got {type(out_dir).__name__}")
    if type(lanes) is not int or lanes not in (1, 2, 4):
        raise ValueError(f"scaly.wasm.build: lanes={lanes!r} is not one of 1, 2, 4 (WebAssembly "
                         "SIMD is 128 bits: 2 doubles or 4 floats per instruction)")
    fns, module = _render(fns, name, scalarize_limit, lanes)
    sources = _sources(module)
    flags = compile_flags(lanes)
    key = cache_key(sources, flags)
    if cache_dir is None:
        cache_dir = cache_root()
    folder, cached = _build_into_cache(Path(cache_dir) / "wasm", key, module, fns, flags)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    n = module.name
    for file in _outputs(module):
        _write_atomic(out / file, (folder / file).read_bytes())
    manifest = json.loads((out / "manifest.json").read_text())
    return WasmBuild(n, out, out / f"lib{n}.a", out / f"{n}.wasm", out / "manifest.json",
                     out / f"{n}.h", out / f"{n}_wasm.h", manifest, cached)
