"""scaly.wasm's rules, against independent references: calc_layout against
clang-19's own sizeof/offsetof on wasm32 (static assertions), the
marshalling rules (to_wasm / from_wasm) against the bits of the values, and
the refusal of bad input (arguments, a missing or failing toolchain, a bad
manifest), each with a message naming what was wrong.
"""

import os
import shutil
import struct
import subprocess

import numpy as np
import pytest

import scaly as sc
import scaly.wasm as sw
from scaly.wasm import toolchain

CLANG = "clang-19"

# Independent references: the WebAssembly value type of each dtype.
WASM_OF_DTYPE = {"float64": "f64", "float32": "f32", "int32": "i32", "int64": "i64", "bool": "i32"}


@sc.function(sc.arg("x", ()), sc.arg("k", (), dtype="int32"), outputs=sc.arg("y"))
def scal(x, k):
    return x * k.astype("float64") + 1.0


def require_clang():
    if not shutil.which(CLANG):
        pytest.skip("clang-19 is not installed")


# ---------------------------------------------------------------------------
# 3. calc_layout against clang's wasm32 layout

LAYOUT_CASES = {
    "mixed": ([("a", "uint8_t", 1), ("b", "double", 1), ("c", "int32_t", 1), ("d", "uint8_t", 3),
               ("e", "int64_t", 1), ("f", "float", 1)], 1),
    "arrays": ([("x", "double", 7), ("n", "int32_t", 3), ("flag", "uint8_t", 5),
                ("k", "int64_t", 2), ("u", "uint32_t", 1)], 1),
    "bytes": ([("a", "uint8_t", 1), ("b", "char", 2)], 1),
    "pointers": ([("p", "pointer", 1), ("c", "char", 1), ("q", "pointer", 2), ("i", "int", 1)], 1),
    "typed16": ([("n", "int64_t", 3), ("f", "uint8_t", 1), ("g", "float", 2)], 16),
    "typed16_small": ([("b", "uint8_t", 1)], 16),
    "typed16_big": ([("zs", "double", 20), ("k", "int32_t", 1), ("flag", "uint8_t", 1)], 16),
}


def _c_type(t):
    return "void*" if t == "pointer" else t


def _layout_c(cases, tweak=None):
    lines = ["#include <stddef.h>", "#include <stdint.h>", ""]
    for name, (fields, align) in cases.items():
        attr = f" __attribute__((aligned({align})))" if align > 1 else ""
        body = "".join(f"  {_c_type(t)} {f}{f'[{n}]' if n > 1 else ''};\n" for f, t, n in fields)
        lines.append(f"typedef struct{attr} {{\n{body}}} {name};")
        offsets, size, al = sw.calc_layout(fields, align)
        if tweak and tweak[0] == name:
            size, al, offsets = tweak[1](size, al, dict(offsets))
        lines.append(f"_Static_assert(sizeof({name}) == {size}, \"{name} size\");")
        lines.append(f"_Static_assert(_Alignof({name}) == {al}, \"{name} align\");")
        for f in offsets:
            lines.append(f"_Static_assert(offsetof({name}, {f}) == {offsets[f]}, \"{name}.{f}\");")
    return "\n".join(lines) + "\n"


def compile_wasm32(tmp_path, source, name="layout.c"):
    require_clang()
    (tmp_path / name).write_text(source)
    return subprocess.run([CLANG, "--target=wasm32-wasi", "-fsyntax-only", "-Werror", name],
                          cwd=tmp_path, capture_output=True, text=True)


def test_calc_layout_matches_clang(tmp_path):
    p = compile_wasm32(tmp_path, _layout_c(LAYOUT_CASES))
    assert p.returncode == 0, p.stderr


def test_calc_layout_known_values():
    # Worked by hand: a(1) pad(7) b(8) c(4) d(3) pad(1) e(8) f(4) pad(4) = 40.
    offsets, size, align = sw.calc_layout(LAYOUT_CASES["mixed"][0])
    assert offsets == {"a": 0, "b": 8, "c": 16, "d": 20, "e": 24, "f": 32}
    assert (size, align) == (40, 8)
    assert sw.calc_layout([("b", "uint8_t", 1)], 16) == ({"b": 0}, 16, 16)


@pytest.mark.parametrize("tweak", [
    ("mixed", lambda s, a, o: (s, a, {**o, "e": o["e"] - 4}), "mixed.e"),
    ("arrays", lambda s, a, o: (s + 8, a, o), "arrays size"),
    ("typed16", lambda s, a, o: (s, 8, o), "typed16 align"),
], ids=["offset", "size", "align"])
def test_layout_check_catches_wrong_number(tmp_path, tweak):
    """The static-assert check is not vacuous: one wrong number fails it."""
    p = compile_wasm32(tmp_path, _layout_c(LAYOUT_CASES, tweak[:2]))
    assert p.returncode != 0
    assert tweak[2] in p.stderr


