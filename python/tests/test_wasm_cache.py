"""scaly.wasm: the build cache (docs/wasm.md): the same build in two cache
folders is byte-identical under one key, a second build is a hit, a damaged archive
is rebuilt with nothing half-written left, and the key follows the function.
The archive is read back with llvm-nm-19 and wabt (test_wasm_build.py's readers)."""

import re
from pathlib import Path

import pytest

import scaly as sc
import scaly.wasm as sw
from test_wasm_build import (  # noqa: F401  (private_caches: an autouse fixture)
    defined_globals, private_caches, require_toolchain)


def _const_fn(value):
    @sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
    def cached_fn(x):
        return x * value + 1.0
    return cached_fn


def _tmp_leftovers(root):
    return [p for p in Path(root).rglob("*") if ".tmp." in p.name or ".damaged." in p.name]


@pytest.fixture(scope="module")
def cache_builds(tmp_path_factory):
    require_toolchain()
    fn = _const_fn(3.0)
    c1, c2 = tmp_path_factory.mktemp("cache1"), tmp_path_factory.mktemp("cache2")
    first = sw.build(fn, tmp_path_factory.mktemp("o1"), cache_dir=c1)
    other = sw.build(fn, tmp_path_factory.mktemp("o2"), cache_dir=c2)
    again = sw.build(fn, tmp_path_factory.mktemp("o3"), cache_dir=c1)
    return fn, c1, c2, first, other, again


def test_cache_reproducible_across_dirs(cache_builds):
    fn, c1, c2, first, other, _ = cache_builds
    assert not first.cached and not other.cached
    # Without name=, the module is named after the (first) function.
    assert first.name == fn.name == "cached_fn" and first.archive.name == "libcached_fn.a"
    key = first.manifest["cache_key"]
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert other.manifest["cache_key"] == key
    assert first.archive.read_bytes() == other.archive.read_bytes()
    assert first.wasm.read_bytes() == other.wasm.read_bytes()
    assert first.manifest == other.manifest
    for root in (c1, c2):
        cached_lib = root / "wasm" / key / f"lib{first.name}.a"
        assert cached_lib.read_bytes() == first.archive.read_bytes()
        assert not _tmp_leftovers(root)


def test_cache_hit(cache_builds):
    *_, first, _, again = cache_builds
    assert again.cached
    assert again.manifest == first.manifest
    for name, path in first.files().items():
        assert again.files()[name].read_bytes() == path.read_bytes()


def test_cache_detects_corruption(cache_builds, tmp_path):
    fn, c1, _, first, _, _ = cache_builds
    folder = c1 / "wasm" / first.manifest["cache_key"]
    lib = folder / f"lib{first.name}.a"
    damaged = bytearray(lib.read_bytes())
    damaged[len(damaged) // 2: len(damaged) // 2 + 8] = b"\xde\xad\xbe\xef" * 2
    lib.write_bytes(bytes(damaged))
    rebuilt = sw.build(fn, tmp_path / "out", cache_dir=c1)
    assert not rebuilt.cached
    assert rebuilt.archive.read_bytes() == first.archive.read_bytes()
    assert lib.read_bytes() == first.archive.read_bytes()
    assert defined_globals(rebuilt.archive)  # a valid archive again
    assert sw.read_signatures(rebuilt.wasm.read_bytes())["exports"]
    assert not _tmp_leftovers(c1)
    assert not [p for p in (tmp_path / "out").iterdir() if ".tmp." in p.name]
    # And the next build finds it whole.
    assert sw.build(fn, tmp_path / "out2", cache_dir=c1).cached


def test_cache_key_follows_the_function(cache_builds, tmp_path):
    _, c1, _, first, _, _ = cache_builds
    changed = sw.build(_const_fn(4.0), tmp_path, cache_dir=c1)
    assert changed.manifest["cache_key"] != first.manifest["cache_key"]
    assert not changed.cached
    assert (c1 / "wasm" / changed.manifest["cache_key"]).is_dir()
    assert not _tmp_leftovers(c1)


def test_cache_key_function():
    require_toolchain()
    k = sw.cache_key({"m.c": "int x;", "m.h": ""})
    assert k == sw.cache_key({"m.h": "", "m.c": "int x;"})  # order-free
    assert k != sw.cache_key({"m.c": "int y;", "m.h": ""})
    assert k != sw.cache_key({"m.c": "int x;", "m.h": "", "n.c": ""})
    # The parts are delimited: moving a byte from one file to another differs.
    assert sw.cache_key({"a": "xy", "b": ""}) != sw.cache_key({"a": "x", "b": "y"})
