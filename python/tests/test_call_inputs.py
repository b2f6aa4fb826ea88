"""Numerical calls (issue 13): wrong-shape inputs are refused before anything is copied."""

import re
import time
import tracemalloc

import numpy as np
import pytest

import scaly as sc


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
