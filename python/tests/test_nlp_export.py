"""Modules that solve an NLP (`sc.nlp`), as built artifacts: the rendered files and the build
manifest, both sources compiled warning-free by gcc and clang and linked into a shared library
by the manifest's command, and a C program (written here, compiled with gcc) that calls the
entry with the five-argument ABI and `<entry>_with_options`, sets options through
`<w>_set_option` and `<w>_set_ipopt_option`, reads `<w>_stats` and `<w>_kind`, and prints what
it got. The printed results are compared with the JIT's result of the same Function, with the
published solution of Hock-Schittkowski problem 71 and with SciPy's SLSQP, and the multipliers
with the KKT conditions worked out by hand.

The problem is HS71 with its two constraint levels as the parameter p:

    minimize    x1 x4 (x1 + x2 + x3) + x3
    subject to  x1 x2 x3 x4 >= p1,  x1^2 + x2^2 + x3^2 + x4^2 = p2,  1 <= x <= 5

from x0 = (1, 5, 5, 1); p = (25, 40) is the published problem.
"""

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
from qpmodelutil import private_cache  # noqa: F401  (module fixture: a private JIT cache)
from scaly.solvers import native_paths

COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]
WARNINGS = ["-Wall", "-Wextra", "-O3", "-Werror", "-fPIC"]

N, M = 4, 2
X0 = np.array([1.0, 5.0, 5.0, 1.0])
P_PUBLISHED = np.array([25.0, 40.0])
P_OTHER = np.array([20.0, 36.0])
# Hock & Schittkowski (1981), problem 71.
X_PUBLISHED = np.array([1.0, 4.7429994, 3.8211503, 1.3794082])
F_PUBLISHED = 17.0140173

# (solver, qp backend): the module names and the cases every test runs on.
VARIANTS = {"ipopt": ("ipopt", "sparse"), "sqp": ("sqp", "sparse"), "sqp_dense": ("sqp", "dense")}
# SCALY_SOLVE_* codes and the backends' native codes for "iteration limit".
SOLVED, MAX_ITER = 0, 2
NATIVE_MAX_ITER = {"ipopt": -1, "sqp": -1}  # Maximum_Iterations_Exceeded, SCALY_SQP_MAX_ITER


def hs71_f(x):
    return x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2]


def hs71_g(x):
    return [x[0] * x[1] * x[2] * x[3], x[0] ** 2 + x[1] ** 2 + x[2] ** 2 + x[3] ** 2]


def grad_f(x):
    x1, x2, x3, x4 = x
    return np.array([x4 * (2 * x1 + x2 + x3), x1 * x4, x1 * x4 + 1.0, x1 * (x1 + x2 + x3)])


def jac_g(x):
    x1, x2, x3, x4 = x
    return np.array([[x2 * x3 * x4, x1 * x3 * x4, x1 * x2 * x4, x1 * x2 * x3], 2.0 * x])


def make_function(key):
    solver, qp = VARIANTS[key]

    def body(p):
        return sc.nlp(lambda x, p: x[0] * x[3] * (x[0] + x[1] + x[2]) + x[2],
                      lambda x, p: [x[0] * x[1] * x[2] * x[3], sc.sumsqr(x)],
                      x0=X0, p=p, lbx=np.ones(N), ubx=5.0 * np.ones(N),
                      lbg=sc.stack([p[0], p[1]]), ubg=[np.inf, p[1]], solver=solver, qp=qp)

    body.__name__ = body.__qualname__ = f"nlp_export_{key}"
    return sc.function(sc.arg("p", 2), outputs=[sc.arg("x"), sc.arg("lam_g"),
                                                sc.arg("lam_x")])(body)


_CACHE = {}


def function(key):
    if ("fn", key) not in _CACHE:
        _CACHE[("fn", key)] = make_function(key)
    return _CACHE[("fn", key)]


def rendered(key):
    from scaly.codegen import render_c_module
    if ("module", key) not in _CACHE:
        _CACHE[("module", key)] = render_c_module(function(key))
    return _CACHE[("module", key)]


