"""Names that reach C, checked against what a real glibc, gcc and clang define (issue 13,
finding 4): every entry name the C library, the compilers' built-ins or predefined macros own
is refused, and ports with such names are renamed, so that the exported module compiles
warning-free against the system headers (not the JIT's prelude) and the JIT computes the same
numbers."""

import os
import re
import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver

# Entry names that make gcc or clang-19 fail on the exported module: functions, objects,
# types and macros of glibc's math.h, stddef.h and stdint.h (default C mode), compiler
# built-ins and predefined macros.
FAILING_ENTRY_NAMES = [
    "gamma", "y0", "y1", "yn", "j0", "j1", "jn", "sincos", "finite", "drem", "significand",
    "scalb", "exp10", "pow10", "index", "bzero", "signgam", "float_t", "double_t",
    "max_align_t", "isnan", "isgreater", "math_errhandling", "M_PI", "M_E", "INT32_MAX",
    "SIZE_MAX", "FP_NAN", "NAN", "HUGE_VALF", "linux", "unix", "lgamma_r", "nexttowardf",
]
# Refused too, though today's x86-64 compilers happen to accept them: `i386` is predefined
# with -m32, `main` belongs to the program, names the standard reserves.
OTHER_REFUSED = ["i386", "main", "__func__", "__STDC__", "_Exit", "__x"]

PORT_NAMES = FAILING_ENTRY_NAMES + OTHER_REFUSED + [
    "__LINE__", "__FILE__", "__DATE__", "_X", "_", "__", "__1", "errno", "assert", "NULL",
    "offsetof", "sin", "class", "int",
]


def compile_c(compiler, workdir, stem, args=()):
    """(status, diagnostics) of compiling <stem>.c against the system headers."""
    proc = subprocess.run([compiler, "-O3", "-fno-math-errno", *cdriver.WARNINGS, *args, "-c",
                           f"{stem}.c", "-o", f"{stem}_{compiler}.o"],
                          cwd=workdir, capture_output=True, text=True)
    return proc.returncode, proc.stderr


def affine(name, in_name="x", out_name="y"):
    def body(x):
        return 2.0 * x + 1.0
    body.__name__ = name
    return sc.function(sc.arg(in_name, 3), outputs=sc.arg(out_name))(body)


@pytest.mark.parametrize("name", FAILING_ENTRY_NAMES)
def test_the_compilers_reject_these_entry_names(workdir, name):
    """The reference: a module whose entry is renamed to `name` by hand fails to build (an
    error, or a warning at -Wall -Wextra -Werror) with gcc or with clang-19 (`sincos` and
    `exp10` are built-ins of gcc only)."""
    if not cdriver.COMPILERS:
        pytest.skip("neither gcc nor clang-19 is installed")
    module = render_c_module(affine("safe_entry"))
    with open(os.path.join(workdir, f"{name}.c"), "w") as f:
        f.write(re.sub(r"\bsafe_entry", name, module.source))
    with open(os.path.join(workdir, f"{name}.h"), "w") as f:
        f.write(re.sub(r"\bsafe_entry", name, module.header))
    failed = [cc for cc in cdriver.COMPILERS if compile_c(cc, workdir, name)[0] != 0]
    assert failed, f"{' and '.join(cdriver.COMPILERS)} accepted an entry named {name}"


@pytest.mark.parametrize("name", FAILING_ENTRY_NAMES + OTHER_REFUSED)
def test_reserved_entry_names_are_refused(cache, name):
    fn = affine(name)
    pattern = rf"^cannot export '{re.escape(name)}' as the entry of a C module: .+; rename the Python function$"
    with pytest.raises(ValueError, match=pattern):
        render_c_module(fn)
    with pytest.raises(ValueError, match=pattern):   # a numerical call renders the same module
        fn(np.zeros(3))


@pytest.mark.parametrize("name,why", [
    ("linux", "gcc and clang predefine it as a macro"),
    ("gamma", "it is a name of the C library (math.h, stddef.h, stdint.h, stdlib.h, ...) or a "
              "built-in function of gcc and clang"),
    ("sincos", "it is a name of the C library"),
    ("M_PI", "it is a name of the C library"),
    ("__STDC__", "the C standard reserves identifiers starting with __ or _ and a capital"),
])
def test_refusal_says_why(name, why):
    with pytest.raises(ValueError, match=f"entry of a C module: {re.escape(why)}"):
        render_c_module(affine(name))


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
@pytest.mark.parametrize("name", ["gamma_model", "y2", "sinc", "energy", "linux_step", "M_PIX"])
def test_ordinary_entry_names_export_and_run(workdir, compiler, name):
    fn = affine(name)
    x = np.array([0.5, -1.0, 3.0])
    (y,) = cdriver.build(fn, workdir, compiler=compiler).run(x)
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
@pytest.mark.parametrize("name", PORT_NAMES)
def test_port_names_export_and_run(workdir, compiler, name):
    """An input, then an output, with a risky name: the module and a driver that includes its
    header build with the system headers at -O3 -Wall -Wextra -Werror (the input in GNU C,
    where `linux` and `unix` are macros; the output in strict C11 with -march=native) and give
    NumPy's numbers."""
    x = np.array([0.5, -1.0, 3.0])
    cases = [((name, "y"), ()), (("x", name), ("-std=c11", "-march=native"))]
    for i, ((in_name, out_name), flags) in enumerate(cases):
        fn = affine("ported", in_name, out_name)
        built = cdriver.build(fn, os.path.join(workdir, str(i)), compiler=compiler, flags=flags)
        (y,) = built.run(x)
        np.testing.assert_array_equal(y, 2.0 * x + 1.0)


@pytest.mark.parametrize("name", PORT_NAMES)
def test_port_names_through_the_jit(cache, name):
    x = np.array([0.5, -1.0, 3.0])
    for in_name, out_name in [(name, "y"), ("x", name)]:
        fn = affine("ported", in_name, out_name)
        np.testing.assert_array_equal(fn(x), 2.0 * x + 1.0)
        assert [n for n, _, _ in fn.inputs] == [in_name]   # Python keeps the declared names


@pytest.mark.parametrize("name,c_name", [
    ("__func__", "func__"), ("__STDC__", "STDC__"), ("__", "p"), ("_X", "X"), ("__1", "p1"),
    ("math_errhandling", "math_errhandling_"), ("gamma", "gamma_"), ("M_PI", "M_PI_v"),
    ("linux", "linux_v"), ("sincos", "sincos_"),
])
def test_port_renaming_is_readable(name, c_name):
    header = render_c_module(affine("ported", name, "y")).header
    assert re.search(rf"\bdouble {re.escape(c_name)}\[3\];", header), header
