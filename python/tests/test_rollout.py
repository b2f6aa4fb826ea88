"""The rollout module of seed 000, end to end: layout, compilers, numbers, status codes."""

import subprocess

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver


def make_rollout(block=True):
    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z: sc.Expr, u: sc.Expr) -> sc.Expr:
        out = sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()])
        return out.block() if block else out

    @sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=sc.arg("zn"))
    def rollout(zs: sc.Expr, us: sc.Expr) -> sc.Expr:
        return sc.vmap(euler, 10)(zs.reshape((10, 2)), us).vec()

    return rollout


def numpy_rollout(zs, us):
    z = zs.reshape(10, 2)
    return np.stack([z[:, 0] + 0.1 * z[:, 1], z[:, 1] + 0.1 * np.sin(us)], axis=1).ravel()


def test_module_layout_follows_the_seed():
    src = render_c_module(make_rollout(), lanes=1).source
    lines = src.splitlines()
    assert lines[0] == "/* Scaly build recipe"
    order = ['#include "rollout.h"', "#include <math.h>",
             "typedef double double2 __attribute__((vector_size(16), aligned(8), may_alias));",
             "#define SCALY_SUCCESS 0", "#define SCALY_ERR_NULL_ABI 1",
             "#define SCALY_ERR_NULL_WORK 2", "#define SCALY_ERR_NULL_RESULT 3",
             "#define SCALY_ERR_NULL_INPUT 4", 'extern "C" {',
             "static inline void euler_raw(const double* z, const double* u, double* znext, double* w) {",
             "int rollout(const double** arg, double** res, int* iw, double* w, int mem) {"]
    positions = [src.index(s) for s in order]
    assert positions == sorted(positions)
    body = src[src.index("int rollout("):]
    assert "for (long long it_zn = 0; it_zn < 10; ++it_zn) {" in body
    assert "euler_raw(" in body.split("for (")[1]
    assert "if (!arg || !res) return SCALY_ERR_NULL_ABI;" in body
    assert "SCALY_ERR_NULL_WORK;" not in body  # no workspace: the check is absent
    assert src.rstrip().endswith("#ifdef __cplusplus\n}\n#endif")


def test_without_block_euler_is_expanded():
    src = render_c_module(make_rollout(block=False)).source
    assert "_raw" not in src
    assert "for (long long it_zn = 0; it_zn < 10; ++it_zn)" in src
    assert "sin(" in src


def test_header_declares_entry_and_sizes():
    header = render_c_module(make_rollout()).header
    assert "int rollout(const double** arg, double** res, int* iw, double* w, int mem);" in header
    for macro, value in [("SZ_ARG", 2), ("SZ_RES", 1), ("SZ_IW", 0), ("SZ_W", 0)]:
        assert f"#define rollout_{macro} {value}\n" in header
    assert header.startswith("/* Scaly build recipe")


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
@pytest.mark.parametrize("block", [True, False])
def test_matches_numpy(workdir, compiler, block):
    fn = make_rollout(block)
    built = cdriver.build(fn, workdir, compiler=compiler)
    rng = np.random.default_rng(7)
    zs, us = rng.normal(size=20), rng.normal(size=10)
    (zn,) = built.run(zs, us)
    np.testing.assert_allclose(zn, numpy_rollout(zs, us), rtol=1e-15, atol=0)


@pytest.mark.parametrize("case,expected", [
    ("rollout(NULL, res, NULL, w, 0)", 1),
    ("rollout(arg, NULL, NULL, w, 0)", 1),
    ("rollout(arg_null_input, res, NULL, w, 0)", 4),
    ("rollout(arg, res_null_output, NULL, w, 0)", 3),
    ("rollout(arg, res, NULL, NULL, 0)", 0),  # SZ_W == 0: w may be null
])
def test_status_codes(workdir, case, expected):
    render_c_module(make_rollout()).write(workdir)
    drv = f"""
#include <stddef.h>
#include "rollout.h"
int main(void) {{
  double zs[20] = {{0}}, us[10] = {{0}}, zn[20], wbuf[1];
  const double* arg[2] = {{zs, us}};
  const double* arg_null_input[2] = {{zs, NULL}};
  double* res[1] = {{zn}};
  double* res_null_output[1] = {{NULL}};
  double* w = wbuf;
  (void)arg; (void)arg_null_input; (void)res; (void)res_null_output; (void)w;
  return {case};
}}
"""
    with open(f"{workdir}/drv.c", "w") as f:
        f.write(drv)
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", f"{workdir}/drv",
                    f"{workdir}/drv.c", f"{workdir}/rollout.c", "-lm"], check=True)
    assert subprocess.run([f"{workdir}/drv"]).returncode == expected
