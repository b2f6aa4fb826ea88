"""render_c_module(casadi=True), driven exactly as CasADi's `external()` loader drives it.

CasADi is not packaged for Debian, so `LOADER` below is a C program that follows
casadi/core/external.cpp: it dlopens the library, looks every symbol up (all optional but
the evaluation function; incref and decref come together or not at all), increments the
reference count, reads n_in/n_out (default 1), names, sparsities (compressed: nrow, ncol,
colind, row) and work sizes (a nonzero return is a failure), allocates arg, res, iw and w
from them, checks a memory out, evaluates, releases it and decrements the count. Values
cross in CasADi's order: the stored values of each sparsity, column-major for dense
matrices. Every value is compared with Scaly's own numerical call.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import scipy.sparse

import scaly as sc
from scaly.codegen import render_c_module

LOADER = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long long int casadi_int;
typedef void (*signal_t)(void);
typedef casadi_int (*getint_t)(void);
typedef double (*default_t)(casadi_int i);
typedef const char* (*name_t)(casadi_int i);
typedef const casadi_int* (*sparsity_t)(casadi_int i);
typedef int (*casadi_checkout_t)(void);
typedef void (*casadi_release_t)(int);
typedef int (*work_t)(casadi_int* sz_arg, casadi_int* sz_res, casadi_int* sz_iw, casadi_int* sz_w);
typedef int (*eval_t)(const double** arg, double** res, casadi_int* iw, double* w, int);

static void* lib;
static const char* fname;

static void* sym(const char* suffix) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s%s", fname, suffix);
  return dlsym(lib, buf);
}

static casadi_int nnz_of(const casadi_int* sp) { return sp ? sp[2 + sp[1]] : 1; }

/* usage: loader lib.so name inputs.txt [null-input-index] [null-output-index]
   inputs.txt: the stored values of every input, in order, whitespace separated. */
int main(int argc, char** argv) {
  if (argc < 4) return 90;
  lib = dlopen(argv[1], RTLD_LAZY);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 91; }
  fname = argv[2];
  int null_in = argc > 4 ? atoi(argv[4]) : -1, null_out = argc > 5 ? atoi(argv[5]) : -1;
  signal_t incref = (signal_t)sym("_incref"), decref = (signal_t)sym("_decref");
  default_t default_in = (default_t)sym("_default_in");
  getint_t n_in_f = (getint_t)sym("_n_in"), n_out_f = (getint_t)sym("_n_out");
  name_t name_in = (name_t)sym("_name_in"), name_out = (name_t)sym("_name_out");
  work_t work = (work_t)sym("_work");
  sparsity_t sp_in = (sparsity_t)sym("_sparsity_in"), sp_out = (sparsity_t)sym("_sparsity_out");
  casadi_checkout_t checkout = (casadi_checkout_t)sym("_checkout");
  casadi_release_t release = (casadi_release_t)sym("_release");
  eval_t eval = (eval_t)dlsym(lib, fname);
  if (!eval) return 92;
  if (!incref != !decref) return 93;
  if (incref) incref();
  casadi_int n_in = n_in_f ? n_in_f() : 1, n_out = n_out_f ? n_out_f() : 1;
  casadi_int sz_arg = 0, sz_res = 0, sz_iw = 0, sz_w = 0;
  if (work && work(&sz_arg, &sz_res, &sz_iw, &sz_w) != 0) return 94;
  if (sz_arg < n_in) sz_arg = n_in;
  if (sz_res < n_out) sz_res = n_out;
  const double** arg = calloc(sz_arg + 1, sizeof *arg);
  double** res = calloc(sz_res + 1, sizeof *res);
  casadi_int* iw = calloc(sz_iw + 1, sizeof *iw);
  double* w = calloc(sz_w + 1, sizeof *w);
  FILE* in = fopen(argv[3], "r");
  if (!in) return 95;
  for (casadi_int i = 0; i < n_in; ++i) {
    const casadi_int* sp = sp_in ? sp_in(i) : 0;
    casadi_int nz = nnz_of(sp);
    printf("in %lld %s %lld %lld %lld default %g\n", i, name_in ? name_in(i) : "?",
           sp ? sp[0] : 1, sp ? sp[1] : 1, nz, default_in ? default_in(i) : 0.0);
    double* v = malloc((nz + 1) * sizeof *v);
    for (casadi_int k = 0; k < nz; ++k)
      if (fscanf(in, "%lf", &v[k]) != 1) return 96;
    arg[i] = (i == null_in) ? 0 : v;
  }
  fclose(in);
  for (casadi_int j = 0; j < n_out; ++j) {
    const casadi_int* sp = sp_out ? sp_out(j) : 0;
    casadi_int nz = nnz_of(sp);
    printf("out %lld %s %lld %lld %lld\n", j, name_out ? name_out(j) : "?", sp ? sp[0] : 1,
           sp ? sp[1] : 1, nz);
    if (sp) {
      printf("colind");
      for (casadi_int c = 0; c <= sp[1]; ++c) printf(" %lld", sp[2 + c]);
      printf("\nrow");
      for (casadi_int k = 0; k < nz; ++k) printf(" %lld", sp[3 + sp[1] + k]);
      printf("\n");
    }
    res[j] = (j == null_out) ? 0 : calloc(nz + 1, sizeof(double));
  }
  int mem = checkout ? checkout() : 0;
  int flag = eval(arg, res, iw, w, mem);
  if (release) release(mem);
  printf("flag %d\n", flag);
  for (casadi_int j = 0; j < n_out; ++j) {
    const casadi_int* sp = sp_out ? sp_out(j) : 0;
    printf("values %lld", j);
    if (res[j])
      for (casadi_int k = 0; k < nnz_of(sp); ++k) printf(" %.17g", res[j][k]);
    printf("\n");
  }
  if (decref) decref();
  return 0;
}
"""


