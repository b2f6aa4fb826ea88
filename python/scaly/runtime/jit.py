"""The JIT: compile a Function's C module on first use and cache it on disk.

What is compiled is exactly the text `render_c_module` writes, rendered for
the host (``cpu="native"``). By default Clang compiles it in process and ORC
links the object; with ``SCALY_CC`` set, that compiler builds ``lib<name>.so``
and it is opened with dlopen. Layout of the cache root (``SCALY_CACHE_DIR``,
else ``$XDG_CACHE_HOME/scaly``, else ``~/.cache/scaly``)::

    <key>/<name>.c, <name>.h      the exact source compiled
    <key>/<name>.o | lib<name>.so  the artifact
    <key>/meta.json                SHA-256 of source and artifact, the index keys
                                   bound to it (_bind), written last
    index/<index key>.json         graph digest -> artifact, relative to the root
    compilers/<id>.json            compiler fingerprints, reused while the
                                   compiler's path, size and mtime stay the same

Every file is written to a temporary named after the process and renamed into
place, so parallel processes never see a half-written file. `<name>` is the
module's name: the Function's, or for a name too long for a file name its
first characters and a hash (`_file_stem`); the C symbol is always the
Function's name.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

from .. import _runtime
from .._core import core as _scaly
from ..codegen import _viz_watched, render_native
from .cache_files import (CacheError, _make_dirs, _read_json, _replace, _sha256,  # noqa: F401
                          _write_atomic, cache_root, sweep_temporaries)
from .compiler import CompileError, _compiler, _cpu_identity, _libraries, _run  # noqa: F401

# Raise whenever generated code or the cache layout changes.
CACHE_VERSION = "scaly-cache-5"

_IMPORT_TIME = time.time()
_VERSIONS = f"python {sys.version} numpy {np.__version__}"
_LOCK = threading.RLock()
_COUNTERS = {"render": 0, "compile": 0, "load": 0, "index_hit": 0, "memory_hit": 0}
# In-memory tables, per cache root: (root, cache key) and (root, index key)
# -> (address, owner, workspace bytes, entry name).
_BY_KEY: dict = {}
_BY_INDEX: dict = {}
_RECOMPILES = itertools.count(1)


def counters():
    """This process's JIT counters: renders, compiles, loads, index and memory hits,
    trace-free loads and entries published (runtime/fast.py), and the C++ side's counts
    of lowering, rendering and in-process compiling (zeros while the compiler module is
    not loaded: counting does not load it)."""
    out = dict(_COUNTERS)
    out.update(fast.counters())
    from .. import _core
    if _core.loaded():
        out.update(_scaly.native_counters())
    else:
        out.update({"lowered": 0, "rendered": 0, "compiled": 0})
    return out


# -- source state (for the index) ---------------------------------------------

_FILES: list = []
_PACKAGE_FILES: list = []


def _package_files():
    """The package's code files (.py, .so, .json): listed once per process."""
    if not _PACKAGE_FILES:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        files = []
        for directory, subdirs, names in os.walk(package):
            # viz/web and viz/static hold the page's assets, not code.
            subdirs[:] = [d for d in subdirs
                          if d not in ("__pycache__", "node_modules", "web", "static")]
            files += [os.path.join(directory, n) for n in names
                      if n.endswith((".py", ".so", ".json"))]
        _PACKAGE_FILES.extend(sorted(set(files)))
    return _PACKAGE_FILES


def _scaly_files():
    """Scaly's code files: the package (.py, .so, .json) and the libScaly libraries
    the compiler module loaded. Listed once per process; their state is checked on
    every use."""
    if _FILES:
        return _FILES
    files = list(_package_files())
    files += [p for k, p in _libraries().items() if k.startswith("scaly")]
    _FILES.extend(sorted(set(files)))
    return _FILES


