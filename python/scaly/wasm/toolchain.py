"""The wasm32 toolchain: Debian's clang-19 (--target=wasm32-wasi), wasm-ld-19,
llvm-ar-19, wasi-libc and the wasm32 compiler runtime. Each tool is found once
per process; a missing one raises WasmToolchainError naming it and the Debian
package that provides it."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

TARGET = "wasm32-wasi"
#: Compile flags of every object: the module's own recipe (no errno from
#: libm, no fused multiply-add, as NumPy rounds) at -O2.
COMPILE_FLAGS = ("--target=wasm32-wasi", "-O2", "-fno-math-errno", "-ffp-contract=off",
                 "-Wall", "-Wextra", "-Werror")
#: The standalone module: a reactor (the host calls _initialize once), with a
#: 1 MiB shadow stack.
STACK_BYTES = 1 << 20


class WasmToolchainError(RuntimeError):
    """A tool of the wasm32 toolchain is missing or failed."""


_TOOLS = {"clang": ("clang-19", "clang-19"), "wasm-ld": ("wasm-ld-19", "lld-19"),
          "llvm-ar": ("llvm-ar-19", "llvm-19")}
_WASI_LIB = "/usr/lib/wasm32-wasi"
_BUILTINS = "/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a"


@functools.lru_cache(maxsize=None)
def tool(name):
    """Absolute path of toolchain program `name` (clang, wasm-ld, llvm-ar)."""
    program, package = _TOOLS[name]
    env = os.environ.get(f"SCALY_WASM_{name.upper().replace('-', '_')}")
    path = shutil.which(env or program)
    if not path:
        raise WasmToolchainError(f"scaly.wasm: {env or program} not found on PATH; install the "
                                 f"Debian package {package} (scripts/setup.sh does)")
    return path


def libraries():
    """wasi-libc (libc.a, holding libm and malloc) and the compiler runtime."""
    libc = os.path.join(_WASI_LIB, "libc.a")
    if not os.path.isfile(libc):
        raise WasmToolchainError(f"scaly.wasm: {libc} not found; install the Debian package "
                                 "wasi-libc (scripts/setup.sh does)")
    if not os.path.isfile(_BUILTINS):
        raise WasmToolchainError(f"scaly.wasm: {_BUILTINS} not found; install the Debian package "
                                 "libclang-rt-19-dev-wasm32 (scripts/setup.sh does)")
    return libc, _BUILTINS


def reactor_start():
    """crt1-reactor.o: defines _initialize, which runs the C constructors once."""
    return os.path.join(_WASI_LIB, "crt1-reactor.o")


def run(cmd, cwd, what):
    """Run a toolchain command; a failure raises WasmToolchainError with its output."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise WasmToolchainError(f"scaly.wasm: {what}: cannot run {cmd[0]}: {e}") from None
    if p.returncode != 0:
        raise WasmToolchainError(f"scaly.wasm: {what} failed ({' '.join(cmd)}):\n"
                                 f"{p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


@functools.lru_cache(maxsize=None)
def versions():
    """The versions the cache key includes: the compiler's, linker's and
    archiver's version lines and the state of wasi-libc and the runtime (read
    once per process)."""
    def first_line(name):
        return run([tool(name), "--version"], None, f"{name} --version").strip().splitlines()[0]
    libs = []
    for path in libraries():
        st = os.stat(path)
        libs.append(f"{os.path.basename(path)}:{st.st_size}:{st.st_mtime_ns}")
    return {"clang": first_line("clang"), "wasm-ld": first_line("wasm-ld"),
            "llvm-ar": first_line("llvm-ar"), "libraries": libs}
