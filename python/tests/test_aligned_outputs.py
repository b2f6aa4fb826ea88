"""Outputs of 1 MiB or more come back 64-byte aligned (python/src/AlignedOutputs.cpp): made
through a NumPy memory handler of Scaly's own, they own their data, resize and free through it,
and the caller's own handler is left as it was."""

import numpy as np

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