def _source_state(light=False):
    """(digest of Scaly's code, whether it is safe to trust the index).

    Every file of the package and every Scaly library counts by name, size
    and modification time (a change of content changes the time). The index
    is not trusted when a file changed after import or less than two seconds
    before: the files on disk may then not be the code that runs. `light`:
    the package's files only (the compiler module, which links every Scaly
    library, is one of them), without loading the compiler module.
    """
    h = hashlib.sha256()
    newest = 0.0
    for path in (_package_files() if light else _scaly_files()):
        st = os.stat(path)
        newest = max(newest, st.st_mtime)
        h.update(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns};".encode())
    from .. import __version__
    h.update(f"scaly {__version__} {_VERSIONS}".encode())
    return h.hexdigest(), newest <= _IMPORT_TIME - 2.0


# -- keys --------------------------------------------------------------------

def _entry_type(fn):
    dtypes = {d for _, _, d in fn.inputs + fn.outputs}
    return "double" if dtypes <= {"float64"} else ("float" if dtypes == {"float32"} else "void")


def _abi_signature(fn):
    t = _entry_type(fn)
    ports = [(n, list(s), d) for n, s, d in fn.inputs] + [(n, list(s), d) for n, s, d in fn.outputs]
    return f"int(const {t}**, {t}**, int*, {t}*, int) {json.dumps(ports)}"


def _key(*parts):
    """SHA-256 over the parts, each preceded by its length. A tuple part is its
    pieces one after the other (hashed without building their concatenation:
    a module's source and header can be megabytes)."""
    h = hashlib.sha256()
    for part in parts:
        pieces = [p.encode() if isinstance(p, str) else p
                  for p in (part if isinstance(part, tuple) else (part,))]
        h.update(sum(len(p) for p in pieces).to_bytes(8, "little"))
        for p in pieces:
            h.update(p)
    return h.hexdigest()


# -- build and load -----------------------------------------------------------

# A file name holds at most 255 bytes; the cache adds up to 43 characters to a
# module's name (lib, _solvers.c, a temporary's pid and thread id).
_STEM_LIMIT = 128


def _file_stem(name):
    """The module name the cache's files are named after: `name`, or for a longer
    one than _STEM_LIMIT its start and a hash of it, so that every identifier
    makes valid file names (the entry's C symbol stays `name`)."""
    if len(name) <= _STEM_LIMIT:
        return name
    return f"{name[:_STEM_LIMIT - 17]}_{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _artifact_name(cc, name):
    return f"lib{name}.so" if cc.external else f"{name}.o"


def _render(cc, fn):
    _COUNTERS["render"] += 1
    return render_native(fn, cc.fp_contract, cc.lanes, cc.vector_libm, name=_file_stem(fn.name))


def _build(cc, directory: Path, module, encoded, index_key=None):
    """Compile `module` into `directory`; write source, artifact, then meta.json.
    `encoded`: its source and header as UTF-8 bytes (encoded once, for the key too);
    `index_key`: the index key bound to the artifact (see _bind), if any."""
    name = module.name
    source, header = encoded
    _write_atomic(directory / f"{name}.c", source)
    _write_atomic(directory / f"{name}.h", header)
    artifact = directory / _artifact_name(cc, name)
    _COUNTERS["compile"] += 1
    if cc.external:
        tmp = artifact.with_name(f"{artifact.name}.tmp.{os.getpid()}.{threading.get_ident()}")
        try:
            cmd = [*cc.command, *cc.compile_flags(), "-shared", "-o", str(tmp),
                   str(directory / f"{name}.c"), *cc.link_flags()]
            _run(cmd, f"compiling {name}")
            data = tmp.read_bytes()
            _replace(tmp, artifact)
        finally:
            if tmp.exists():
                tmp.unlink()
    else:
        try:
            data = _scaly.jit_compile([(f"{name}.c", module.source),
                                       (f"{name}.h", module.header)], cc.compile_flags())
        except RuntimeError as e:
            raise CompileError(str(e)) from None
        _write_atomic(artifact, data)
    meta = {"name": name, "artifact": artifact.name, "source_sha256": _sha256(source),
            "header_sha256": _sha256(header), "artifact_sha256": _sha256(data),
            "workspace_bytes": module.entries[0].workspace_bytes,
            "index_keys": [index_key] if index_key else []}
    _write_atomic(directory / "meta.json", json.dumps(meta).encode())
    return data


