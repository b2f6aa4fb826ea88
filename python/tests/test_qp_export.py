"""Modules that reach a solver, as built artifacts: the exported C (module + wrappers + a C
main, built by gcc and clang warning-free), two modules in one program, the `_with_options`
entry beside a same-named library, a new process loading through the index, WebAssembly's
refusal, threads, the solver fingerprint, and derivatives refused by name.
"""

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
from scaly.solvers import native_paths, solve_qp
from qpmodelutil import (private_cache, P, A, case, reference, assert_matches, named,
                        constant_qp_function, cached, plain, N, NP, NM)


# -- 8. export: the module's C, the wrapper C and a C main ------------------------------------

COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]
WARNINGS = ["-Wall", "-Wextra", "-Werror", "-O2", "-fPIC"]

MAIN_C = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scaly_qp.h"
#include "@ENTRY@.h"

void @WRAPPER@_stats(scaly_solver_stats *out);
int @ENTRY@_with_options(const double **arg, double **res, int *iw, double *w, int mem,
                         const double *const *options);

static void print_vec(const char *tag, const double *v, int n) {
  int i;
  printf("%s", tag);
  for (i = 0; i < n; ++i) printf(" %.17g", v[i]);
  printf("\n");
}

static void report(const char *tag, int status, const double *const *res) {
  scaly_solver_stats st;
  memset(&st, 0xff, sizeof st);
  @WRAPPER@_stats(&st);
  printf("%s entry %d version %d status %d iter %d\n", tag, status, (int)st.version,
         (int)st.status, (int)st.iter);
  print_vec("x", res[0], @N@);
  print_vec("y", res[1], @P@);
  print_vec("z", res[2], @M@);
  print_vec("z_box", res[3], @N@);
}

