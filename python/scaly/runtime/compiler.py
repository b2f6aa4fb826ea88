"""The JIT's compiler: in-process Clang or SCALY_CC, its fingerprint and the host recipe.

The compiler is probed once per process (again when SCALY_CC, SCALY_CC_OPT,
SCALY_FP_CONTRACT, SCALY_LANES, SCALY_VECTOR_LIBM or the cache root change);
its version, the host's predefined macros and the gather-off flags are kept
under compilers/<id>.json in the cache while the compiler's file stays the same.
"""

from __future__ import annotations

import json
import os

from .._core import core as _scaly
from ..codegen import FP_CONTRACTS
from .cache_files import _read_json, _sha256, _write_atomic, cache_root


class CompileError(RuntimeError):
    """The C compiler failed or is missing; the message shows its diagnostics."""


# Raised through the JIT: tracebacks name it where it always was.
CompileError.__module__ = "scaly.runtime.jit"


from .warmup import GATHER_OFF as _GATHER_OFF, optimization as _optimization, x86 as _x86


def _cpu_identity():
    """The CPU's feature flags: a cache shared between machines must not mix them."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return _sha256(line.encode())[:16]
    except OSError:
        pass
    return os.uname().machine


class _Compiler:
    """The compiler in use, its fingerprint, and the host recipe probe."""

    def __init__(self):
        self.external = os.environ.get("SCALY_CC") or None
        self.opt = _optimization()
        self.fp_contract = _fp_contract()
        if self.external:
            import shutil  # only for an external compiler
            exe = shutil.which(self.external.split()[0])
            if exe is None:
                raise CompileError(f"SCALY_CC={self.external!r}: compiler not found on PATH")
            self.exe = os.path.realpath(exe)
            self.command = self.external.split()
        else:
            self.exe = _libclang_path()
            self.command = ["scaly-in-process-clang"]
        self.fingerprint, self.macros, self.no_gather = self._fingerprint()
        self.is_clang = not self.external or "clang" in self.version.lower() or \
            "zig" in self.version.lower()
        self.lanes, self.vector_libm = _host_vectors(self.macros)

    def recipe(self):
        """The host recipe as text (it enters the index key): lanes, vector math,
        contraction, and the glibc version when libmvec is called."""
        text = (f"host lanes={self.lanes} cpu=native vector_libm={self.vector_libm} "
                f"fp_contract={self.fp_contract}")
        if self.vector_libm == "glibc":
            text += " glibc %d.%d" % _glibc_version()
        return text

    def compile_flags(self):
        """The compile flags, in the seed's order: optimization, CPU, contraction,
        -fno-math-errno, gather loads off and -fveclib=libmvec (Clang), -fPIC."""
        flags = [self.opt, "-march=native", f"-ffp-contract={self.fp_contract}", "-fno-math-errno",
                 *self.no_gather]
        if self.vector_libm == "glibc" and self.is_clang:
            flags.append("-fveclib=libmvec")
        return flags + ["-fPIC"]

    def link_flags(self):
        return ["-lmvec", "-lm"] if self.vector_libm == "glibc" else ["-lm"]

    def flags(self):
        """The compile command without paths, in order."""
        return self.compile_flags() + (["-shared"] if self.external else []) + self.link_flags()

    def _fingerprint(self):
        st = os.stat(self.exe)
        stamp = {"command": self.command, "path": self.exe, "size": st.st_size,
                 "mtime_ns": st.st_mtime_ns, "cpu": _cpu_identity()}
        ident = _sha256(json.dumps(stamp, sort_keys=True).encode())[:32]
        path = cache_root() / "compilers" / f"{ident}.json"
        stored = _read_json(path)
        if (stored and stored.get("stamp") == stamp and isinstance(stored.get("version"), str)
                and isinstance(stored.get("macros"), str)
                and stored.get("no_gather") in ([], _GATHER_OFF)):
            version, macros, no_gather = stored["version"], stored["macros"], stored["no_gather"]
        else:  # missing, from another compiler or damaged: probe again and rewrite
            version, macros, no_gather = self._probe()
            _write_atomic(path, json.dumps({"stamp": stamp, "version": version, "macros": macros,
                                            "no_gather": no_gather}).encode())
        text = json.dumps([stamp, version, macros, no_gather])
        self.version = version
        return _sha256(text.encode()), macros, no_gather

    def _probe(self):
        """(version text, host macros, gather-off flags the compiler accepts)."""
        if not self.external:
            # The in-process compiler runs the probe itself (the warm-up
            # thread has usually done it already).
            version = f"{_scaly.clang_version()} prelude {_scaly.prelude_version()}"
            return version, _scaly.probe_macros(["-march=native"]), _GATHER_OFF if _x86() else []
        version = _run([*self.command, "--version"], "--version").stdout
        macros = _run([*self.command, "-march=native", "-dM", "-E", "-x", "c", os.devnull],
                      "the host recipe probe (-march=native -dM -E)").stdout
        no_gather = []
        is_clang = "clang" in version.lower() or "zig" in version.lower()
        if is_clang and _x86():
            import subprocess
            probe = subprocess.run([*self.command, *_GATHER_OFF, "-x", "c", "-c", "-o", os.devnull,
                                    os.devnull], capture_output=True)
            no_gather = _GATHER_OFF if probe.returncode == 0 else []
        return version, macros, no_gather


def _glibc_version():
    """glibc's version as (major, minor), or None when the C library is another."""
    try:
        text = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError, AttributeError):
        return None
    parts = text.split()
    if len(parts) != 2 or parts[0] != "glibc":
        return None
    try:
        major, minor = (int(p) for p in parts[1].split(".")[:2])
    except ValueError:
        return None
    return major, minor


