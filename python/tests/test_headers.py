"""Headers (C with typed structs, C++ in a namespace) and the build recipe comment."""

import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module


def pendulum():
    @sc.function(sc.arg("q", 2), sc.arg("gain", ()), sc.arg("class", (2, 2)),
                 outputs=(sc.arg("qdot"), sc.arg("energy")))
    def pendulum(q, gain, cls):
        return sc.stack([q[1], -gain * q[0].sin()]) + cls @ q, 0.5 * q[1] * q[1] - gain * q[0].cos()
    return pendulum


def reference(q, gain, cls):
    return np.array([q[1], -gain * np.sin(q[0])]) + cls @ q, 0.5 * q[1] ** 2 - gain * np.cos(q[0])


def test_c_header_typed_structs(workdir):
    module = render_c_module(pendulum())
    h = module.header
    assert "typedef struct __attribute__((aligned(16))) {\n  double q[2];\n  double gain;\n  double class_[2][2];\n} pendulum_in;" in h
    assert "double qdot[2];\n  double energy;\n} pendulum_out;" in h
    module.write(workdir)
    drv = r"""
#include <stdalign.h>
#include <stdio.h>
#include "pendulum.h"
_Static_assert(alignof(pendulum_in) == 16, "inputs struct is 16-byte aligned");
_Static_assert(alignof(pendulum_out) == 16, "outputs struct is 16-byte aligned");
int main(void) {
  pendulum_in in = {{0.3, -0.2}, 9.81, {{1, 2}, {3, 4}}};
  pendulum_out out;
  const double* arg[pendulum_SZ_ARG] = {in.q, &in.gain, &in.class_[0][0]};
  double* res[pendulum_SZ_RES] = {out.qdot, &out.energy};
  if (pendulum(arg, res, NULL, NULL, 0)) return 1;
  printf("%.17g %.17g %.17g\n", out.qdot[0], out.qdot[1], out.energy);
  return 0;
}
"""
    open(f"{workdir}/drv.c", "w").write(drv)
    subprocess.run(["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-o", f"{workdir}/drv",
                    f"{workdir}/drv.c", f"{workdir}/pendulum.c", "-lm"], check=True)
    out = subprocess.run([f"{workdir}/drv"], capture_output=True, text=True, check=True).stdout
    got = [float(v) for v in out.split()]
    qdot, energy = reference(np.array([0.3, -0.2]), 9.81, np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(got, [*qdot, energy], rtol=1e-15)


@pytest.mark.parametrize("cxx", ["g++", "clang++-19"])
def test_cpp_header_in_a_namespace(workdir, cxx):
    if cxx == "clang++-19" and subprocess.run(["which", cxx], capture_output=True).returncode:
        pytest.skip("clang++-19 not installed")
    module = render_c_module(pendulum(), lang="cpp")
    assert module.header_name == "pendulum.hpp"
    assert '#include "pendulum' not in module.source  # a C++ header cannot be included from C
    assert "namespace pendulum {" in module.header
    assert 'extern "C" int pendulum(const double** arg' in module.header
    assert "double class_[2][2];" in module.header
    module.write(workdir)
    drv = r"""
#include <cstdio>
#include "pendulum.hpp"
static_assert(alignof(pendulum::In) == 16, "16-byte aligned");
static_assert(pendulum::SZ_ARG == 3 && pendulum::SZ_RES == 2, "sizes");
int main() {
  pendulum::In in{{0.3, -0.2}, 9.81, {{1, 2}, {3, 4}}};
  pendulum::Out out{};
  const double* arg[pendulum::SZ_ARG] = {in.q, &in.gain, &in.class_[0][0]};
  double* res[pendulum::SZ_RES] = {out.qdot, &out.energy};
  if (pendulum::pendulum(arg, res, nullptr, nullptr, 0)) return 1;
  std::printf("%.17g %.17g %.17g\n", out.qdot[0], out.qdot[1], out.energy);
  return 0;
}
"""
    open(f"{workdir}/drv.cpp", "w").write(drv)
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-c", f"{workdir}/pendulum.c",
                    "-o", f"{workdir}/pendulum.o"], check=True)
    subprocess.run([cxx, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-o", f"{workdir}/drv",
                    f"{workdir}/drv.cpp", f"{workdir}/pendulum.o", "-lm"], check=True)
    out = subprocess.run([f"{workdir}/drv"], capture_output=True, text=True, check=True).stdout
    qdot, energy = reference(np.array([0.3, -0.2]), 9.81, np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose([float(v) for v in out.split()], [*qdot, energy], rtol=1e-15)


def test_source_compiles_as_cpp_with_c_linkage(workdir):
    module = render_c_module(pendulum())
    module.write(workdir)
    subprocess.run(["g++", "-x", "c++", "-O2", "-Wall", "-Wextra", "-Werror", "-c",
                    f"{workdir}/pendulum.c", "-o", f"{workdir}/p.o"], check=True)
    symbols = subprocess.run(["nm", f"{workdir}/p.o"], capture_output=True, text=True).stdout
    assert " T pendulum\n" in symbols  # unmangled: the same symbol as from C


@pytest.mark.parametrize("cpu,flag", [("generic", ""), ("x86-64-v2", "-march=x86-64-v2 "),
                                      ("x86-64-v3", "-march=x86-64-v3 -ffp-contract=off "),
                                      ("native", "-march=native -ffp-contract=off ")])
def test_recipe_reflects_options_and_builds(workdir, cpu, flag):
    module = render_c_module(pendulum(), cpu=cpu)
    lines = module.source.splitlines()
    assert lines[0] == "/* Scaly build recipe"
    baseline = "host-local native CPU" if cpu == "native" else cpu
    assert lines[1] == f" * CPU baseline: {baseline}"
    assert lines[2] == " * lanes=1, dialect=gnu, vector_libm=none, reciprocal=False"
    gcc_cmd = f"gcc -O3 {flag}-fno-math-errno -c pendulum.c"
    assert f" * {gcc_cmd}" in lines and f" * clang -O3 {flag}-fno-math-errno -c pendulum.c" in lines
    assert module.header.startswith("\n".join(lines[:8]))  # the same comment opens the header
    module.write(workdir)
    subprocess.run(gcc_cmd.split() + ["-Wall", "-Wextra", "-Werror"], cwd=workdir, check=True)


def test_functions_sharing_a_python_name_stay_distinct(workdir):
    def make(k):
        @sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
        def step(x):
            return (x * k).block()
        return step

    a, b = make(2.0), make(3.0)

    @sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
    def both(x):
        return a(x) + b(x) * 10.0

    src = render_c_module(both).source
    assert "static inline void step_raw(" in src and "static inline void step_1_raw(" in src
    import cdriver
    (y,) = cdriver.build(both, workdir).run(np.float64(1.5))
    assert y == 1.5 * 2.0 + 1.5 * 3.0 * 10.0


def test_ports_named_like_what_the_module_or_libc_defines(workdir):
    @sc.function(sc.arg("v", 3), outputs=sc.arg("r"))
    def inner(v):
        return (v * 2.0).block()

    @sc.function(sc.arg("inner_raw", 3), sc.arg("M_PI", ()), sc.arg("top_SZ_W", ()),
                 sc.arg("linux", ()), sc.arg("INT32_MAX", ()), sc.arg("NULL", ()),
                 outputs=sc.arg("y"))
    def top(x, mpi, szw, lx, imax, null):
        return inner(x) + mpi + szw + lx + imax + null

    import cdriver
    (y,) = cdriver.build(top, workdir).run(np.ones(3), 1.0, 2.0, 3.0, 4.0, 5.0)
    np.testing.assert_array_equal(y, [17.0, 17.0, 17.0])
    header = render_c_module(top).header
    for renamed in ("inner_raw_[3]", "M_PI_v;", "top_SZ_W_;", "linux_v;", "INT32_MAX_v;", "NULL_;"):
        assert renamed in header, renamed