int main(void) {
  static const double c[@N@] = {@C@};
  static const double b[@P@] = {@B@};
  double x[@N@], y[@P@], z[@M@], z_box[@N@];
  const double *arg[2] = {c, b};
  double *res[4] = {x, y, z, z_box};
  double *w = (double *)malloc(sizeof(double) * (@ENTRY@_SZ_W + 1));
  int count = scaly_qp_option_count(), k, status;
  double *values = (double *)malloc(sizeof(double) * (size_t)count);
  const double *options[1];
  const double *defaults[1] = {NULL};
  if (!w || !values) return 90;

  status = @ENTRY@(arg, res, NULL, w, 0);
  report("plain", status, (const double *const *)res);

  for (k = 0; k < count; ++k)
    values[k] = strcmp(scaly_qp_option_name(k), "max_iter") == 0 ? 1.0 : NAN;
  options[0] = values;
  status = @ENTRY@_with_options(arg, res, NULL, w, 0, options);
  report("max_iter", status, (const double *const *)res);

  status = @ENTRY@(arg, res, NULL, w, 0);
  report("again", status, (const double *const *)res);

  status = @ENTRY@_with_options(arg, res, NULL, w, 0, defaults);
  report("defaults", status, (const double *const *)res);

  free(values);
  free(w);
  return 0;
}
"""


def parse_report(text):
    """{tag: {"entry", "version", "status", "iter", "x", "y", "z", "z_box"}} from the main."""
    out, tag = {}, None
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[1] == "entry":
            tag = words[0]
            out[tag] = {words[i]: int(words[i + 1]) for i in range(1, len(words), 2)}
        else:
            out[tag][words[0]] = np.array([float(v) for v in words[1:]])
    return out


def run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}{proc.stdout}"
    return proc.stdout


def export(fn, directory):
    """Render `fn`'s module, write it (with the wrapper source and the manifest) and a C
    main beside it; returns (module, wrapper name, c, b of the main's call)."""
    from scaly.codegen import render_c_module
    from scaly.codegen import _entry_params
    from scaly.solvers.model import _SPECS
    from scaly.solvers.wrapper import render_wrappers

    entry = fn.name
    module = render_c_module(fn)
    # The module names its wrapper after itself (tracing named it by a digest of its
    # structure), and its wrapper source is the wrappers' rendering under that name.
    assert module.solvers == (f"{entry}_qp0",) and f"{entry}_qp0(" in module.source
    # A traced wrapper's name: the render renamed each to the module's.
    assert not re.search(r"\b(scaly_(?:qp|nlp)_[0-9a-f]{16})\(", module.source)
    names = list(module.solvers)
    params = _entry_params(module, entry)
    assert any(render_wrappers([(entry, params)], [traced], {traced: names[0]})
               == module.solver_source for traced in _SPECS)
    module.write(str(directory))
    for suffix, text in ((".c", module.source), (".h", module.header),
                         ("_solvers.c", module.solver_source), (".build.json", module.manifest)):
        assert (directory / f"{entry}{suffix}").read_text() == text

    c, b = case(2)
    main = MAIN_C
    for key, value in {"@ENTRY@": entry, "@WRAPPER@": names[0], "@N@": str(N), "@P@": str(NP),
                       "@M@": str(NM), "@C@": ", ".join(repr(float(v)) for v in c),
                       "@B@": ", ".join(repr(float(v)) for v in b)}.items():
        main = main.replace(key, value)
    (directory / "main.c").write_text(main)
    return module, names[0], c, b


def check_report(report, c, b, sparse):
    res = reference(c, b, sparse)
    codes = {"solved": 0, "max_iter": 2}
    for tag in ("plain", "again", "defaults"):
        r = report[tag]
        assert (r["entry"], r["version"], r["status"]) == (0, 3, codes["solved"]), (tag, r)
        assert r["iter"] == res.iter
        assert_matches((r["x"], r["y"], r["z"], r["z_box"]), res)
    r = report["max_iter"]
    assert (r["entry"], r["version"], r["status"], r["iter"]) == (0, 3, codes["max_iter"], 1)
    assert np.abs(r["x"] - res.x).max() > 1e-3


@pytest.mark.parametrize("sparse", [True, False], ids=["sparse", "dense"])
@pytest.mark.parametrize("compiler", COMPILERS)
def test_export_compiles_and_runs(tmp_path, compiler, sparse):
    """Module, wrappers and main compiled warning-free as objects and linked to the QP
    library; x, y, z, z_box and the statuses of four calls checked."""
    fn = cached(("const", sparse), lambda: constant_qp_function(sparse))
    entry = fn.name
    module, wrapper, c, b = export(fn, tmp_path)
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    include = f"-I{paths['include']}"
    objects = []
    for src in (f"{entry}.c", f"{entry}_solvers.c", "main.c"):
        obj = f"{src[:-2]}.o"
        run([compiler, *WARNINGS, include, "-c", src, "-o", obj], tmp_path)
        objects.append(obj)
    exe = str(tmp_path / "qp_main")
    run([compiler, *objects, "-o", exe, f"-L{libdir}", "-lscaly_qp", f"-Wl,-rpath,{libdir}",
         "-lm"], tmp_path)
    report = parse_report(run([exe], tmp_path))
    check_report(report, c, b, sparse)
    # The JIT's result for the same call agrees with the exported C.
    np.testing.assert_allclose(fn(c, b)[0], report["plain"]["x"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_export_manifest_builds_a_library(tmp_path, compiler):
    """<name>.build.json names the files and the solver, and its build command (with this
    compiler and the warning flags) makes a shared library the main links to."""
    import json
    import shlex
    fn = cached(("const", True), lambda: constant_qp_function(True))
    entry = fn.name
    module, wrapper, c, b = export(fn, tmp_path)
    manifest = json.loads(module.manifest)
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    assert manifest["module"] == entry
    assert manifest["sources"] == [f"{entry}.c", f"{entry}_solvers.c"]
    assert manifest["include_dirs"] == [paths["include"]]
    assert manifest["library_dirs"] == [libdir]
    assert [s["wrapper"] for s in manifest["solvers"]] == [wrapper]
    assert (manifest["solvers"][0]["backend"], manifest["solvers"][0]["n"],
            manifest["solvers"][0]["p"], manifest["solvers"][0]["m"]) == ("sparse", N, NP, NM)
    command = shlex.split(manifest["build"])
    assert command[0] == "cc"
    run([compiler, *WARNINGS, *command[1:]], tmp_path)
    assert (tmp_path / f"lib{entry}.so").exists()
    exe = str(tmp_path / "qp_main_shared")
    run([compiler, *WARNINGS, f"-I{paths['include']}", "main.c", "-o", exe, f"-L{tmp_path}",
         f"-l{entry}", f"-Wl,-rpath,{tmp_path}", f"-L{libdir}", "-lscaly_qp",
         f"-Wl,-rpath,{libdir}", "-lm"], tmp_path)
    check_report(parse_report(run([exe], tmp_path)), c, b, True)


# -- a Function's _with_options entry and the entry it calls --------------------------------

SAME_NAME = """
import json
import numpy as np, scaly as sc

def make(scale):
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def f(c):
        return sc.qp(scale * np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]
    return f

c = np.array([1.0, -2.0])
f1, f2 = make(1.0), make(2.0)
plain = [f1(c).tolist(), f2(c).tolist()]
with_options = f2(c, options={"eps_abs": 1e-9}).tolist()
f2(c, options={"max_iter": 1, "polish": 0})  # one step, not polished: max_iter
print(json.dumps({"plain": plain, "with_options": with_options,
                  "status": f2.stats()["status"]}))
"""

RECOMPILED = """
import json
import numpy as np, scaly as sc

@sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
def f(c):
    return sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]

c = np.array([1.0, -2.0])
f(c)
f.recompile()
x = f(c, options={"max_iter": 1, "polish": 0}).tolist()  # one step, not polished
print(json.dumps({"x": x, "status": f.stats()["status"]}))
"""

# <entry>_with_options calls <entry>: linked with -Bsymbolic, the call binds inside its own
# library, never to a same-named entry another library brought into the dlmopen namespace.
def test_options_of_a_second_function_with_the_same_name(tmp_path):
    from jitutil import run_snippet
    out = run_snippet(SAME_NAME, tmp_path / "cache")
    np.testing.assert_allclose(out["plain"], [[-1.0, 2.0], [-0.5, 1.0]], atol=1e-6)
    np.testing.assert_allclose(out["with_options"], [-0.5, 1.0], atol=1e-6)
    assert out["status"] == "max_iter"


def test_options_after_recompile(tmp_path):
    from jitutil import run_snippet
    out = run_snippet(RECOMPILED, tmp_path / "cache")
    assert out["status"] == "max_iter"
    assert np.abs(np.array(out["x"]) - [-1.0, 2.0]).max() > 1e-3


def test_two_exported_modules_with_the_same_qp_link_together(tmp_path):
    from scaly.codegen import render_c_module

    def body_a(c):
        return sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]

    def body_b(c):
        return 2.0 * sc.qp(np.eye(2), c, x_l=[-5, -5], x_u=[5, 5])[0]
    fa = named("qp_export_a", [sc.arg("c", 2)], sc.arg("x"), body_a)
    fb = named("qp_export_b", [sc.arg("c", 2)], sc.arg("x"), body_b)
    for f in (fa, fb):
        render_c_module(f).write(str(tmp_path))
    (tmp_path / "main.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "qp_export_a.h"
        #include "qp_export_b.h"
        int main(void) {
          static double w[qp_export_a_SZ_W + qp_export_b_SZ_W + 2];
          double c[2] = {1.0, -2.0}, xa[2], xb[2];
          const double *arg[1] = {c};
          double *ra[1] = {xa}, *rb[1] = {xb};
          int sa = qp_export_a(arg, ra, NULL, w, 0), sb = qp_export_b(arg, rb, NULL, w, 0);
          printf("%d %d %.17g %.17g %.17g %.17g\\n", sa, sb, xa[0], xa[1], xb[0], xb[1]);
          return 0;
        }
        """))
    paths = native_paths()
    libdir = str(Path(paths["scaly_qp"]).parent)
    run(["gcc", *WARNINGS, f"-I{paths['include']}", "main.c", "qp_export_a.c",
         "qp_export_a_solvers.c", "qp_export_b.c", "qp_export_b_solvers.c", "-o", "prog",
         f"-L{libdir}", "-lscaly_qp", f"-Wl,-rpath,{libdir}", "-lm"], tmp_path)
    words = run([str(tmp_path / "prog")], tmp_path).split()
    assert words[:2] == ["0", "0"]
    np.testing.assert_allclose([float(v) for v in words[2:]], [-1.0, 2.0, -2.0, 4.0], atol=1e-6)


def test_webassembly_build_refuses_a_solver_function(tmp_path):
    """The QP library has no wasm32 build: scaly.wasm says so instead of failing to link."""
    from scaly import wasm

    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def wasm_qp(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    with pytest.raises(ValueError, match="reach a solver"):
        wasm.build(wasm_qp, tmp_path)


def test_warm_start_option_in_a_model():
    """options={"warm_start": 1} lets the wrapper start each solve from the previous
    solution: fewer iterations on a sequence of close problems, the same answers."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def warm_qp(c):
        return sc.qp(np.array([[4.0, 1.0], [1.0, 2.0]]), c, A=[[1.0, 1.0]], b=[1.0],
                     x_l=[0.0, 0.0], x_u=[1.0, 1.0])[0]

    cold_iters, warm_iters = [], []
    for k in range(4):
        c = np.array([1.0, 1.0 + 0.01 * k])
        x_cold = warm_qp(c)
        cold_iters.append(warm_qp.stats()["iter"])
        x_warm = warm_qp(c, options={"warm_start": 1})
        warm_iters.append(warm_qp.stats()["iter"])
        reference = solve_qp(np.array([[4.0, 1.0], [1.0, 2.0]]), c, A=[[1.0, 1.0]], b=[1.0],
                             x_l=[0.0, 0.0], x_u=[1.0, 1.0])
        np.testing.assert_allclose(x_cold, reference.x, atol=1e-8)
        np.testing.assert_allclose(x_warm, reference.x, atol=1e-8)
    assert all(w < c for w, c in zip(warm_iters, cold_iters))


INDEXED = """
import json, sys
import numpy as np, scaly as sc
from scaly.runtime import jit
@sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
def indexed(c):
    return sc.qp(np.eye(2), c, x_l=[-5.0, -5.0], x_u=[5.0, 5.0])[0]
x = indexed(np.array([1.0, -2.0])).tolist()
print(json.dumps({"x": x, "counters": jit.counters()}))
"""


def test_a_new_process_reuses_the_solver_library(tmp_path):
    """A second process finds the solver module through the index: nothing is rendered
    or compiled; an index entry made with another solver library is not trusted."""
    import json
    import time
    from jitutil import run_snippet
    cache = tmp_path / "cache"
    first = run_snippet(INDEXED, cache)
    assert first["counters"]["compile"] == 1
    time.sleep(2.1)  # past the two-second rule on freshly written Scaly files
    second = run_snippet(INDEXED, cache)
    np.testing.assert_allclose(second["x"], [-1.0, 2.0], atol=1e-8)
    assert second["counters"]["index_hit"] == 1
    assert second["counters"]["render"] == 0 and second["counters"]["compile"] == 0
    for entry in (cache / "index").glob("*.json"):
        data = json.loads(entry.read_text())
        data["solver_fingerprint"] = "another library"
        entry.write_text(json.dumps(data))
    third = run_snippet(INDEXED, cache)
    np.testing.assert_allclose(third["x"], [-1.0, 2.0], atol=1e-8)
    assert third["counters"]["index_hit"] == 0 and third["counters"]["render"] == 1


def test_derivatives_through_a_qp_solve_are_refused_by_name():
    """No derivative rule for a QP solve yet: jacobian and jacobian_sparsity say so."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def solved(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    for derivative in (sc.jacobian, sc.jacobian_sparsity):
        with pytest.raises(ValueError, match="expr.qp_solve.*not differentiable yet"):
            derivative(solved)
    # A gradient is built at its first call: the same words then, without a dump
    # of the op's generic form.
    @sc.function(sc.arg("c", 2), outputs=sc.arg("s"))
    def total(c):
        return solved(c).sum()
    with pytest.raises(RuntimeError, match="expr.qp_solve' op is not differentiable yet") as info:
        sc.gradient(total)(np.ones(2))
    assert "see current operation" not in str(info.value)


def test_threads_share_a_solver_function_safely():
    """The wrapper's statics are behind one lock: a thread calling with options and a
    thread calling plainly (and large calls, which release the GIL) never see each
    other's options, data or solver state."""
    import threading
    n = 9000  # above the size at which calls release the GIL
    P = sc_eye_sparse(n)

    @sc.function(sc.arg("c", n), outputs=sc.arg("x"))
    def threaded(c):
        return sc.qp(P, c, x_l=-np.ones(n), x_u=np.ones(n))[0]

    cs = [np.linspace(-2, 2, n), np.linspace(2, -2, n)]
    expected = [np.clip(-c, -1, 1) for c in cs]
    threaded(cs[0])
    wrong = []

    def run(k, options):
        for _ in range(40):
            x = threaded(cs[k], options=options) if options else threaded(cs[k])
            if options is None and not np.allclose(x, expected[k], atol=1e-6):
                wrong.append(k)

    threads = [threading.Thread(target=run, args=(0, None)),
               threading.Thread(target=run, args=(1, None)),
               threading.Thread(target=run, args=(0, {"max_iter": 1}))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def sc_eye_sparse(n):
    import scipy.sparse as sp
    return sp.identity(n, format="csc")


def test_setup_options_are_refused_per_call():
    """The equilibration options act at setup: passed per call they are refused, by name."""
    @sc.function(sc.arg("c", 2), outputs=sc.arg("x"))
    def setup_only(c):
        return sc.qp(np.eye(2), c, x_l=[-1.0, -1.0], x_u=[1.0, 1.0])[0]

    with pytest.raises(ValueError, match="preconditioner_iter.*set up"):
        setup_only(np.ones(2), options={"preconditioner_iter": 0})


def test_a_stale_dependency_list_is_asked_again(tmp_path, monkeypatch):
    """A dependency ldd once listed and an upgrade removed: the fingerprint asks ldd
    again and rewrites the kept list (it once recursed without end)."""
    import hashlib
    import json
    from pathlib import Path
    from scaly.runtime import solver_link
    monkeypatch.setenv("SCALY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(solver_link, "_FINGERPRINT", None)
    monkeypatch.setattr(solver_link, "_DEPENDENCY_CACHE", {})
    lib = Path(native_paths()["scaly_qp"])
    st = lib.stat()
    stamp = f"{lib.resolve()} {st.st_size} {st.st_mtime_ns}"
    kept = tmp_path / "solvers" / (hashlib.sha256(stamp.encode()).hexdigest()[:32] + ".json")
    kept.parent.mkdir(parents=True)
    deps = solver_link._dependencies(lib)
    kept.write_text(json.dumps({"stamp": stamp, "deps": deps + ["/nonexistent/libgone.so.1"]}))
    fingerprint = solver_link.solver_fingerprint()
    assert len(fingerprint) == 64
    assert json.loads(kept.read_text())["deps"] == deps