_MVEC = []


def _load_libmvec():
    """Open libmvec for the whole process (ORC resolves the module's calls from
    it); False when it is not there."""
    if not _MVEC:
        import ctypes
        try:
            _MVEC.append(ctypes.CDLL("libmvec.so.1", mode=os.RTLD_GLOBAL | os.RTLD_NOW))
        except OSError:
            _MVEC.append(None)
    return _MVEC[0] is not None


def _host_vectors(macros):
    """(lanes, vector_libm) of the host recipe: the widest vectors the probe's
    macros name (8 with AVX-512, 4 with AVX2, 2 with SSE2), and glibc's vector
    math on x86-64 with glibc >= 2.35. SCALY_LANES and SCALY_VECTOR_LIBM override
    them (for comparisons; the override enters the cache keys like the probe)."""
    defined = {line.split()[1] for line in macros.splitlines()
               if line.startswith("#define ") and len(line.split()) >= 2}
    lanes = 8 if "__AVX512F__" in defined else 4 if "__AVX2__" in defined else \
        2 if "__SSE2__" in defined else 1
    want = os.environ.get("SCALY_LANES")
    if want:
        if want not in ("1", "2", "4", "8"):
            raise CompileError(f"SCALY_LANES={want!r} is not one of 1, 2, 4, 8")
        lanes = int(want)
    version = _glibc_version()

    def libmvec_here():  # opens libmvec for the process when it is there
        return _x86() and version is not None and version >= (2, 35) and _load_libmvec()

    want = os.environ.get("SCALY_VECTOR_LIBM")
    if want:
        if want not in ("none", "glibc"):
            raise CompileError(f"SCALY_VECTOR_LIBM={want!r} is not one of 'none', 'glibc'")
        if want == "glibc" and not libmvec_here():
            raise CompileError("SCALY_VECTOR_LIBM='glibc' needs x86-64 with glibc >= 2.35 and "
                               "libmvec.so.1")
        libm = want
    else:
        libm = "glibc" if lanes > 1 and libmvec_here() else "none"
    if lanes == 1:
        libm = "none"  # scalar code calls scalar libm
    return lanes, libm


def _run(cmd, what):
    import subprocess  # only the external compiler path runs processes
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise CompileError(f"cannot run the compiler {cmd[0]!r} for {what}: {e}") from None
    if proc.returncode != 0:
        raise CompileError(f"{' '.join(cmd)} failed ({what}) with status {proc.returncode}:\n"
                           f"{proc.stderr}{proc.stdout}")
    return proc


_LIBRARIES: dict = {}


def _libraries():
    """Paths of libScaly, libScalyJIT, libclang-cpp and the extension (asked once)."""
    if not _LIBRARIES:
        _LIBRARIES.update(_scaly.library_paths())
    return _LIBRARIES


def _libclang_path():
    return _libraries().get("clang", "/usr/lib/llvm-19/lib/libclang-cpp.so.19.1")


def _fp_contract():
    """The JIT's floating-point contraction: SCALY_FP_CONTRACT, else "off" (the recipe's default)."""
    value = os.environ.get("SCALY_FP_CONTRACT") or "off"
    if value not in FP_CONTRACTS:
        raise CompileError(f"SCALY_FP_CONTRACT={value!r} is not one of "
                           f"{', '.join(repr(v) for v in FP_CONTRACTS)}")
    return value


_COMPILER = None


def _compiler():
    """The compiler for this process, probed once; re-probed if SCALY_CC, SCALY_CC_OPT or
    SCALY_FP_CONTRACT change."""
    global _COMPILER
    want = (os.environ.get("SCALY_CC") or None, _optimization(), _fp_contract(), str(cache_root()),
            os.environ.get("SCALY_LANES"), os.environ.get("SCALY_VECTOR_LIBM"))
    if _COMPILER is None or _COMPILER[0] != want:
        _COMPILER = (want, _Compiler())
    return _COMPILER[1]