# The index keys a meta.json lists (the latest bound last): each index entry
# is bound to its artifact by its key there. A key pushed out by newer ones
# (other graphs or versions of Scaly rendering the same C) is bound again the
# next time its graph renders.
_BOUND_KEYS = 64


def _bound_to(meta, index_key):
    """Whether `meta` lists `index_key`: an index entry naming an artifact that does
    not (another function's, with the same name and signature) is refused."""
    keys = meta.get("index_keys")
    return isinstance(keys, list) and index_key in keys


def _bind(directory: Path, index_key):
    """List `index_key` in the meta.json of `directory` (rewritten atomically), before
    an index entry under that key names its artifact. Returns False when there is
    no meta.json to bind to (the entry is not written)."""
    meta = _read_json(directory / "meta.json")
    if meta is None:
        return False
    if not _bound_to(meta, index_key):
        keys = meta.get("index_keys")
        keys = [k for k in keys if isinstance(k, str)] if isinstance(keys, list) else []
        meta["index_keys"] = (keys + [index_key])[-_BOUND_KEYS:]
        _write_atomic(directory / "meta.json", json.dumps(meta).encode())
    return True


def _verified_artifact(cc, directory: Path, name, index_key=None):
    """(artifact bytes, workspace bytes) when the directory is complete and intact (and,
    given an `index_key`, bound to it), else None."""
    meta = _read_json(directory / "meta.json")
    if not meta or meta.get("name") != name or meta.get("artifact") != _artifact_name(cc, name):
        return None
    if index_key is not None and not _bound_to(meta, index_key):
        return None
    try:
        source = (directory / f"{name}.c").read_bytes()
        header = (directory / f"{name}.h").read_bytes()
        data = (directory / meta["artifact"]).read_bytes()
    except OSError:
        return None
    if (_sha256(source) != meta.get("source_sha256") or _sha256(header) != meta.get("header_sha256")
            or _sha256(data) != meta.get("artifact_sha256")):
        return None
    workspace = meta.get("workspace_bytes")
    if type(workspace) is not int or not 0 <= workspace < 1 << 40:
        return None
    return data, workspace


from . import fast  # noqa: E402
from .solver_link import SolverModule, compiler_command, solver_fingerprint  # noqa: E402
from .solver_link import link_flags as solver_link_flags  # noqa: E402


def _load(cc, directory: Path, name, symbol, data):
    """Link the artifact of module `name` into the process; returns (address of entry
    `symbol`, owner)."""
    _COUNTERS["load"] += 1
    if cc.external:
        import ctypes  # only shared libraries from SCALY_CC are opened with dlopen
        lib = ctypes.CDLL(str(directory / f"lib{name}.so"), mode=os.RTLD_LOCAL | os.RTLD_NOW)
        return ctypes.cast(getattr(lib, symbol), ctypes.c_void_p).value, lib
    obj = _scaly.jit_load(data, name)
    return obj.lookup(symbol), obj


def _load_or_build(cc, fn, root: Path, key, module, encoded, index_key=None):
    """Load the artifact under `key`, rebuilding it when missing or damaged."""
    directory = root / key
    name = module.name
    verified = _verified_artifact(cc, directory, name)
    data = verified[0] if verified else None
    for attempt in range(2):
        if data is None:
            data = _build(cc, directory, module, encoded, index_key)
        try:
            address, owner = _load(cc, directory, name, fn.name, data)
            return address, owner, directory
        except (OSError, RuntimeError, AttributeError):
            if attempt:
                raise
            data = None  # garbage that passed the checks: rebuild once
    raise AssertionError("unreachable")


