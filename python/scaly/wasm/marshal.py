"""Values across a WebAssembly call, from a host's side.

WebAssembly has four value types: i32, i64, f32, f64. Its integers carry no
sign; hosts (JavaScript, Python engines) read an i32 as signed. The rules:

=========  ========  ===============================================================
dtype      wasm      to the call / back from it
=========  ========  ===============================================================
float64    f64       a float, unchanged
float32    f32       a float; the engine rounds it to float32
int32      i32       an int in [-2**31, 2**31)
int64      i64       an int in [-2**63, 2**63) (a BigInt in JavaScript)
bool       i32       True/False as 1/0; back: any nonzero is True
uint32     i32       an int in [0, 2**32): above 2**31 - 1 it travels as the
                     negative i32 with the same bits, and is masked back
                     (addresses and sizes in a memory above 2 GiB)
=========  ========  ===============================================================
"""

from __future__ import annotations

import numbers

import numpy

#: The WebAssembly value type of each dtype (pointers are uint32 addresses).
WASM_TYPES = {"float64": "f64", "float32": "f32", "int32": "i32", "int64": "i64", "bool": "i32",
              "uint32": "i32"}

_RANGES = {"int32": (-2**31, 2**31), "int64": (-2**63, 2**63), "uint32": (0, 2**32)}


def _dtype(dtype):
    if dtype not in WASM_TYPES:
        raise ValueError(f"no WebAssembly marshalling for dtype {dtype!r}; expected one of "
                         f"{', '.join(WASM_TYPES)}")
    return dtype


def to_wasm(value, dtype):
    """The value a WebAssembly call takes for `value` of `dtype` (see the table above)."""
    _dtype(dtype)
    if dtype in ("float64", "float32"):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"to_wasm: a {dtype} value must be a real number, got "
                            f"{type(value).__name__}")
        return float(value)
    if dtype == "bool":
        if isinstance(value, numpy.bool_):
            value = bool(value)
        if not isinstance(value, (bool, numbers.Integral)) or value not in (0, 1):
            raise TypeError(f"to_wasm: a bool value must be True, False, 0 or 1, got {value!r}")
        return int(bool(value))
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"to_wasm: an {dtype} value must be an integer, got {type(value).__name__}")
    value = int(value)
    lo, hi = _RANGES[dtype]
    if not lo <= value < hi:
        raise OverflowError(f"to_wasm: {value} is out of range for {dtype} [{lo}, {hi})")
    if dtype == "uint32" and value >= 2**31:
        value -= 2**32
    return value


def from_wasm(raw, dtype):
    """The host value of `raw`, a WebAssembly call's result of `dtype`."""
    _dtype(dtype)
    if dtype in ("float64", "float32"):
        return float(raw)
    if dtype == "bool":
        return int(raw) != 0
    if dtype == "uint32":
        return int(raw) & 0xFFFFFFFF
    return int(raw)
