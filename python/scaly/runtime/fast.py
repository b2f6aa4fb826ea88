"""The trace-free index: Functions compiled before, loaded without the compiler.

The cache's index (jit.py) is keyed by the traced graph, so using it takes a
trace, and tracing takes the compiler module (libLLVM, libMLIR, libclang-cpp:
~100 ms to load). This index is keyed by what the trace is made from instead:

    index/fast-<key>.json   {"artifact": "<cache key>/lib<name>.so", "sha256",
                             "name", "inputs", "outputs", "workspace_bytes",
                             "stamps": the compiler's files (path, size, mtime)}

where <key> digests the decorated Python function's code, the values it reads
(globals, closure cells, defaults, and the attributes of every user module it
reaches, however it reaches it, that any code it reaches names), the
declarations, Scaly's files and version, the compiler settings and the CPU.
On a hit, `@sc.function` opens the shared object with dlopen and the Function
is callable at once; the trace is made only if something asks for the graph
(a derivative, mlir(), a call inside another trace).

A function is left to the ordinary path (traced at decoration, as always)
when any value it reads cannot be digested (an object of a user class, say),
when scaly.viz is recording, or with SCALY_TRACE_FREE=0. The one assumption:
tracing depends on nothing else. A function that reads a file, the clock or a
random generator while it is traced gets the values of the process that
compiled it; set SCALY_TRACE_FREE=0 for such functions (docs/jit.md).

The shared object is linked from the in-process compiler's object file by a
background thread after the first compile (the process that compiled it
already runs the code through ORC), with the system's C compiler driver.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading
import types
from pathlib import Path

import numpy as np

from .. import _runtime

FAST_VERSION = "scaly-fast-1"
# Modules whose functions and attributes count by name: their code is Scaly's
# own (digested as files) or a library's, not the model's.
_OPAQUE = ("scaly", "numpy", "math", "cmath", "builtins", "functools", "itertools", "operator")
_SIMPLE = (type(None), bool, int, float, complex, str, bytes)
_COUNTERS = {"fast_hit": 0, "fast_published": 0}
_PENDING: list = []
_PENDING_LOCK = threading.Lock()


class _Opaque(Exception):
    """A value the key cannot digest: the function is traced as usual."""


class _Walk(set):
    """What one key's digest has met: the functions digested (the set), every name
    any code reached reads (`names`), and the user modules reached (`modules`),
    whose attributes of those names are digested last (a module reached through a
    closure, a package attribute or a helper's return value is read by names the
    code that holds it need not contain)."""

    def __init__(self):
        super().__init__()
        self.names = set()
        self.modules = {}


def enabled():
    """Whether the trace-free index is used (SCALY_TRACE_FREE, default on; never
    while scaly.viz records)."""
    if os.environ.get("SCALY_TRACE_FREE", "1").lower() in ("0", "off", "false", "no"):
        return False
    return "scaly.viz.recording" not in sys.modules


# -- the key ------------------------------------------------------------------

def _opaque_module(name):
    return isinstance(name, str) and name.split(".")[0] in _OPAQUE


def _value(h, v, seen, depth=0):
    if depth > 50:
        raise _Opaque("nested too deeply")
    t = type(v)
    if t in _SIMPLE:
        h.update(f"{t.__name__}:{v!r};".encode())
    elif t is np.ndarray:
        if v.dtype.hasobject:
            raise _Opaque("an object array")
        h.update(f"nd:{v.dtype.str}:{v.shape};".encode())
        h.update(np.ascontiguousarray(v).tobytes())
    elif isinstance(v, np.generic):
        h.update(f"np:{v.dtype.str}:{v!r};".encode())
    elif t in (tuple, list):
        h.update(f"{t.__name__}{len(v)}(".encode())
        for item in v:
            _value(h, item, seen, depth + 1)
        h.update(b")")
    elif t is dict:
        h.update(f"dict{len(v)}(".encode())
        for k in sorted(v, key=repr):
            _value(h, k, seen, depth + 1)
            _value(h, v[k], seen, depth + 1)
        h.update(b")")
    elif t is types.FunctionType:
        _function(h, v, seen, depth + 1)
    elif t is types.ModuleType:
        h.update(f"module:{v.__name__};".encode())
        if not _opaque_module(v.__name__):
            seen.modules.setdefault(v.__name__, v)
    elif t is types.BuiltinFunctionType or isinstance(v, np.ufunc) or \
            (isinstance(v, type) and _opaque_module(v.__module__)):
        h.update(f"named:{getattr(v, '__module__', None)}.{getattr(v, '__qualname__', v)};".encode())
    else:
        from .._function import Arg, Function
        if isinstance(v, Function):
            key = getattr(v, "_fast_key", None)
            if key is None:
                raise _Opaque(f"Function {v.name} has no trace-free key")
            h.update(f"function:{key};".encode())
        elif isinstance(v, Arg):
            h.update(f"arg:{v!r};".encode())
        else:
            raise _Opaque(f"a {t.__name__}")


def _code(h, code, globals_, seen, depth):
    seen.names.update(code.co_names)
    h.update(code.co_code)
    h.update(repr((code.co_names, code.co_freevars, code.co_argcount,
                   code.co_kwonlyargcount, code.co_flags)).encode())
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code(h, c, globals_, seen, depth + 1)
        else:
            _value(h, c, seen, depth + 1)
    for name in code.co_names:
        if name not in globals_:
            continue  # an attribute name, or a builtin
        v = globals_[name]
        h.update(f"global:{name}=".encode())
        _value(h, v, seen, depth + 1)


_MISSING = object()


def _modules(h, seen):
    """Digest the attributes of the user modules reached that some code reached
    names, until no new one appears (digesting a value may reach more code, hence
    more names, and more modules)."""
    done = set()
    while True:
        todo = sorted((m, a) for m in seen.modules for a in seen.names if (m, a) not in done)
        if not todo:
            return
        for module_name, attr in todo:
            done.add((module_name, attr))
            a = getattr(seen.modules[module_name], attr, _MISSING)
            if a is not _MISSING:
                h.update(f"attr:{module_name}.{attr}=".encode())
                _value(h, a, seen, 1)


def _function(h, f, seen, depth):
    if _opaque_module(getattr(f, "__module__", None)):
        h.update(f"named:{f.__module__}.{f.__qualname__};".encode())
        if "<locals>" in f.__qualname__:
            # Made by a factory (sc.sin and sc.cos are both ops._math_function's fn):
            # the name alone does not tell them apart, what the factory closed over does.
            for cell in f.__closure__ or ():
                _value(h, cell.cell_contents, seen, depth + 1)
        return
    if id(f) in seen:
        h.update(f"again:{f.__qualname__};".encode())
        return
    seen.add(id(f))
    h.update(f"def:{f.__qualname__};".encode())
    _code(h, f.__code__, f.__globals__, seen, depth)
    _value(h, f.__defaults__, seen, depth + 1)
    _value(h, f.__kwdefaults__, seen, depth + 1)
    for cell in f.__closure__ or ():
        try:
            contents = cell.cell_contents
        except ValueError:
            h.update(b"empty-cell;")
            continue
        _value(h, contents, seen, depth + 1)


@functools.cache
def _process_state():
    """Scaly's files (digest, trusted) as this process first saw them: the code that
    runs is the code imported, so the digest is taken once (the two-second rule of
    jit._source_state still applies to that first look)."""
    from . import jit
    return jit._source_state(light=True)


@functools.cache
def _cpu():
    """The CPU's flags digest, read once per process."""
    from . import jit
    return jit._cpu_identity()