def compile_function(fn):
    """Make `fn` callable: load its artifact from memory, the index or the cache, or build it."""
    with _LOCK:
        if fn._kernel is not None:
            return fn._kernel
        cc = _compiler()
        root = cache_root()
        abi = _abi_signature(fn)
        compile_cmd = " ".join(cc.command + cc.flags())
        recompiled = fn._recompile_id is not None
        index_key = None
        trusted = False
        # A function scaly.viz watches is always rendered (each compile records).
        if not recompiled and not _viz_watched([fn])[1]:
            source_digest, trusted = _source_state()
            index_key = _key(_scaly.graph_digest(fn._traced), source_digest, CACHE_VERSION, abi,
                             cc.recipe(),
                             cc.fingerprint, "",
                             compile_cmd)
            hit = _BY_INDEX.get((root, index_key))
            if hit is not None:
                _COUNTERS["memory_hit"] += 1
                return _make_kernel(fn, *hit)
            if trusted:
                loaded = _from_index(cc, fn, root, index_key)
                if loaded is not None:
                    _BY_INDEX[(root, index_key)] = loaded
                    return _make_kernel(fn, *loaded)
        module = _render(cc, fn)
        extra = f"recompile {os.getpid()} {fn._recompile_id}" if recompiled else ""
        wrappers = list(module.solvers)
        if wrappers:
            return _compile_with_solvers(cc, fn, root, module, wrappers, abi, extra,
                                         index_key if trusted else None)
        encoded = (module.source.encode(), module.header.encode())
        key = _key(CACHE_VERSION, abi, module.name, encoded,
                   cc.fingerprint, "", compile_cmd, extra)
        hit = None if recompiled else _BY_KEY.get((root, key))
        if hit is not None:
            _COUNTERS["memory_hit"] += 1
        else:
            address, owner, directory = _load_or_build(cc, fn, root, key, module, encoded,
                                                       index_key if trusted else None)
            # The workspace size comes back from rendering as data.
            hit = (address, owner, module.entries[0].workspace_bytes, module.name)
            if not recompiled:
                _BY_KEY[(root, key)] = hit
            # Only code that matches the files on disk may be indexed under
            # their digest (the two-second rule works both ways).
            if index_key is not None and trusted and _bind(directory, index_key):
                entry = {"artifact": f"{key}/{_artifact_name(cc, module.name)}",
                         "name": module.name}
                _write_atomic(root / "index" / f"{index_key}.json", json.dumps(entry).encode())
            if trusted and not recompiled:
                fast.publish(cc, fn, directory, module.name, hit[2])
        if index_key is not None:
            _BY_INDEX[(root, index_key)] = hit
        return _make_kernel(fn, *hit)


def _artifact_path(root: Path, entry):
    """The artifact an index entry names (`<key>/<file>`, relative to the root), or
    None for anything else: an absolute path or one leaving the root is refused."""
    if not entry or not isinstance(entry.get("artifact"), str):
        return None
    rel = Path(entry["artifact"])
    if rel.is_absolute() or ".." in rel.parts or len(rel.parts) != 2:
        return None
    return root / rel


def _from_index(cc, fn, root: Path, index_key):
    entry = _read_json(root / "index" / f"{index_key}.json")
    path = _artifact_path(root, entry)
    if path is None:
        return None
    name = entry.get("name")
    if not isinstance(name, str) or name != _file_stem(fn.name):
        return None
    directory = path.parent
    if "solvers" in entry:
        # The index key digests Scaly's own files, not the solver library's: an
        # entry built against another library (another settings layout, say) is
        # rendered and compiled again.
        if entry.get("solver_fingerprint") != solver_fingerprint():
            return None
        return _solver_from_directory(directory, name, fn.name, entry["solvers"], index_key)
    # Bound to this key: not another function's artifact under the same name.
    verified = _verified_artifact(cc, directory, name, index_key)
    if verified is None:
        return None  # deleted or damaged behind the entry: render and compile again
    data, workspace = verified
    try:
        # The workspace size comes from the verified meta.json, never the index entry.
        address, owner = _load(cc, directory, name, fn.name, data)
    except (OSError, RuntimeError, AttributeError, ValueError):
        return None
    _COUNTERS["index_hit"] += 1
    fast.publish(cc, fn, directory, name, workspace)
    return (address, owner, workspace, name)


def _make_kernel(fn, address, owner, workspace_bytes, name):
    kernel = _runtime.Kernel(address, owner, fn.name, fn.inputs, fn.outputs, workspace_bytes)
    fn._kernel = kernel
    fn._solver_module = owner if isinstance(owner, SolverModule) else None
    fn._workspace_bytes = workspace_bytes
    return kernel


# -- modules that reach a solver ------------------------------------------------