def scipy_reference(p):
    """SLSQP (SciPy) on HS71 at p from the same start: an independent solver."""
    from scipy.optimize import minimize
    res = minimize(hs71_f, X0, jac=grad_f, method="SLSQP", bounds=[(1.0, 5.0)] * N,
                   constraints=[{"type": "ineq", "fun": lambda x: hs71_g(x)[0] - p[0],
                                 "jac": lambda x: jac_g(x)[0]},
                                {"type": "eq", "fun": lambda x: hs71_g(x)[1] - p[1],
                                 "jac": lambda x: jac_g(x)[1]}],
                   options={"ftol": 1e-12, "maxiter": 500})
    assert res.success, res.message
    return res.x


def check_kkt(x, lam_g, lam_x, p, tol=1e-6):
    """CasADi's convention from the formulas by hand: grad f + J'lam_g + lam_x = 0, lam_g[0]
    <= 0 (a lower bound, active or not), lam_x zero off the bounds and signed on them."""
    g = np.array(hs71_g(x))
    assert np.all(x >= 1.0 - tol) and np.all(x <= 5.0 + tol), x
    assert g[0] >= p[0] - tol and abs(g[1] - p[1]) <= tol, g
    residual = grad_f(x) + jac_g(x).T @ lam_g + lam_x
    assert np.abs(residual).max() <= tol * max(1.0, np.abs(grad_f(x)).max()), residual
    assert lam_g[0] <= tol and abs(lam_g[0] * (g[0] - p[0])) <= tol, (lam_g, g)
    for j in range(N):
        if x[j] - 1.0 > 1e-4:
            assert lam_x[j] >= -tol, (j, x, lam_x)
        if 5.0 - x[j] > 1e-4:
            assert lam_x[j] <= tol, (j, x, lam_x)


# -- the C program -------------------------------------------------------------------------

MAIN_C = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaly_nlp.h"
#include "@ENTRY@.h"

/* Exported by the wrapper unit (not declared in the module's header). */
void @W@_stats(scaly_solver_stats *out);
int @W@_set_option(const char *name, double value);
int @W@_set_ipopt_option(const char *name, const char *value);
const char *@W@_kind(void);
int @ENTRY@_with_options(const double **arg, double **res, int *iw, double *w, int mem,
                         const double *const *options);

static double x[@N@], lam_g[@M@], lam_x[@N@];

static void print_vec(const char *tag, const char *what, const double *v, int n) {
  int i;
  printf("@ V %s %s", tag, what);
  for (i = 0; i < n; ++i) printf(" %.17g", v[i]);
  printf("\n");
}

static void report(const char *tag, int entry) {
  scaly_solver_stats st;
  memset(&st, 0xff, sizeof st);
  @W@_stats(&st);
  printf("@ R %s entry %d version %d status %d native %d iter %d nf %d ngf %d ng %d njg %d "
         "nh %d qp_iter %d\n", tag, entry, (int)st.version, (int)st.status,
         (int)st.native_status, (int)st.iter, (int)st.n_eval_f, (int)st.n_eval_grad_f,
         (int)st.n_eval_g, (int)st.n_eval_jac_g, (int)st.n_eval_h, (int)st.qp_iter);
  printf("@ T %s obj %.17g t_total %.17g t_fe %.17g t_solver %.17g t_qp %.17g "
         "t_globalization %.17g t_glue %.17g\n", tag, st.obj, st.t_total, st.t_fe,
         st.t_solver, st.t_qp, st.t_globalization, st.t_glue);
  print_vec(tag, "x", x, @N@);
  print_vec(tag, "lam_g", lam_g, @M@);
  print_vec(tag, "lam_x", lam_x, @N@);
}

