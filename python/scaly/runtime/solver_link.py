"""Building and opening modules that reach a solver.

Such a module is a shared library: its source and its wrapper source compiled
together and linked to the solver's native library (``-lscaly_qp``, with an
rpath). On Linux it is opened with ``dlmopen`` in a linker namespace of its
own, shared with the other solver kernels whose dependencies resolve to the
same files, so the solver's dependencies (libstdc++, SuiteSparse) stay apart
from the Python process's.
"""

import ctypes
import functools
import hashlib
import os
from pathlib import Path

from ..solvers._native import SolverStats, native_paths

_LM_ID_NEWLM = -1
_RTLD_DI_LMID = 1
_NAMESPACES: dict = {}  # dependency fingerprint -> Lmid
_FINGERPRINT = None


@functools.lru_cache(maxsize=None)
def _libc():
    """The process's libc with dlmopen, dlsym, dlerror and dlinfo typed (once)."""
    libc = ctypes.CDLL(None)
    libc.dlmopen.restype = ctypes.c_void_p
    libc.dlmopen.argtypes = [ctypes.c_long, ctypes.c_char_p, ctypes.c_int]
    libc.dlsym.restype = ctypes.c_void_p
    libc.dlsym.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    libc.dlerror.restype = ctypes.c_char_p
    libc.dlinfo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    return libc


def solver_fingerprint() -> str:
    """SHA-256 over the solver libraries and their headers: the bytes of
    libscaly_qp.so, libscaly_nlp.so, scaly_qp.h, scaly_nlp.h and
    scaly_solver_stats.h, and the real paths, sizes and modification times of
    the native libraries they resolve to (ldd: IPOPT and its dependencies too)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        paths = native_paths()
        h = hashlib.sha256()
        libs = [Path(paths["scaly_qp"]), Path(paths["scaly_nlp"])]
        for lib in libs:
            h.update(lib.read_bytes())
        for header in ("scaly_qp.h", "scaly_nlp.h", "scaly_solver_stats.h"):
            h.update((Path(paths["include"]) / header).read_bytes())
        try:
            stats = [(dep, os.stat(dep)) for lib in libs for dep in _cached_dependencies(lib)]
        except OSError:  # a dependency gone since ldd ran (an upgrade): ask ldd again
            stats = [(dep, os.stat(dep)) for lib in libs
                     for dep in _cached_dependencies(lib, refresh=True)]
        for dep, st in stats:
            h.update(f"{dep} {st.st_size} {st.st_mtime_ns}".encode())
        _FINGERPRINT = h.hexdigest()
    return _FINGERPRINT


_DEPENDENCY_CACHE: dict = {}


def _cached_dependencies(lib: Path, refresh: bool = False) -> list:
    """`ldd`'s answer for `lib`, kept on disk under the cache root by the library's
    path, size and modification time: running ldd costs ~0.1 s, a stat per
    dependency (which the fingerprint still does) microseconds."""
    import json
    from .jit import _read_json, _write_atomic, cache_root
    st = lib.stat()
    stamp = f"{lib.resolve()} {st.st_size} {st.st_mtime_ns}"
    if stamp in _DEPENDENCY_CACHE and not refresh:
        return _DEPENDENCY_CACHE[stamp]
    path = cache_root() / "solvers" / (hashlib.sha256(stamp.encode()).hexdigest()[:32] + ".json")
    stored = None if refresh else _read_json(path)
    if (stored and stored.get("stamp") == stamp and isinstance(stored.get("deps"), list)
            and all(isinstance(d, str) for d in stored["deps"])):
        deps = stored["deps"]
    else:
        deps = _dependencies(lib)
        _write_atomic(path, json.dumps({"stamp": stamp, "deps": deps}).encode())
    _DEPENDENCY_CACHE[stamp] = deps
    return deps


def _dependencies(lib: Path) -> list:
    import subprocess
    try:
        out = subprocess.run(["ldd", str(lib)], capture_output=True, text=True).stdout
    except OSError:
        return []
    deps = []
    for line in out.splitlines():
        if "=>" in line:
            target = line.split("=>")[1].split("(")[0].strip()
            if target and os.path.exists(target):
                deps.append(os.path.realpath(target))
    return sorted(deps)


def link_flags() -> list:
    """Include, library and rpath flags of the solver libraries, and -Bsymbolic."""
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    # -Bsymbolic: the library's own calls (the _with_options entry calling the
    # entry) bind inside it, never to a same-named kernel of the same namespace.
    # --as-needed: a module that solves only QPs does not load the NLP library
    # (nor IPOPT behind it).
    return [f"-I{paths['include']}", f"-L{libdir}", "-Wl,--as-needed", "-lscaly_nlp",
            "-lscaly_qp", "-Wl,--no-as-needed", f"-Wl,-rpath,{libdir}", "-Wl,-Bsymbolic"]


def compiler_command(cc) -> list:
    """The external compiler for solver modules: SCALY_CC, else Debian's clang-19."""
    return list(cc.command) if cc.external else ["/usr/lib/llvm-19/bin/clang"]


def open_library(path: Path):
    """dlmopen `path` into the namespace of its dependencies; returns a handle."""
    libc = _libc()
    key = solver_fingerprint()
    lmid = _NAMESPACES.get(key, _LM_ID_NEWLM)
    flags = os.RTLD_NOW | os.RTLD_LOCAL
    handle = libc.dlmopen(lmid, str(path).encode(), flags)
    if not handle:
        raise OSError(f"dlmopen({path}) failed: {(libc.dlerror() or b'').decode()}")
    if key not in _NAMESPACES:
        out = ctypes.c_long()
        if libc.dlinfo(ctypes.c_void_p(handle), _RTLD_DI_LMID, ctypes.byref(out)) == 0:
            _NAMESPACES[key] = out.value
    return handle


def symbol(handle, name: str) -> int:
    addr = _libc().dlsym(ctypes.c_void_p(handle), name.encode())
    if not addr:
        raise AttributeError(f"symbol {name} not found in the solver module")
    return addr


class SolverModule:
    """An opened solver module: the entry's address and the wrappers' accessors."""

    def __init__(self, path: Path, entry: str, wrappers: list):
        self.handle = open_library(path)
        self.entry = entry
        self.wrappers = list(wrappers)
        self.address = symbol(self.handle, entry)
        self._stats = [ctypes.CFUNCTYPE(None, ctypes.POINTER(SolverStats))(
            symbol(self.handle, f"{w}_stats")) for w in self.wrappers]
        proto = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
        self.with_options = proto(symbol(self.handle, f"{entry}_with_options"))

    def kind(self, k: int) -> str:
        """What wrapper k solves with: "qp", or an NLP's backend ("ipopt", "sqp")."""
        addr = _libc().dlsym(ctypes.c_void_p(self.handle), f"{self.wrappers[k]}_kind".encode())
        if not addr:
            return "qp"
        return ctypes.CFUNCTYPE(ctypes.c_char_p)(addr)().decode()

    def stats(self, k: int) -> SolverStats:
        out = SolverStats()
        self._stats[k](ctypes.byref(out))
        return out