def _solver_meta_ok(directory: Path, name: str, wrappers, index_key=None):
    """(library bytes, workspace bytes) when a solver module's directory is complete
    (and, given an `index_key`, bound to it)."""
    meta = _read_json(directory / "meta.json")
    if not meta or meta.get("name") != name or meta.get("solvers") != list(wrappers):
        return None
    if index_key is not None and not _bound_to(meta, index_key):
        return None
    try:
        files = {f: (directory / f).read_bytes()
                 for f in (f"{name}.c", f"{name}.h", f"{name}_solvers.c", f"lib{name}.so")}
    except OSError:
        return None
    if any(_sha256(data) != meta.get("sha256", {}).get(f) for f, data in files.items()):
        return None
    workspace = meta.get("workspace_bytes")
    if type(workspace) is not int or not 0 <= workspace < 1 << 40:
        return None
    return files[f"lib{name}.so"], workspace


def _solver_from_directory(directory: Path, name: str, symbol: str, wrappers, index_key):
    if not isinstance(wrappers, list) or not all(isinstance(w, str) for w in wrappers):
        return None
    verified = _solver_meta_ok(directory, name, wrappers, index_key)
    if verified is None:
        return None
    try:
        module = SolverModule(directory / f"lib{name}.so", symbol, wrappers)
    except (OSError, AttributeError):
        return None
    _COUNTERS["index_hit"] += 1
    return (module.address, module, verified[1], name)


def _compile_with_solvers(cc, fn, root: Path, module, wrappers, abi, extra, index_key):
    """Build (or find) the shared library of a module that calls solver wrappers:
    its source and its wrapper source compiled together, linked to the solvers'
    native libraries, opened with dlmopen."""
    name = module.name
    wrapper_source = module.solver_source
    encoded = (module.source.encode(), module.header.encode(), wrapper_source.encode())
    command = compiler_command(cc)
    flags = cc.compile_flags() + ["-shared"]
    links = solver_link_flags() + cc.link_flags()
    key = _key(CACHE_VERSION, abi, name, encoded, cc.fingerprint, solver_fingerprint(),
               " ".join(command + flags + links), extra)
    hit = None if extra else _BY_KEY.get((root, key))
    if hit is not None:
        _COUNTERS["memory_hit"] += 1
        return _make_kernel(fn, *hit)
    directory = root / key
    verified = _solver_meta_ok(directory, name, wrappers)
    if verified is None:
        files = {f"{name}.c": encoded[0], f"{name}.h": encoded[1],
                 f"{name}_solvers.c": encoded[2]}
        for f, data in files.items():
            _write_atomic(directory / f, data)
        library = directory / f"lib{name}.so"
        tmp = library.with_name(f"{library.name}.tmp.{os.getpid()}.{threading.get_ident()}")
        _COUNTERS["compile"] += 1
        try:
            _run([*command, *flags, "-o", str(tmp), str(directory / f"{name}.c"),
                  str(directory / f"{name}_solvers.c"), *links], f"compiling {name} with its solvers")
            data = tmp.read_bytes()
            _replace(tmp, library)
        finally:
            if tmp.exists():
                tmp.unlink()
        files[f"lib{name}.so"] = data
        meta = {"name": name, "solvers": list(wrappers),
                "sha256": {f: _sha256(d) for f, d in files.items()},
                "workspace_bytes": module.entries[0].workspace_bytes,
                "index_keys": [index_key] if index_key else []}
        _write_atomic(directory / "meta.json", json.dumps(meta).encode())
    opened = SolverModule(directory / f"lib{name}.so", fn.name, wrappers)
    hit = (opened.address, opened, module.entries[0].workspace_bytes, name)
    if not extra:
        _BY_KEY[(root, key)] = hit
    if index_key is not None and _bind(directory, index_key):
        entry = {"artifact": f"{key}/lib{name}.so", "name": name, "solvers": list(wrappers),
                 "solver_fingerprint": solver_fingerprint()}
        _write_atomic(root / "index" / f"{index_key}.json", json.dumps(entry).encode())
        _BY_INDEX[(root, index_key)] = hit
    return _make_kernel(fn, *hit)


