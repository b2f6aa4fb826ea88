"""Helpers of the WebAssembly engine tests: values to and from Node.js bit for
bit (base64 of the bytes), the native JIT's outputs, ulp distances, tools."""

import base64
import re
import subprocess

import numpy as np


def enc(value, dtype=None):
    a = np.ascontiguousarray(np.asarray(value, dtype=dtype)).ravel()
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)
        name = "bool"
    else:
        name = a.dtype.name
    return {"dtype": name, "b64": base64.b64encode(a.tobytes()).decode()}


def dec(x, shape=None):
    dtype = np.uint8 if x["dtype"] == "bool" else np.dtype(x["dtype"])
    a = np.frombuffer(base64.b64decode(x["b64"]), dtype=dtype)
    if x["dtype"] == "bool":
        assert set(np.unique(a)) <= {0, 1}, f"bool bytes other than 0/1: {a}"
        a = a.astype(bool)
    return a if shape is None else a.reshape(shape)


def encode_inputs(fn, values):
    return {n: enc(values[n], dtype=d) for n, _, d in fn.inputs}


def native(fn, values):
    """The native JIT's outputs of Scaly Function `fn`, by output name."""
    args = [np.asarray(values[n], dtype=d).reshape(s) for n, s, d in fn.inputs]
    out = fn(*args)
    out = out if isinstance(out, tuple) else (out,)
    return {n: np.asarray(o) for (n, _, _), o in zip(fn.outputs, out)}


def _ordered(a):
    bits = {np.dtype(np.float64): np.int64, np.dtype(np.float32): np.int32}[a.dtype]
    i = a.view(bits).astype(np.int64)
    return np.where(i < 0, np.int64(np.iinfo(bits).min) - i, i)


def ulp_distance(a, b):
    """Largest distance in units in the last place between float arrays a and b
    (0 for bit-equal values, also NaNs with the same bits)."""
    if a.size == 0:
        return 0
    return int(np.max(np.abs(_ordered(a) - _ordered(b))))


def mismatches(fn, got, expected, ulps=0, where=""):
    """Differences between the wasm outputs `got` (encoded) and the native
    outputs; [] when equal (bit for bit, or within `ulps` for floats)."""
    problems = []
    for name, shape, dtype in fn.outputs:
        if name not in got:
            problems.append(f"{where}{fn.name}.{name}: missing")
            continue
        w = dec(got[name], shape)
        n = expected[name]
        if str(w.dtype) != dtype or str(n.dtype) != dtype:
            problems.append(f"{where}{fn.name}.{name}: dtype wasm {w.dtype}, native {n.dtype}")
            continue
        if dtype in ("float64", "float32"):
            d = ulp_distance(w.ravel(), n.ravel())
            if d > ulps:
                problems.append(f"{where}{fn.name}.{name}: {d} ulp apart (allowed {ulps}):\n"
                                f"  wasm   {w.ravel().tolist()}\n  native {n.ravel().tolist()}")
        elif not np.array_equal(w, n):
            problems.append(f"{where}{fn.name}.{name}: wasm {w.tolist()} != native {n.tolist()}")
    return problems


def max_ulp(fn, got, expected):
    return max((ulp_distance(dec(got[n], s).ravel(), expected[n].ravel())
                for n, s, d in fn.outputs if d in ("float64", "float32")), default=0)


def run_tool(cmd, cwd):
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))} failed:\n{p.stdout}\n{p.stderr}"
    return p.stdout


def function_names(wasm):
    """The function names of a linked module (its name section), by wasm-objdump."""
    out = run_tool(["wasm-objdump", "-x", wasm], wasm.parent)
    return set(re.findall(r"^ - func\[\d+\] sig=\d+ <([^>]+)>", out, re.M))