int main(void) {
  static const double p_published[2] = {@P1@}, p_other[2] = {@P2@};
  const double *arg[1] = {p_published};
  double *res[3] = {x, lam_g, lam_x};
  double *w = (double *)malloc(sizeof(double) * (@ENTRY@_SZ_W + 1));
  int count = scaly_nlp_option_count(@BACKEND@), k, found = 0;
  double *values = (double *)malloc(sizeof(double) * (size_t)count);
  const double *options[1];
  const double *defaults[1] = {NULL};
  scaly_solver_stats st;
  if (!w || !values) return 90;

  printf("@ K kind %s\n", @W@_kind());
  /* No solve yet: version 0. */
  memset(&st, 0xff, sizeof st);
  @W@_stats(&st);
  printf("@ B version %d\n", (int)st.version);

  report("plain", @ENTRY@(arg, res, NULL, w, 0));
  arg[0] = p_other;
  report("other", @ENTRY@(arg, res, NULL, w, 0));
  arg[0] = p_published;

  /* max_iter = 2 for this call only, by its index in the backend's table. */
  for (k = 0; k < count; ++k) {
    values[k] = NAN;
    if (strcmp(scaly_nlp_option_name(@BACKEND@, k), "max_iter") == 0) {
      values[k] = 2.0;
      ++found;
    }
  }
  printf("@ O table_max_iter %d\n", found);
  options[0] = values;
  report("max_iter", @ENTRY@_with_options(arg, res, NULL, w, 0, options));
  report("again", @ENTRY@(arg, res, NULL, w, 0));
  report("defaults", @ENTRY@_with_options(arg, res, NULL, w, 0, defaults));

  /* Defaults for later calls. */
  printf("@ O unknown %d\n", @W@_set_option("no_such_option", 1.0));
  printf("@ O negative %d\n", @W@_set_option("max_iter", -1.0));
  report("after_refused", @ENTRY@(arg, res, NULL, w, 0));
  printf("@ O set_max_iter %d\n", @W@_set_option("max_iter", 3.0));
  report("set_max_iter", @ENTRY@(arg, res, NULL, w, 0));
  /* A call-time value overrides the default set above. */
  for (k = 0; k < count; ++k)
    if (strcmp(scaly_nlp_option_name(@BACKEND@, k), "max_iter") == 0) values[k] = 200.0;
  report("override", @ENTRY@_with_options(arg, res, NULL, w, 0, options));
  printf("@ O reset_max_iter %d\n", @W@_set_option("max_iter", 200.0));

  /* IPOPT's own options by name (IPOPT backend only). */
  printf("@ O ipopt_unknown %d\n", @W@_set_ipopt_option("no_such_ipopt_option", "1"));
  printf("@ O ipopt_bad_value %d\n", @W@_set_ipopt_option("max_iter", "many"));
  printf("@ O ipopt_max_iter %d\n", @W@_set_ipopt_option("max_iter", "2"));
  report("ipopt_max_iter", @ENTRY@(arg, res, NULL, w, 0));
  printf("@ O ipopt_removed %d\n", @W@_set_ipopt_option("max_iter", NULL));
  report("ipopt_removed", @ENTRY@(arg, res, NULL, w, 0));

  free(values);
  free(w);
  return 0;
}
"""


def parse(text):
    """{"kind", "before", "options": {name: rc}, "runs": {tag: {...}}, "other": [lines]} from
    the program: its own lines start with "@ ", anything else a library printed is kept."""
    out = {"options": {}, "runs": {}, "other": []}
    for line in text.splitlines():
        if not line.startswith("@ "):
            out["other"].append(line)
            continue
        words = line.split()[1:]
        if words[0] == "K":
            out["kind"] = words[2]
        elif words[0] == "B":
            out["before"] = int(words[2])
        elif words[0] == "O":
            out["options"][words[1]] = int(words[2])
        elif words[0] in ("R", "T"):
            run = out["runs"].setdefault(words[1], {})
            cast = int if words[0] == "R" else float
            run.update({words[i]: cast(words[i + 1]) for i in range(2, len(words), 2)})
        elif words[0] == "V":
            out["runs"][words[1]][words[2]] = np.array([float(v) for v in words[3:]])
    return out


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))}\n{proc.stderr}{proc.stdout}"
    return proc.stdout + proc.stderr


def write_module(key, directory):
    """Write the module of `key` and the C program into `directory`; returns the module."""
    module = rendered(key)
    module.write(str(directory))
    entry, wrapper = module.name, module.solvers[0]
    solver, _ = VARIANTS[key]
    main = MAIN_C
    for k, v in {"@ENTRY@": entry, "@W@": wrapper, "@N@": str(N), "@M@": str(M),
                 "@BACKEND@": f"SCALY_NLP_{solver.upper()}",
                 "@P1@": ", ".join(map(repr, P_PUBLISHED.tolist())),
                 "@P2@": ", ".join(map(repr, P_OTHER.tolist()))}.items():
        main = main.replace(k, v)
    (directory / "main.c").write_text(main)
    return module


def build_library(module, directory, compiler):
    """The manifest's build command with `compiler` and the warning flags; the library path."""
    manifest = json.loads(module.manifest)
    command = shlex.split(manifest["build"])
    assert command[0] == "cc"
    out = run([compiler, *WARNINGS, *command[1:]], directory)
    assert "warning" not in out, out
    lib = directory / f"lib{module.name}.so"
    assert lib.exists()
    return lib