@pytest.mark.parametrize("fields, words", [
    ([("v", "long double", 1)], ["'v'", "'long double'"]),
    ([("v", "double", 0)], ["'v'", "count 0"]),
    ([("v", "double", -2)], ["'v'", "count -2"]),
    ([("v", "double", 2.0)], ["'v'", "count 2.0"]),
    ([("ok", "double", 1), ("w", "int16_t", 1)], ["'w'", "'int16_t'"]),
])
def test_calc_layout_bad_input(fields, words):
    with pytest.raises(ValueError) as info:
        sw.calc_layout(fields)
    for w in words:
        assert w in str(info.value)


# ---------------------------------------------------------------------------
# 6. Marshalling rules


def _bits_i32(v):
    return struct.pack("<i", v)


def test_wasm_types_table():
    assert sw.WASM_TYPES == {**WASM_OF_DTYPE, "uint32": "i32"}


@pytest.mark.parametrize("value", [0, 1, 2**31 - 1, 2**31, 2**31 + 5, 2**32 - 1])
def test_uint32_travels_as_i32_with_same_bits(value):
    raw = sw.to_wasm(value, "uint32")
    assert -2**31 <= raw < 2**31
    assert _bits_i32(raw) == struct.pack("<I", value)
    assert sw.from_wasm(raw, "uint32") == value
    assert sw.to_wasm(np.uint32(value), "uint32") == raw


def test_uint32_example():
    assert sw.to_wasm(2**31 + 5, "uint32") == -2**31 + 5
    assert sw.from_wasm(-2**31 + 5, "uint32") == 2**31 + 5
    assert sw.from_wasm(-1, "uint32") == 2**32 - 1


@pytest.mark.parametrize("dtype, lo, hi", [("int32", -2**31, 2**31 - 1),
                                           ("int64", -2**63, 2**63 - 1),
                                           ("uint32", 0, 2**32 - 1)])
def test_integer_ranges(dtype, lo, hi):
    assert sw.to_wasm(hi, dtype) == (hi if dtype != "uint32" else -1)
    assert sw.to_wasm(lo, dtype) == lo
    for bad in (lo - 1, hi + 1):
        with pytest.raises(OverflowError, match=f"{bad} is out of range for {dtype}"):
            sw.to_wasm(bad, dtype)
    if dtype != "uint32":
        assert sw.from_wasm(lo, dtype) == lo and sw.from_wasm(hi, dtype) == hi


def test_integers_accept_numpy_ints():
    assert sw.to_wasm(np.int32(-7), "int32") == -7
    assert sw.to_wasm(np.int64(2**40), "int64") == 2**40
    assert type(sw.to_wasm(np.int64(5), "int64")) is int


@pytest.mark.parametrize("value, dtype", [(1.5, "int32"), (3.0, "int64"), ("3", "int32"),
                                          (True, "int32"), (False, "int64"), (None, "uint32"),
                                          (np.float64(2.0), "int32")])
def test_integers_reject_other_types(value, dtype):
    with pytest.raises(TypeError, match=f"an {dtype} value must be an integer"):
        sw.to_wasm(value, dtype)


def test_bool():
    assert sw.to_wasm(True, "bool") == 1 and sw.to_wasm(False, "bool") == 0
    assert sw.to_wasm(1, "bool") == 1 and sw.to_wasm(0, "bool") == 0
    assert type(sw.to_wasm(True, "bool")) is int
    assert sw.from_wasm(0, "bool") is False
    for raw in (1, 2, 255, -1):
        assert sw.from_wasm(raw, "bool") is True
    for bad in (2, -1, 0.0, 1.0, "true", None):
        with pytest.raises(TypeError, match="a bool value must be True, False, 0 or 1"):
            sw.to_wasm(bad, "bool")


def test_bool_accepts_numpy_bool():
    """The values of a NumPy bool array (np.True_, np.False_) are bools."""
    assert sw.to_wasm(np.True_, "bool") == 1
    assert sw.to_wasm(np.False_, "bool") == 0
    assert sw.to_wasm(np.array([True, False])[1], "bool") == 0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_floats(dtype):
    for value in (0, 3, -2.5, 1e300, np.float32(0.1), np.float64(-0.0), float("inf")):
        raw = sw.to_wasm(value, dtype)
        assert type(raw) is float and raw == float(value)
    assert np.isnan(sw.to_wasm(float("nan"), dtype))
    assert sw.from_wasm(1.25, dtype) == 1.25 and type(sw.from_wasm(2, dtype)) is float
    for bad, named in ((True, "bool"), ("1.0", "str"), (None, "NoneType"), (1j, "complex")):
        with pytest.raises(TypeError, match=f"a {dtype} value must be a real number, got {named}"):
            sw.to_wasm(bad, dtype)