def function_key(pyfunc, inputs, outputs):
    """The trace-free key of `pyfunc` decorated with these declarations, or None when
    the index is off, Scaly's files are not trusted, or a value cannot be digested."""
    if not enabled() or type(pyfunc) is not types.FunctionType:
        return None
    from . import jit
    source, trusted = _process_state()
    if not trusted:
        return None
    h = hashlib.sha256()
    settings = (FAST_VERSION, jit.CACHE_VERSION, jit._VERSIONS, source, _cpu(),
                [os.environ.get(k) for k in ("SCALY_CC", "SCALY_CC_OPT", "SCALY_FP_CONTRACT",
                                             "SCALY_LANES", "SCALY_VECTOR_LIBM")],
                [repr(d) for d in inputs], [repr(d) for d in outputs])
    h.update(json.dumps(settings).encode())
    try:
        walk = _Walk()
        _function(h, pyfunc, walk, 0)
        _modules(h, walk)
    except Exception:  # noqa: BLE001  (_Opaque, or a module attribute that raises on reading)
        return None
    return h.hexdigest()


# -- lookup -------------------------------------------------------------------

def _entry_path(root: Path, key):
    return root / "index" / f"fast-{key}.json"


def _stamp(path):
    st = os.stat(path)
    return [path, st.st_size, st.st_mtime_ns]


def _stamps_hold(stamps):
    try:
        return all(isinstance(s, list) and len(s) == 3 and _stamp(s[0]) == s for s in stamps)
    except (OSError, TypeError):
        return False


def _ports(value):
    if not isinstance(value, list):
        raise ValueError("ports")
    out = []
    for p in value:
        name, shape, dtype = p
        if not (isinstance(name, str) and isinstance(dtype, str) and isinstance(shape, list)
                and all(type(d) is int and d >= 0 for d in shape)):
            raise ValueError("port")
        out.append((name, list(shape), dtype))
    return out


