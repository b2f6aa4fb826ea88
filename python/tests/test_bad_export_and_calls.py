"""Bad input at export and call time: render_c_module options, reserved entry names and
numerical calls; each error names what was wrong and what was expected."""

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

from test_bad_input import esc, make_mixed, make_scale, trace1, vec  # noqa: F401

CPU_LIST = "'generic', 'x86-64-v2', 'x86-64-v3', 'x86-64-v4', 'native'"


@pytest.mark.parametrize("option,match", [
    pytest.param({"cpu": "i386"}, f"cpu='i386' is not one of {CPU_LIST}", id="cpu-unknown"),
    pytest.param({"cpu": None}, f"cpu=None is not one of {CPU_LIST}", id="cpu-None"),
    pytest.param({"cpu": True}, f"cpu=True is not one of {CPU_LIST}", id="cpu-bool"),
    pytest.param({"lanes": 3}, "lanes=3 is not one of 1, 2, 4, 8, 'auto'", id="lanes-3"),
    pytest.param({"lanes": 0}, "lanes=0 is not one of 1, 2, 4, 8, 'auto'", id="lanes-0"),
    pytest.param({"lanes": "4"}, "lanes='4' is not one of 1, 2, 4, 8, 'auto'", id="lanes-str"),
    pytest.param({"lanes": True}, "lanes=True is not one of 1, 2, 4, 8, 'auto'", id="lanes-bool"),
    pytest.param({"dialect": "c11"}, "dialect='c11' is not one of 'gnu', 'c99'", id="dialect"),
    pytest.param({"dialect": "GNU"}, "dialect='GNU' is not one of 'gnu', 'c99'", id="dialect-case"),
    pytest.param({"vector_libm": "svml"}, "vector_libm='svml' is not one of 'none', 'glibc'",
                 id="vector_libm"),
    pytest.param({"vector_libm": None}, "vector_libm=None is not one of 'none', 'glibc'",
                 id="vector_libm-None"),
    pytest.param({"reciprocal": 1}, "reciprocal must be True or False, got 1", id="reciprocal-int"),
    pytest.param({"reciprocal": "no"}, "reciprocal must be True or False, got 'no'", id="reciprocal-str"),
    pytest.param({"lang": "c++"}, "lang='c\\+\\+' is not one of 'c', 'cpp'", id="lang"),
    pytest.param({"lang": "C"}, "lang='C' is not one of 'c', 'cpp'", id="lang-case"),
    pytest.param({"casadi": 1}, "casadi must be True or False, got 1", id="casadi-int"),
    pytest.param({"casadi": "no"}, "casadi must be True or False, got 'no'", id="casadi-str"),
])
def test_render_invalid_option(option, match):
    with pytest.raises(ValueError, match=f"^render_c_module: {match}$"):
        render_c_module(make_scale(), **option)


@pytest.mark.parametrize("lanes", [1.0, 2.0])
def test_render_float_lanes(lanes):
    with pytest.raises(ValueError, match=f"lanes={lanes!r} is not one of 1, 2, 4, 8, 'auto'"):
        render_c_module(make_scale(), lanes=lanes)


@pytest.mark.parametrize("option,match", [
    pytest.param({"lanes": 4, "dialect": "c99"},
                 "lanes=4 needs GNU vector extensions, which dialect='c99' does not use; "
                 "use lanes=1 or dialect='gnu'", id="c99-lanes"),
    pytest.param({"lanes": 2, "vector_libm": "glibc", "dialect": "c99"},
                 "lanes=2 needs GNU vector extensions", id="c99-glibc"),
    pytest.param({"vector_libm": "glibc"},
                 "vector_libm='glibc' needs vector lanes (lanes=2, 4, 8 or 'auto'); with lanes=1 "
                 "every call is scalar libm", id="glibc-lanes-1"),
    pytest.param({"vector_libm": "glibc", "lanes": 8},
                 "vector_libm='glibc' with lanes=8 needs cpu='x86-64-v4' or 'native' (the vector "
                 "ABI of its width), got cpu='generic'", id="glibc-8-generic"),
    pytest.param({"vector_libm": "glibc", "lanes": 4, "cpu": "x86-64-v2"},
                 "vector_libm='glibc' with lanes=4 needs cpu='x86-64-v3' or 'x86-64-v4' or "
                 "'native'", id="glibc-4-v2"),
])
def test_render_options_that_cannot_build_together(option, match):
    with pytest.raises(ValueError, match="^render_c_module: " + esc(match)):
        render_c_module(make_scale(), **option)


