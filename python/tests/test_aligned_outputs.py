"""Outputs of 1 MiB or more come back 64-byte aligned (python/src/AlignedOutputs.cpp): made
through a NumPy memory handler of Scaly's own, they own their data, resize and free through it,
and the caller's own handler is left as it was."""

import numpy as np
import pytest

import scaly as sc


def test_large_outputs_start_on_a_cache_line_and_own_their_data(cache):
    @sc.function(sc.arg("x", (512, 512)), outputs=(sc.arg("y"), sc.arg("z", (512, 512), "float32")))
    def twice(x):
        return x * 2.0, (x * 3.0).astype("float32")

    x = np.random.default_rng(4).standard_normal((512, 512))
    for _ in range(3):  # fresh arrays each call, each aligned
        y, z = twice(x)
        assert y.ctypes.data % 64 == 0 and z.ctypes.data % 64 == 0
        assert y.flags.owndata and y.base is None and y.flags.c_contiguous
        np.testing.assert_array_equal(y, x * 2.0)
        np.testing.assert_array_equal(z, (x * 3.0).astype(np.float32))
    y.resize((600, 512), refcheck=False)  # NumPy reallocates through the array's handler
    np.testing.assert_array_equal(y[:512], x * 2.0)
    np.testing.assert_array_equal(y[512:], 0.0)  # resize zero-fills what it adds
    y.resize((100, 512), refcheck=False)
    np.testing.assert_array_equal(y, x[:100] * 2.0)
    del y, z


def test_the_callers_memory_handler_is_restored(cache):
    @sc.function(sc.arg("x", (512, 512)), outputs=sc.arg("y"))
    def neg(x):
        return -x

    before = np.core.multiarray.get_handler_name()
    y = neg(np.ones((512, 512)))
    assert np.core.multiarray.get_handler_name(y) == "scaly_aligned_64"
    assert np.core.multiarray.get_handler_name() == before
    assert np.core.multiarray.get_handler_name(np.empty(10**6)) == before


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[")[1].split("]")[0]
    except (OSError, IndexError):
        return None


def _advised_huge(address):
    """Whether the mapping holding `address` is madvise'd for huge pages: the kernel's own
    record of it, the "hg" flag of /proc/self/smaps' VmFlags."""
    with open("/proc/self/smaps") as f:
        inside = False
        for line in f:
            head = line.split()[0]
            if "-" in head and ":" not in head:
                start, end = (int(v, 16) for v in head.split("-"))
                inside = start <= address < end
            elif inside and head == "VmFlags:":
                return "hg" in line.split()[1:]
    raise AssertionError(f"no mapping holds address {address:#x}")


@pytest.mark.skipif(_thp_mode() in (None, "never"), reason="no transparent huge pages here")
def test_large_outputs_ask_for_huge_pages_as_numpy_does(cache):
    """An output of 4 MiB or more is madvise'd MADV_HUGEPAGE, as NumPy's own allocator does
    with its large arrays, unless NumPy's _set_madvise_hugepage(False) turned that off
    (checked in the kernel's record of the mapping). The outputs are over 32 MiB, so glibc
    maps each afresh rather than reusing memory an earlier array advised."""
    @sc.function(sc.arg("x", (2100, 2100)), outputs=sc.arg("y"))
    def f(x):
        return x * 2.0

    x = np.random.default_rng(5).standard_normal((2100, 2100))
    y = f(x)
    np.testing.assert_array_equal(y, x * 2.0)
    assert _advised_huge(y.ctypes.data + y.nbytes // 2)
    previous = np.core.multiarray._set_madvise_hugepage(False)
    try:
        plain = f(x)
        assert not _advised_huge(plain.ctypes.data + plain.nbytes // 2)
        np.testing.assert_array_equal(plain, y)
    finally:
        np.core.multiarray._set_madvise_hugepage(previous)