def run_main(module, directory):
    """The C program compiled with gcc against lib<entry>.so; its parsed output."""
    paths = native_paths()
    libdir = str(Path(paths["scaly_nlp"]).parent)
    exe = directory / "nlp_main"
    run(["gcc", *WARNINGS, f"-I{paths['include']}", "main.c", "-o", str(exe),
         f"-L{directory}", f"-l{module.name}", f"-Wl,-rpath,{directory}", f"-L{libdir}",
         "-lscaly_nlp", "-lscaly_qp", f"-Wl,-rpath,{libdir}", "-lm"], directory)
    proc = subprocess.run([str(exe)], cwd=directory, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return parse(proc.stdout)


# -- 1. the rendered files and the manifest -----------------------------------------------

@pytest.mark.parametrize("key", list(VARIANTS))
def test_module_files_and_manifest(tmp_path, key):
    solver, qp = VARIANTS[key]
    module = write_module(key, tmp_path)
    entry = f"nlp_export_{key}"
    wrapper = f"{entry}_nlp0"
    assert module.name == entry and module.solvers == (wrapper,)
    for suffix, text in ((".c", module.source), (".h", module.header),
                         ("_solvers.c", module.solver_source), (".build.json", module.manifest)):
        assert (tmp_path / f"{entry}{suffix}").read_text() == text
    # The module calls its wrapper by the module's name for it; no traced name is left.
    assert f"{wrapper}(" in module.source
    for text in (module.source, module.solver_source):
        assert not re.search(r"\bscaly_(qp|nlp)_[0-9a-f]{16}|scalynlp_", text)
    # The wrapper unit holds the oracles and the backend's solve and exports.
    for name in ("f", "g", "grad_f", "jac_g", "hess_l"):
        assert f"{wrapper}_oracle_{name}(" in module.solver_source
        # Declared hidden before the wrapper calls it, and so again by the oracles'
        # header (render option entry_specifier), right before their definitions.
        hidden = f"SCALY_WRAPPER_HIDDEN int {wrapper}_oracle_{name}(const double** arg,"
        assert module.solver_source.count(hidden) == 2
        assert (module.solver_source.index(hidden) < module.solver_source.index(f"{wrapper}_ready(")
                < module.solver_source.rindex(hidden))
    # The oracles' header text stands before their source, which does not include it.
    assert "_oracles.h\"" not in module.solver_source
    assert (f'const char* {wrapper}_kind(void) {{\n  return "{solver}";\n}}\n'
            in module.solver_source)
    assert f"int {entry}_with_options(" in module.solver_source

    manifest = json.loads(module.manifest)
    paths = native_paths()
    libdir = str(Path(paths["scaly_nlp"]).parent)
    assert manifest["module"] == entry
    assert manifest["sources"] == [f"{entry}.c", f"{entry}_solvers.c"]
    assert manifest["headers"] == [f"{entry}.h", "scaly_qp.h", "scaly_nlp.h",
                                   "scaly_solver_stats.h"]
    assert manifest["include_dirs"] == [paths["include"]]
    assert manifest["library_dirs"] == [libdir]
    assert manifest["libraries"] == ["scaly_nlp", "scaly_qp", "m"]
    expected = {"wrapper": wrapper, "kind": "nlp", "backend": solver, "n": N, "m": M,
                "exports": [f"{wrapper}_stats", f"{wrapper}_set_option",
                            f"{wrapper}_set_ipopt_option", f"{wrapper}_kind"]}
    if solver == "sqp":
        expected["qp"] = qp
    assert manifest["solvers"] == [expected]
    command = shlex.split(manifest["build"])
    assert command[0] == "cc" and "-shared" in command and "-fPIC" in command
    assert command[command.index("-o") + 1] == f"lib{entry}.so"
    assert f"{entry}.c" in command and f"{entry}_solvers.c" in command
    assert f"-I{paths['include']}" in command and f"-L{libdir}" in command
    assert command.index("-lscaly_nlp") < command.index("-lscaly_qp")
    assert f"-Wl,-rpath,{libdir}" in command and "-Wl,-Bsymbolic" in command
    for header in ("scaly_nlp.h", "scaly_qp.h", "scaly_solver_stats.h"):
        assert (Path(paths["include"]) / header).exists()


# -- 2. warning-free objects with gcc and clang; the manifest's library ------------------

@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("key", list(VARIANTS))
def test_sources_compile_warning_free_and_link(tmp_path, key, compiler):
    """Each source alone as an object (-Werror: a warning fails), then the manifest's command
    with this compiler; the shared library exports the entries and the wrapper's functions
    and hides the solve and the oracles."""
    module = write_module(key, tmp_path)
    paths = native_paths()
    for src in (f"{module.name}.c", f"{module.name}_solvers.c"):
        out = run([compiler, *WARNINGS, f"-I{paths['include']}", "-c", src, "-o",
                   src[:-2] + ".o"], tmp_path)
        assert "warning" not in out, out
    lib = build_library(module, tmp_path, compiler)
    symbols = run(["nm", "-D", "--defined-only", str(lib)], tmp_path)
    exported = {line.split()[-1] for line in symbols.splitlines() if line.split()[-2] in "TtDdBbRr"}
    wrapper = module.solvers[0]
    for name in (module.name, f"{module.name}_with_options", f"{wrapper}_stats",
                 f"{wrapper}_set_option", f"{wrapper}_set_ipopt_option", f"{wrapper}_kind"):
        assert name in exported, (name, sorted(exported))
    assert wrapper not in exported
    assert not [s for s in exported if "_oracle_" in s], sorted(exported)


# -- 3. the C program: results, options, statistics ---------------------------------------

@pytest.fixture(scope="module")
def program_output(tmp_path_factory):
    """program_output(key, compiler): the parsed output of the C program linked to the library
    the manifest's command built with `compiler`; run once per pair in this module."""
    outputs = {}

    def get(key, compiler):
        if (key, compiler) not in outputs:
            directory = tmp_path_factory.mktemp(f"nlp-main-{key}-{compiler}")
            module = write_module(key, directory)
            build_library(module, directory, compiler)
            outputs[key, compiler] = run_main(module, directory)
        return outputs[key, compiler]
    return get


COMPONENTS = ("t_fe", "t_solver", "t_qp", "t_globalization", "t_glue")
SOLVED_TAGS = ("plain", "again", "defaults", "after_refused", "override", "ipopt_removed")
REPEATED_TAGS = ("again", "defaults", "after_refused", "override", "ipopt_removed")
# How close the C program's answers are to the JIT's (another compiler and recipe: the oracles
# round differently, and SQP's iterates, each a QP solved to 1e-9, carry that further).
AGREE = {"ipopt": 1e-9, "sqp": 1e-7}


def check_stats(r, solver, tag):
    assert r["entry"] == 0, (tag, r)
    assert r["version"] == 3, (tag, r)
    assert r["iter"] >= 1 and r["nf"] >= 1 and r["ngf"] >= 1 and r["ng"] >= 1, (tag, r)
    assert r["njg"] >= 1 and r["nh"] >= 1, (tag, r)
    times = [r[k] for k in COMPONENTS]
    # t_glue is the wrapper's remainder; its sign is checked in test_component_times_...
    assert all(t >= 0.0 for t in times[:-1]), (tag, times)
    assert r["t_total"] > 0.0 and r["t_fe"] > 0.0, (tag, r)
    assert abs(r["t_total"] - sum(times)) <= 1e-12 + 1e-9 * r["t_total"], (tag, r)
    if solver == "sqp":
        assert r["t_qp"] > 0.0 and r["qp_iter"] >= r["iter"], (tag, r)
    else:
        assert r["t_solver"] > 0.0 and r["t_qp"] == 0.0 and r["qp_iter"] == 0, (tag, r)


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("key", list(VARIANTS))
def test_c_program_against_jit_and_references(program_output, key, compiler):
    solver, _ = VARIANTS[key]
    out = program_output(key, compiler)
    runs = out["runs"]
    assert out["kind"] == solver
    assert out["before"] == 0  # no solve yet: version 0
    assert out["options"]["table_max_iter"] == 1
    agree = AGREE[solver]

    # Solved: the published solution, the KKT conditions, the JIT's answer.
    fn = function(key)
    jit = fn(P_PUBLISHED)
    jit_stats = fn.stats()
    assert jit_stats["status"] == "solved"
    slsqp_published = scipy_reference(P_PUBLISHED)
    for tag in SOLVED_TAGS:
        r = runs[tag]
        check_stats(r, solver, tag)
        assert (r["status"], r["native"]) == (SOLVED, 0), (tag, r)
        np.testing.assert_allclose(r["x"], X_PUBLISHED, atol=1e-6, err_msg=tag)
        np.testing.assert_allclose(r["x"], slsqp_published, atol=1e-6, err_msg=tag)
        # IPOPT reports f at its own iterate, inside bounds relaxed by 1e-8, and returns that
        # iterate moved back onto the bounds (honor_original_bounds): 1e-7 apart here.
        assert abs(r["obj"] - F_PUBLISHED) <= 1e-6, (tag, r["obj"])
        assert abs(r["obj"] - hs71_f(r["x"])) <= (1e-6 if solver == "ipopt" else 1e-12), tag
        check_kkt(r["x"], r["lam_g"], r["lam_x"], P_PUBLISHED)
        for name, value in zip(("x", "lam_g", "lam_x"), jit):
            np.testing.assert_allclose(r[name], value, rtol=0, atol=agree, err_msg=(tag, name))
        if solver == "ipopt":
            assert r["iter"] == jit_stats["iter"], (tag, r["iter"], jit_stats["iter"])
            for name in ("x", "lam_g", "lam_x"):
                np.testing.assert_array_equal(r[name], runs["plain"][name], err_msg=tag)

    # Another p: SLSQP's answer, the KKT conditions, the JIT's answer.
    r = runs["other"]
    check_stats(r, solver, "other")
    assert r["status"] == SOLVED
    np.testing.assert_allclose(r["x"], scipy_reference(P_OTHER), atol=1e-6)
    assert np.abs(r["x"] - runs["plain"]["x"]).max() > 1e-2
    check_kkt(r["x"], r["lam_g"], r["lam_x"], P_OTHER)
    for name, value in zip(("x", "lam_g", "lam_x"), fn(P_OTHER)):
        np.testing.assert_allclose(r[name], value, rtol=0, atol=agree, err_msg=name)

    # The iteration limit, for one call (_with_options) and as a default (_set_option); the
    # calls after it are solved again (above).
    for tag, limit in (("max_iter", 2), ("set_max_iter", 3)):
        r = runs[tag]
        assert (r["entry"], r["version"], r["status"], r["native"]) == \
            (0, 3, MAX_ITER, NATIVE_MAX_ITER[solver]), (tag, r)
        assert r["iter"] == limit, (tag, r)
        assert np.all(np.isfinite(r["x"])) and np.abs(r["x"] - X_PUBLISHED).max() > 1e-4, tag
    if solver == "ipopt":
        np.testing.assert_allclose(runs["max_iter"]["x"],
                                   fn(P_PUBLISHED, options={"max_iter": 2})[0], rtol=0, atol=1e-9)
        assert fn.stats()["status"] == "max_iter"
    assert out["options"]["unknown"] == -1 and out["options"]["negative"] == -1
    assert out["options"]["set_max_iter"] == 0 and out["options"]["reset_max_iter"] == 0

    # IPOPT's options by name: known ones are taken (and removed with NULL), unknown ones
    # refused; the other backend takes none.
    assert out["options"]["ipopt_unknown"] == -1 and out["options"]["ipopt_bad_value"] == -1
    if solver == "ipopt":
        assert out["options"]["ipopt_max_iter"] == 0
        r = runs["ipopt_max_iter"]
        assert (r["status"], r["native"], r["iter"]) == (MAX_ITER, -1, 2), r
        assert out["options"]["ipopt_removed"] == 0
    else:
        assert out["options"]["ipopt_max_iter"] == -1
        assert out["options"]["ipopt_removed"] == -1
        assert runs["ipopt_max_iter"]["status"] == SOLVED


@pytest.mark.parametrize("key", list(VARIANTS))
def test_component_times_fit_in_the_total(program_output, key):
    """Each component of t_total is a share of it: the wrapper's remainder t_glue is never
    negative, over every solve of the program."""
    out = program_output(key, COMPILERS[0])
    glue = {tag: r["t_glue"] for tag, r in out["runs"].items()}
    assert all(g >= 0.0 for g in glue.values()), glue


@pytest.mark.parametrize("key", list(VARIANTS))
def test_repeated_solves_are_identical(program_output, key):
    """The same call (same p; no option that binds) repeated: the same answer, bit for bit,
    and the same work."""
    runs = program_output(key, COMPILERS[0])["runs"]
    for tag in REPEATED_TAGS:
        for name in ("x", "lam_g", "lam_x"):
            np.testing.assert_array_equal(runs[tag][name], runs["plain"][name], err_msg=tag)
        for count in ("iter", "nf", "ngf", "ng", "njg", "nh", "qp_iter"):
            assert runs[tag][count] == runs["plain"][count], (tag, count)


@pytest.mark.parametrize("key", list(VARIANTS))
def test_the_program_prints_only_its_own_lines(program_output, key):
    """Refused options are answered by return values: nothing else reaches stdout."""
    assert program_output(key, COMPILERS[0])["other"] == []


def test_oracle_sweeps_multiply_as_ieee_and_widen_to_lanes():
    # The solver's Jacobian and Hessian oracles take plain products in their
    # compressed sweeps (a solver refuses any non-finite entry anyway): no
    # exact-zero compare and select per product, so the sweeps over a vmapped
    # model widen to lane vectors. A user's sc.jacobian(layout="csc") keeps the
    # exact products (test_derivative_exact_zeros.py).
    from scaly.codegen import render_c_module

    def step(s, u):
        return s + 0.1 * sc.stack([s[1], sc.sin(s[0]) * u])

    stepped = sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=sc.arg("t"))(step)

    def body(p):
        def g(w, p):
            states, inputs = w[:34].reshape((17, 2)), w[34:]
            nxt = sc.vmap(stepped, 16)(states[:-1], inputs)
            return sc.concat([states[0] - p, (states[1:] - nxt).reshape((32,))])
        return sc.nlp(lambda w, p: sc.sumsqr(w), g, x0=np.zeros(50), p=p,
                      lbg=np.zeros(34), ubg=np.zeros(34), solver="sqp")

    body.__name__ = "nlp_oracle_lanes"
    fn = sc.function(sc.arg("p", 2), outputs=[sc.arg("x"), sc.arg("lam_g"), sc.arg("lam_x")])(body)
    module = render_c_module(fn, lanes=4)
    oracles = {}
    for what in ("jac_g", "hess_l"):
        start = module.solver_source.index(
            f"int nlp_oracle_lanes_nlp0_oracle_{what}(const double** arg, double** res, int* iw, "
            "double* w, int mem) {")
        oracles[what] = module.solver_source[start:module.solver_source.index("\n}\n", start)]
    for what, text in oracles.items():
        assert "? 0.0 :" not in text and "== 0.0" not in text, what
        assert "scaly_f64x4" in text, what  # a widened sweep
    # And the solve is right: the states follow the steps from p with w = 0's inputs.
    w, _, _ = fn(np.array([0.3, -0.2]))
    states = w[:34].reshape((17, 2))
    assert np.allclose(states[0], [0.3, -0.2])
    for k in range(16):
        s = states[k]
        assert np.allclose(states[k + 1], s + 0.1 * np.array([s[1], np.sin(s[0]) * w[34 + k]]),
                           atol=1e-8)


def test_entry_specifier_must_be_a_macro_name():
    from scaly import _scaly
    fn = function("ipopt")
    with pytest.raises(RuntimeError, match="entry_specifier 'static inline' is not a C identifier"):
        _scaly.render([fn._traced], {"entry_specifier": "static inline"})


def test_entry_names_rename_before_rendering_and_are_checked():
    from scaly import _scaly
    fn = function("ipopt")
    out = _scaly.render([fn._traced], {"entry_names": {fn._traced.name: "renamed_entry"}})
    assert [e["name"] for e in out["entries"]] == ["renamed_entry"]
    assert "int renamed_entry(const double** arg" in out["header"]
    # The solver wrapper it calls is named after the module (the entry's new name).
    assert out["solver_names"][0][1] == "renamed_entry_nlp0"
    with pytest.raises(ValueError, match="cannot export 'sin'"):
        _scaly.render([fn._traced], {"entry_names": {fn._traced.name: "sin"}})