@pytest.mark.parametrize("value,kind", [
    (lambda v: v, "function"), (None, "NoneType"), ("scale", "str"),
])
def test_render_a_non_function(value, kind):
    with pytest.raises(TypeError, match=f"render_c_module: expected a scaly Function or a list of them, got {kind}"):
        render_c_module(value)


def test_render_a_traced_core_object():
    with pytest.raises(TypeError, match="expected a scaly Function or a list of them, got TracedFunction"):
        render_c_module(make_scale()._traced)


def test_render_unknown_option_and_positional_option():
    with pytest.raises(TypeError, match="unexpected keyword argument 'cpus'"):
        render_c_module(make_scale(), cpus="native")
    with pytest.raises(TypeError, match="takes 1 positional argument but 2 were given"):
        render_c_module(make_scale(), "native")


@pytest.mark.parametrize("name,why", [
    ("int", "it is a C keyword"),
    ("double", "it is a C keyword"),
    ("class", "it is a C\\+\\+ keyword"),
    ("new", "it is a C\\+\\+ keyword"),
    ("main", "it is a name of the C library"),
    ("log", "it is a name of the C library"),
    ("exp", "it is a name of the C library"),
    ("expf", "it is a name of the C library"),
    ("malloc", "it is a name of the C library"),
    ("NULL", "it is a name of the C library"),
    ("double2", "the generated module defines it"),
    ("float4", "the generated module defines it"),
    ("SCALY_x", "the generated module defines it"),
    ("__x", "the C standard reserves identifiers starting with __"),
    ("_X", "the C standard reserves identifiers starting with __ or _ and a capital"),
])
def test_reserved_entry_name(name, why):
    fn = trace1(lambda x: 2.0 * x, vec(), name=name)  # tracing accepts the name
    with pytest.raises(ValueError, match=f"^cannot export '{name}' as the entry of a C module: {why}.*"
                                         "; rename the Python function$"):
        render_c_module(fn)


# -- call time: numerical calls through the JIT --------------------------------

@pytest.fixture
def mixed(cache):
    return make_mixed()


A22 = np.zeros((2, 2))
N3 = np.zeros(3, dtype=np.int64)