@pytest.fixture(scope="module")
def loader(tmp_path_factory):
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    where = tmp_path_factory.mktemp("casadi-loader")
    (where / "loader.c").write_text(LOADER)
    exe = where / "loader"
    subprocess.run(["gcc", "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "loader.c", "-ldl",
                    "-o", str(exe)], cwd=where, check=True)
    return exe


def build_library(functions, tmp_path, compiler="gcc"):
    module = render_c_module(functions, name="model", casadi=True)
    module.write(tmp_path)
    lib = tmp_path / f"libmodel_{compiler}.so"
    proc = subprocess.run([compiler, "-O2", "-Wall", "-Wextra", "-Werror", "-fPIC", "-shared",
                           "model.c", "-lm", "-o", str(lib)], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    return module, lib


def casadi_order(value, sparse=None):
    """The stored values CasADi exchanges: column-major for dense, CSC data for sparse."""
    if sparse is not None:
        return np.asarray(value.data)
    return np.asarray(value, dtype=np.float64).flatten(order="F")


def drive(loader, lib, name, inputs, tmp_path, null_in=-1, null_out=-1):
    values = tmp_path / f"{name}_inputs.txt"
    values.write_text(" ".join(repr(float(v)) for x in inputs for v in casadi_order(x)) + "\n")
    proc = subprocess.run([str(loader), str(lib), name, str(values), str(null_in),
                           str(null_out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"loader exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    report = {"in": [], "out": [], "values": {}, "colind": [], "row": []}
    for line in proc.stdout.splitlines():
        head, *rest = line.split()
        if head in ("in", "out"):
            report[head].append((rest[1], int(rest[2]), int(rest[3]), int(rest[4])))
        elif head in ("colind", "row"):
            report[head].append([int(v) for v in rest])
        elif head == "flag":
            report["flag"] = int(rest[0])
        elif head == "values":
            report["values"][int(rest[0])] = np.array([float(v) for v in rest[1:]])
    return report


@sc.function(sc.arg("x", 3), sc.arg("A", (2, 3)), sc.arg("p", ()),
             outputs=(sc.arg("y"), sc.arg("B"), sc.arg("s")))
def dense_model(x, A, p):
    return (A @ x) * p, A.T * p + 1.0, (x * x).sum()


def test_dense_function_as_casadi_loads_it(loader, tmp_path):
    _, lib = build_library(dense_model, tmp_path)
    r = np.random.default_rng(0)
    x, A, p = r.normal(size=3), r.normal(size=(2, 3)), 0.7
    report = drive(loader, lib, "dense_model", [x, A, np.array(p)], tmp_path)
    assert report["flag"] == 0
    # Dense ports keep their dimensions: a vector is a column, a scalar 1 x 1.
    assert report["in"] == [("x", 3, 1, 3), ("A", 2, 3, 6), ("p", 1, 1, 1)]
    assert report["out"] == [("y", 2, 1, 2), ("B", 3, 2, 6), ("s", 1, 1, 1)]
    for j, want in enumerate(dense_model(x, A, p)):
        np.testing.assert_array_equal(report["values"][j], casadi_order(want))


def test_null_input_is_zero_and_null_output_is_skipped(loader, tmp_path):
    _, lib = build_library(dense_model, tmp_path)
    x, A, p = np.array([1.0, 2.0, 3.0]), np.arange(6.0).reshape(2, 3), 2.0
    report = drive(loader, lib, "dense_model", [x, A, np.array(p)], tmp_path, null_in=1,
                   null_out=0)
    assert report["flag"] == 0
    want = dense_model(x, np.zeros((2, 3)), p)
    assert report["values"][0].size == 0
    np.testing.assert_array_equal(report["values"][1], casadi_order(want[1]))
    np.testing.assert_array_equal(report["values"][2], casadi_order(want[2]))


@sc.function(sc.arg("x", 6), outputs=sc.arg("g"))
def chain(x):
    return x[:-2] * sc.sin(x[1:-1]) + x[2:] ** 2


@pytest.mark.parametrize("compiler", ["gcc", "clang-19"])
def test_sparse_jacobian_output_is_compressed_column(loader, tmp_path, compiler):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    J = sc.jacobian(chain, layout="csc")
    _, lib = build_library(J, tmp_path, compiler)
    x = np.linspace(0.1, 0.6, 6)
    report = drive(loader, lib, "chain_jacobian", [x], tmp_path)
    want = J(x)
    assert isinstance(want, scipy.sparse.csc_matrix)
    assert report["out"] == [("jac_g_x", 4, 6, want.nnz)]
    assert report["colind"] == [list(want.indptr)] and report["row"] == [list(want.indices)]
    # The JIT calls glibc's vector sin (within 4 ulp); the export scalar libm.
    np.testing.assert_allclose(report["values"][0], want.data, rtol=4 * 2.0 ** -52, atol=0)


@sc.function(sc.arg("e", 0), sc.arg("x", 2), outputs=(sc.arg("y"), sc.arg("none")))
def with_empty(e, x):
    return x * 2.0 + e.sum(), e * 3.0


def test_empty_input_is_a_zero_by_one_column_and_may_be_null(loader, tmp_path):
    _, lib = build_library(with_empty, tmp_path)
    x = np.array([1.5, -2.0])
    report = drive(loader, lib, "with_empty", [np.zeros(0), x], tmp_path, null_in=0)
    assert report["flag"] == 0
    assert report["in"][0] == ("e", 0, 1, 0) and report["out"][1] == ("none", 0, 1, 0)
    np.testing.assert_array_equal(report["values"][0], with_empty(np.zeros(0), x)[0])


def test_several_entries_each_with_its_api(loader, tmp_path):
    H = sc.hessian(_cubic(), layout="csc")
    functions = [dense_model, chain, H]
    module, lib = build_library(functions, tmp_path)
    for f in functions:
        assert f"casadi_int {f.name}_n_in(void);" in module.header
        assert f"{f.name}_scaly(" in module.source
    x = np.linspace(-1, 1, 6)
    for f, args in ((chain, [x]), (H, [x])):
        report = drive(loader, lib, f.name, args, tmp_path)
        assert report["flag"] == 0
        want = f(*args)
        np.testing.assert_array_equal(report["values"][0], casadi_order(
            want, sparse=True if scipy.sparse.issparse(want) else None))


def test_header_declares_what_the_source_defines():
    """The header's CasADi prototypes are the layer's functions as the printer defines them:
    each is a definition's first line, and the layer has no other function."""
    module = render_c_module([dense_model, chain], name="decl", casadi=True)
    layer = module.header.split("CasADi's external function API")[1]
    declared = [line[:-1] for line in layer.splitlines() if line.endswith(");")]
    assert len(declared) == 2 * 16
    source = module.source.split("CasADi's external function API")[1]
    defined = [line[:-2] for line in source.splitlines() if line.endswith(") {") and line[0] != " "]
    assert sorted(declared) == sorted(defined)
    assert "const char* chain_name_in(casadi_int i)" in declared
    assert "void chain_incref(void)" in declared


def _cubic():
    @sc.function(sc.arg("x", 6), outputs=sc.arg("f"))
    def cubic(x):
        return (x[1:] * x[:-1] * x[1:]).sum()
    return cubic


def test_casadi_refuses_what_casadi_cannot_hold():
    @sc.function(sc.arg("k", (), dtype="int32"), outputs=sc.arg("y"))
    def counted(k):
        return k.astype("float64")

    with pytest.raises(ValueError, match="input 'k' of counted\\(\\) is int32"):
        render_c_module(counted, casadi=True)

    @sc.function(sc.arg("t", (2, 2, 2)), outputs=sc.arg("y"))
    def cube(t):
        return t.sum()

    with pytest.raises(ValueError, match="shape \\(2, 2, 2\\)"):
        render_c_module(cube, casadi=True)
    with pytest.raises(ValueError, match="lang='c'"):
        render_c_module(chain, casadi=True, lang="cpp")