def call_with_options(fn, args, options):
    """Evaluate `fn` with call-time solver options through its `_with_options` entry.

    `options`: a dict of option names to values for every solver `fn` reaches
    (QP options, or the NLP backend's), or a list with one dict (or None) per
    solver in the order of `fn.stats()`.
    """
    import ctypes
    import numpy as np
    from ..solvers.nlp_options import option_array as nlp_option_array
    from ..solvers.wrapper import option_array
    if fn._kernel is None:
        compile_function(fn)
    module = fn._solver_module
    if module is None:
        raise TypeError(f"{fn.name}() got options, but it reaches no solver")
    count = len(module.wrappers)
    if isinstance(options, dict):
        per = [options] * count
    elif isinstance(options, (list, tuple)):
        if len(options) != count:
            raise ValueError(f"{fn.name}(): options lists {len(options)} solvers, the function "
                             f"reaches {count}")
        per = list(options)
    else:
        raise TypeError(f"{fn.name}(): options must be a dict (or a list of dicts, one per "
                        f"solver), got {type(options).__name__}")
    kinds = [module.kind(k) for k in range(count)]
    arrays = [None if o is None else option_array(o) if kind == "qp" else
              nlp_option_array(kind, o, f"{fn.name}()") for o, kind in zip(per, kinds)]
    if len(args) != len(fn.inputs):
        raise TypeError(f"{fn.name}() takes {len(fn.inputs)} inputs, got {len(args)}")
    inputs = []
    for (name, shape, dtype), a in zip(fn.inputs, args):
        given = np.asarray(a)
        # As the fast path: the exact shape, and only conversions that lose nothing.
        if given.shape != tuple(shape):
            raise ValueError(f"{fn.name}(): input '{name}' has shape {given.shape}, expected "
                             f"{tuple(shape)}")
        if not np.can_cast(given.dtype, dtype, "safe") and not (
                given.dtype.kind in "iu" and np.dtype(dtype).kind in "iuf"
                and np.array_equal(given.astype(dtype), given)):
            raise TypeError(f"{fn.name}(): input '{name}' has dtype {given.dtype}, which does "
                            f"not convert to {dtype} without loss")
        inputs.append(np.ascontiguousarray(given, dtype=dtype))
    outputs = [np.empty(shape, dtype=dtype) for _, shape, dtype in fn.outputs]
    work = np.empty(max(fn._workspace_bytes, 8) // 8 + 8, np.float64)
    arg = (ctypes.c_void_p * max(1, len(inputs)))(*[a.ctypes.data for a in inputs])
    res = (ctypes.c_void_p * max(1, len(outputs)))(*[o.ctypes.data for o in outputs])
    opts = (ctypes.c_void_p * count)(*[None if a is None else a.ctypes.data for a in arrays])
    status = module.with_options(ctypes.cast(arg, ctypes.c_void_p), ctypes.cast(res, ctypes.c_void_p),
                                 None, work.ctypes.data, 0, ctypes.cast(opts, ctypes.c_void_p))
    if status != 0:
        raise RuntimeError(f"{fn.name}_with_options returned status {status}")
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def solver_stats(fn):
    """The latest statistics of each solver `fn` reaches (see Function.stats)."""
    from ..solvers.nlp_options import IPOPT_STATUS_NAMES, SQP_STATUS_NAMES
    from ..solvers.qp import stats_dict
    if fn._kernel is None:
        compile_function(fn)
    module = fn._solver_module
    if module is None:
        raise TypeError(f"{fn.name} reaches no solver: it has no solver statistics")
    names = {"ipopt": IPOPT_STATUS_NAMES, "sqp": SQP_STATUS_NAMES}
    out = {}
    for k, w in enumerate(module.wrappers):
        kind = module.kind(k)
        out[w] = dict(stats_dict(module.stats(k), names.get(kind)), solver=kind)
    return out


def recompile_function(fn):
    """Drop `fn`'s handle; its next call or compile() builds again under a fresh key."""
    with _LOCK:
        fn._kernel = None
        fn._recompile_id = next(_RECOMPILES)


def call_numeric(fn, args):
    """Evaluate `fn` on NumPy arrays, lists or scalars (compiling on first use)."""
    kernel = fn._kernel or compile_function(fn)
    return kernel(*args)