@pytest.mark.parametrize("args,exc,match", [
    pytest.param((np.zeros(4), 1.0, N3), ValueError,
                 esc("mixed(): input 'a' expects shape (2, 2), got (4,)"), id="shape"),
    pytest.param((np.zeros((2, 2, 1)), 1.0, N3), ValueError,
                 esc("mixed(): input 'a' expects shape (2, 2), got (2, 2, 1)"), id="shape-extra-axis"),
    pytest.param((A22, [1.0], N3), ValueError,
                 esc("mixed(): input 's' expects shape (), got (1,)"), id="scalar-given-vector"),
    pytest.param((A22, 1.0, np.zeros(4, dtype=np.int64)), ValueError,
                 esc("mixed(): input 'n' expects shape (3,), got (4,)"), id="int-shape"),
    pytest.param((A22, 1.0, np.zeros(3)), TypeError,
                 esc("mixed(): input 'n' expects dtype int64, got numpy.float64 (cast it explicitly "
                     "with .astype())"), id="float-array-for-int64"),
    pytest.param((A22.astype(complex), 1.0, N3), TypeError,
                 esc("mixed(): input 'a' expects dtype float64, got numpy.complex128"),
                 id="complex-array-for-float64"),
    pytest.param((A22, 1.0, [0.5, 1, 2]), TypeError,
                 esc("mixed(): input 'n' expects int64 values"), id="lossy-list-for-int64"),
    pytest.param((A22, 1.0, 2.5), TypeError,
                 esc("mixed(): input 'n' expects int64 values"), id="lossy-scalar-for-int64"),
    pytest.param((A22, 1.0, [2**70, 1, 2]), OverflowError,
                 esc("mixed(): input 'n' expects int64 values in [-9223372036854775808, "
                     "9223372036854775807], got list with an integer outside that range"),
                 id="int-overflow"),
    pytest.param((A22, "abc", N3), TypeError,
                 esc("mixed(): input 's' expects a float64 array of shape (), got str"), id="str"),
    pytest.param((A22, 1 + 2j, N3), TypeError,
                 esc("mixed(): input 's' expects a float64 array of shape (), got complex"), id="complex"),
    pytest.param((A22, object(), N3), TypeError,
                 esc("mixed(): input 's' expects a float64 array of shape (), got object"), id="object"),
    pytest.param(([[1, 2], [3]], 1.0, N3), TypeError,
                 esc("mixed(): input 'a' expects a float64 array of shape (2, 2), got list"), id="ragged"),
    pytest.param((A22, 1.0, None), TypeError,
                 esc("mixed(): input 'n' expects a int64 array of shape (3,), got NoneType"),
                 id="None-for-int64"),
    pytest.param((A22, 1.0), TypeError, esc("mixed() takes 3 inputs"), id="too-few"),
    pytest.param((A22, 1.0, N3, N3), TypeError, esc("mixed() takes 3 inputs"), id="too-many"),
    pytest.param((), TypeError, esc("mixed() takes 3 inputs"), id="none"),
])
def test_numerical_call_bad_inputs(mixed, args, exc, match):
    with pytest.raises(exc, match=match):
        mixed(*args)
    # Compiled now: the second call goes straight to the Kernel and must say the same.
    mixed.compile()
    with pytest.raises(exc, match=match):
        mixed(*args)
    y, m = mixed(A22 + 1, 2.0, np.array([1, 2, 3]))  # still usable
    np.testing.assert_array_equal(y, np.full((2, 2), 2.0))
    np.testing.assert_array_equal(m, [2, 4, 6])


def test_numerical_call_by_keyword(mixed):
    with pytest.raises(TypeError, match="unexpected keyword argument 'n'"):
        mixed(A22, 1.0, n=N3)
    kernel = mixed.compile()._kernel
    with pytest.raises(TypeError, match=esc("mixed() takes inputs by position only")):
        kernel(A22, 1.0, n=N3)


@pytest.mark.parametrize("args,match", [
    pytest.param((np.zeros(3),), esc("bb(): input 'b' expects dtype bool, got numpy.float64"),
                 id="float-array"),
    pytest.param(([0, 1, 2],), esc("bb(): input 'b' expects bool values"), id="int-list"),
])
def test_numerical_call_bool_input(cache, args, match):
    @sc.function(sc.arg("b", 3, dtype="bool"), outputs=sc.arg("o"))
    def bb(b):
        return sc.where(b, np.ones(3), np.zeros(3))
    with pytest.raises(TypeError, match=match):
        bb(*args)


def test_numerical_call_reserved_name(cache):
    fn = trace1(lambda x: 2.0 * x, vec(), name="main")
    with pytest.raises(ValueError, match="cannot export 'main' as the entry of a C module"):
        fn(np.zeros(3))


# -- bugs: each asserts the behaviour a fix should produce ----------------------


def test_numerical_call_none_for_float_input(mixed):
    with pytest.raises(TypeError, match=esc("mixed(): input 's' expects a float64 array of shape (), "
                                            "got NoneType")):
        mixed(A22, None, N3)


def test_numerical_call_int_list_for_int32_input(cache):
    @sc.function(sc.arg("k", 3, dtype="int32"), outputs=sc.arg("o"))
    def i32(k):
        return k * 2
    with pytest.raises(TypeError, match=esc("i32(): input 'k' expects int32 values")):
        i32([0.5, 1, 2])  # lossy: refused, as it should be
    np.testing.assert_array_equal(i32([1, 2, 3]), [2, 4, 6])