@pytest.mark.parametrize("dtype", ["complex128", "uint8", "float16", None])
def test_unknown_dtype(dtype):
    for call in (lambda: sw.to_wasm(1, dtype), lambda: sw.from_wasm(1, dtype)):
        with pytest.raises(ValueError, match=f"no WebAssembly marshalling for dtype {dtype!r}"):
            call()


def test_wasm_type():
    assert sw.wasm_type("void") is None
    assert sw.wasm_type("double") == "f64" and sw.wasm_type("float") == "f32"
    assert sw.wasm_type("int64_t") == "i64" and sw.wasm_type("uint8_t") == "i32"
    assert sw.wasm_type("const double**") == "i32" and sw.wasm_type("rollout_out*") == "i32"
    assert sw.wasm_type("const uint32_t*") == "i32"


# ---------------------------------------------------------------------------
# 5. Bad input


@pytest.mark.parametrize("bad, named", [(3, "int"), (None, "NoneType"), ([scal, "rollout"], "str"),
                                        (np.zeros(3), "ndarray")])
def test_build_rejects_non_functions(bad, named, tmp_path):
    with pytest.raises(TypeError, match=rf"expected a scaly Function.*got {named}"):
        sw.build(bad, tmp_path, cache_dir=tmp_path / "c")
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("out_dir", [5, None, ["out"]])
def test_build_rejects_bad_out_dir(out_dir, tmp_path):
    with pytest.raises(TypeError, match=f"out_dir must be a path, got {type(out_dir).__name__}"):
        sw.build(scal, out_dir, cache_dir=tmp_path / "c")


@pytest.mark.parametrize("name", ["not-ident", "1abc", "", "a b", "m.x"])
def test_build_rejects_bad_name(name, tmp_path):
    with pytest.raises(ValueError, match="must be a C identifier") as info:
        sw.build(scal, tmp_path / "out", name=name, cache_dir=tmp_path / "c")
    assert repr(name) in str(info.value)
    assert str(info.value).startswith("scaly.wasm.build: ")
    assert not (tmp_path / "out").exists()


@pytest.fixture
def tool_env():
    """Set SCALY_WASM_* variables for one test; the toolchain's caches are
    cleared when they change and after the test, so no other test sees them."""
    saved = {}

    def set_tool(var, value, clear_versions=True):
        saved.setdefault(var, os.environ.get(var))
        os.environ[var] = value
        toolchain.tool.cache_clear()
        if clear_versions:
            toolchain.versions.cache_clear()

    try:
        yield set_tool
    finally:
        for var, old in saved.items():
            if old is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = old
        toolchain.tool.cache_clear()
        toolchain.versions.cache_clear()


def test_missing_toolchain(tool_env, tmp_path):
    tool_env("SCALY_WASM_CLANG", "/nonexistent/clang")
    with pytest.raises(sw.WasmToolchainError) as info:
        sw.build(scal, tmp_path / "out", cache_dir=tmp_path / "c")
    message = str(info.value)
    assert "/nonexistent/clang" in message
    assert "Debian package clang-19" in message
    assert not (tmp_path / "out").exists()
    with pytest.raises(sw.WasmToolchainError, match="clang-19"):
        toolchain.tool("clang")


def test_failed_build_leaves_nothing(tool_env, tmp_path):
    """A tool failing mid-build (llvm-ar, after compiling) raises with its
    step named, and leaves no temporary folder and no cache entry."""
    require_clang()
    toolchain.versions()  # the key's versions stay the real ones
    tool_env("SCALY_WASM_LLVM_AR", shutil.which("false"), clear_versions=False)
    cache = tmp_path / "c"
    with pytest.raises(sw.WasmToolchainError, match="archiving libscal.a failed"):
        sw.build(scal, tmp_path / "out", cache_dir=cache)
    assert (cache / "wasm").is_dir()
    assert list((cache / "wasm").iterdir()) == []
    assert not (tmp_path / "out").exists()


def test_toolchain_found_after_restore():
    """Runs after test_missing_toolchain: the real compiler is found again."""
    require_clang()
    assert toolchain.tool("clang") == shutil.which(CLANG)
    assert "clang version 19" in toolchain.versions()["clang"]


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"format": "scaly-wasm-manifest-0"}',
                                  '{"entries": []}', ""])
def test_load_manifest_rejects(tmp_path, text):
    path = tmp_path / "manifest.json"
    path.write_text(text)
    with pytest.raises(ValueError, match="manifest|not a Scaly wasm manifest") as info:
        sw.load_manifest(path)
    assert str(path) in str(info.value)


def test_load_manifest_missing_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read the manifest"):
        sw.load_manifest(tmp_path / "absent.json")
