"""Numerical calls (issue 13): out-of-range integers raise OverflowError as NumPy does instead of
wrapping, and wrong-shape inputs are refused before anything is copied."""

import re
import time
import tracemalloc

import numpy as np
import pytest

import scaly as sc


@pytest.fixture
def ints(cache):
    """k: an int64 vector, j: an int32 vector, x: a float64 vector, each passed through."""
    @sc.function(sc.arg("k", 4, dtype="int64"), sc.arg("j", 4, dtype="int32"),
                 sc.arg("x", 4), outputs=(sc.arg("ko"), sc.arg("jo"), sc.arg("xo")))
    def ints(k, j, x):
        return k + 0, j + 0, x + 0.0
    return ints


K, J, X = [1, 2, 3, 4], [1, 2, 3, 4], [0.5, 1.5, 2.5, 3.5]
BIG = [
    pytest.param(2**63, id="2**63"),
    pytest.param(2**64 - 1, id="2**64-1"),
    pytest.param(-2**63 - 1, id="-2**63-1"),
    pytest.param(2**70, id="2**70"),
    pytest.param(-2**70, id="-2**70"),
    pytest.param(np.uint64(2**63), id="np.uint64(2**63)"),
]


def numpy_overflows(values, dtype):
    """The reference: NumPy refuses to convert these integers to `dtype` with OverflowError
    (as Python ints: NumPy casts a lone np.uint64 scalar with wrap-around, which Scaly does not)."""
    as_int = [int(v) for v in values] if isinstance(values, list) else int(values)
    with pytest.raises(OverflowError):
        np.asarray(as_int, dtype=dtype)


@pytest.mark.parametrize("big", BIG)
def test_int64_out_of_range_overflows(ints, big):
    for k in ([big, 0, 0, 0], [0, -1, big, 1], [big] * 4):
        numpy_overflows(k, np.int64)
        with pytest.raises(OverflowError, match=re.escape(
                "ints(): input 'k' expects int64 values in "
                "[-9223372036854775808, 9223372036854775807], got ")):
            ints(k, J, X)


@pytest.mark.parametrize("big", BIG)
def test_int64_scalar_out_of_range_overflows(cache, big):
    @sc.function(sc.arg("n", (), dtype="int64"), outputs=sc.arg("m"))
    def scalar(n):
        return n + 0
    numpy_overflows(big, np.int64)
    with pytest.raises(OverflowError, match=re.escape(
            f"scalar(): input 'n' expects int64 values in "
            f"[-9223372036854775808, 9223372036854775807], got {big!r}")):
        scalar(big)
    for edge in (2**63 - 1, -2**63, np.uint64(2**63 - 1), True):
        assert scalar(edge) == np.int64(edge)


@pytest.mark.parametrize("j", [
    pytest.param([2**64 - 1] * 4, id="[2**64-1]*4"),
    pytest.param([2**31, 0, 0, 0], id="2**31"),
    pytest.param([0, -2**31 - 1, 0, 0], id="-2**31-1"),
    pytest.param([2**63, 0, 0, 0], id="2**63"),
    pytest.param([-1, 2**63, 0, 0], id="-1-and-2**63"),
    pytest.param([2**70, 0, 0, 0], id="2**70"),
])
def test_int32_out_of_range_overflows(ints, j):
    with pytest.raises(OverflowError, match=re.escape(
            "ints(): input 'j' expects int32 values in [-2147483648, 2147483647], got ")):
        ints(K, j, X)


def test_integers_in_range_pass_exactly(ints):
    k = [2**63 - 1, -2**63, 0, np.uint64(2**63 - 1)]
    j = [2**31 - 1, -2**31, np.int64(7), np.uint64(2**31 - 1)]
    ko, jo, xo = ints(k, j, [2**70, -2**53 - 1, 1, True])
    np.testing.assert_array_equal(ko, np.array([int(v) for v in k], dtype=np.int64))
    np.testing.assert_array_equal(jo, np.array([int(v) for v in j], dtype=np.int32))
    # Integers beyond int64 given to a float input are rounded as NumPy rounds them.
    np.testing.assert_array_equal(xo, np.asarray([2**70, -2**53 - 1, 1, True], dtype=np.float64))


def test_lossy_values_are_still_type_errors(ints):
    with pytest.raises(TypeError, match=re.escape("ints(): input 'k' expects int64 values (integers)")):
        ints([0.5, 1, 2, 3], J, X)
    with pytest.raises(TypeError, match=re.escape("ints(): input 'j' expects int32 values (integers)")):
        ints(K, [2**63, 0.5, 0, 0], X)


# -- shape and dtype are checked before anything is copied ------------------------------

@pytest.fixture
def vec3(cache):
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def vec3(x):
        return 2.0 * x
    vec3.compile()
    return vec3


@pytest.mark.parametrize("view,exc,match", [
    (lambda: np.broadcast_to(0.0, (3, 10**8)), ValueError,
     "vec3(): input 'x' expects shape (3,), got (3, 100000000)"),
    (lambda: np.broadcast_to(0.0, (3, 10**9)), ValueError,
     "vec3(): input 'x' expects shape (3,), got (3, 1000000000)"),
    (lambda: np.broadcast_to(np.float32(0), (10**9, 3)), ValueError,
     "vec3(): input 'x' expects shape (3,), got (1000000000, 3)"),
    (lambda: np.broadcast_to(np.int64(0), (3, 10**9)), ValueError,
     "vec3(): input 'x' expects shape (3,), got (3, 1000000000)"),
    (lambda: np.broadcast_to(np.complex128(0), (3, 10**9)), TypeError,
     "vec3(): input 'x' expects dtype float64, got numpy.complex128"),
])
def test_huge_wrong_views_fail_without_copying(vec3, view, exc, match):
    arr = view()
    tracemalloc.start()
    try:
        start = time.perf_counter()
        with pytest.raises(exc, match=re.escape(match)):
            vec3(arr)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, f"{peak} bytes allocated"   # NumPy reports its buffers to tracemalloc
    assert elapsed < 0.5, f"{elapsed:.3f} s"
    assert vec3._kernel.copies == 0


def test_right_shape_views_are_still_copied_and_computed(vec3):
    y = vec3(np.broadcast_to(1.5, (3,)))
    np.testing.assert_array_equal(y, [3.0, 3.0, 3.0])
    y = vec3(np.arange(6.0)[::2])
    np.testing.assert_array_equal(y, [0.0, 4.0, 8.0])
    assert vec3._kernel.copies == 2


def test_wrong_shape_list_is_refused_before_conversion(vec3):
    with pytest.raises(ValueError, match=re.escape("vec3(): input 'x' expects shape (3,), got (2, 3)")):
        vec3([[1, 2, 3], [4, 5, 6]])