def lookup(key, name):
    """(address, owner, workspace bytes, inputs, outputs) of the entry under `key` for
    the Function `name`, or None: missing, damaged, from another compiler, or not
    loadable (each falls back to tracing, whose compile writes the entry again)."""
    from . import jit
    root = jit.cache_root()
    entry = jit._read_json(_entry_path(root, key))
    path = jit._artifact_path(root, entry)
    if path is None or entry.get("name") != name:
        return None
    try:
        inputs, outputs = _ports(entry.get("inputs")), _ports(entry.get("outputs"))
    except (ValueError, TypeError):
        return None
    workspace = entry.get("workspace_bytes")
    if type(workspace) is not int or not 0 <= workspace < 1 << 40:
        return None
    if not isinstance(entry.get("stamps"), list) or not _stamps_hold(entry["stamps"]):
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if jit._sha256(data) != entry.get("sha256"):
        return None
    try:
        address, owner = _runtime.open_library(str(path), name)
    except OSError:
        return None
    _COUNTERS["fast_hit"] += 1
    return address, owner, workspace, inputs, outputs


# -- publishing -----------------------------------------------------------------

def _driver():
    """A C compiler driver to link shared objects with, or None."""
    import shutil
    for name in ("clang-19", "clang", "cc", "gcc"):
        path = shutil.which(name)
        if path:
            return path
    return None


def publish(cc, fn, directory: Path, name, workspace):
    """After `fn` was loaded from `directory` by the ordinary path: in the background,
    link lib<name>.so there from the JIT's object (an external compiler's artifact is
    that library already) and write its trace-free entry."""
    key = getattr(fn, "_fast_key", None)
    if key is None or not enabled():
        return
    args = (cc, key, fn.name, fn.inputs, fn.outputs, Path(directory), name, workspace)
    if _FORKED_CHILD:
        # A forked worker (multiprocessing's) ends with os._exit, which would kill
        # a background link mid-write: link now.
        _publish(*args)
        return
    thread = threading.Thread(target=_publish, args=args, name="scaly-fast-publish", daemon=True)
    with _PENDING_LOCK:
        _PENDING.append(thread)
    thread.start()


def wait():
    """Wait for entries being published (at exit, and in tests)."""
    while True:
        with _PENDING_LOCK:
            if not _PENDING:
                return
            thread = _PENDING.pop()
        thread.join()


_FORKED_CHILD = False


def _after_fork_in_child():
    global _FORKED_CHILD, _LINKING
    _FORKED_CHILD = True
    _LINKING = threading.Lock()  # the parent's may have been held by its linking thread


os.register_at_fork(after_in_child=_after_fork_in_child)

_LINKING = threading.Lock()  # one link at a time: a process compiling many Functions
                             # must not start a compiler driver per Function at once


def _publish(cc, key, fn_name, inputs, outputs, directory, name, workspace):
    with _LINKING:
        _publish_now(cc, key, fn_name, inputs, outputs, directory, name, workspace)


def _publish_now(cc, key, fn_name, inputs, outputs, directory, name, workspace):
    from . import jit
    try:
        so = directory / f"lib{name}.so"
        stamps = [_stamp(cc.exe)]
        if not cc.external:
            obj = directory / f"{name}.o"
            driver = _driver()
            if driver is None or not obj.exists():
                return
            stamps.append(_stamp(driver))
            # Linked again even when there: a publish follows a miss, and the
            # shared object left there may be what missed (damaged). The object
            # file was verified by the ordinary path.
            import subprocess
            jit.sweep_temporaries(so)
            tmp = so.with_name(f"{so.name}.tmp.{os.getpid()}.{threading.get_ident()}")
            try:
                # --as-needed: a model without vector math does not make dlopen
                # load libmvec (a third of a warm process's 2 ms went there).
                proc = subprocess.run([driver, "-shared", "-o", str(tmp), str(obj),
                                       "-Wl,-z,defs", "-Wl,--as-needed", *cc.link_flags()],
                                      capture_output=True)
                if proc.returncode != 0:
                    return  # a symbol only the JIT's process provides: no entry
                jit._replace(tmp, so)
            finally:
                if tmp.exists():
                    tmp.unlink()
        data = so.read_bytes()
        entry = {"artifact": f"{directory.name}/{so.name}", "sha256": jit._sha256(data),
                 "name": fn_name, "inputs": [list(p) for p in inputs],
                 "outputs": [list(p) for p in outputs], "workspace_bytes": workspace,
                 "stamps": stamps}
        jit._write_atomic(_entry_path(directory.parent, key), json.dumps(entry).encode())
        _COUNTERS["fast_published"] += 1
    except OSError:
        return  # a read-only or damaged cache: the ordinary path still works


def counters():
    """How often this process loaded a Function trace-free and published an entry."""
    return dict(_COUNTERS)


import atexit  # noqa: E402

atexit.register(wait)  # an entry half-published is never left (files are renamed into place)
