"""Author the rollout model of seed 000, export its C module, call it through the JIT.

    PYTHONPATH=python /usr/bin/python3 examples/rollout.py [output-dir]
"""

import os
import sys
import tempfile

import numpy as np

import scaly as sc
from scaly.codegen import render_c_module


# One Euler step of a damped oscillator-like system. .block() keeps euler as
# its own C procedure (euler_raw), called from the rollout loop.
@sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
def euler(z: sc.Expr, u: sc.Expr) -> sc.Expr:
    return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()


# Ten independent steps: vmap lowers to one loop, not ten copies.
@sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=sc.arg("zn"))
def rollout(zs: sc.Expr, us: sc.Expr) -> sc.Expr:
    return sc.vmap(euler, 10)(zs.reshape((10, 2)), us).vec()


def main():
    module = render_c_module(rollout, lanes=1)
    print(module.source)

    out_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="scaly-rollout-")
    c_path, h_path = module.write(out_dir)
    print(f"wrote {c_path} and {h_path}")

    rng = np.random.default_rng(0)
    zs = rng.normal(size=20)
    us = rng.normal(size=10)
    zn = rollout(zs, us)  # compiles on first call (in-process Clang + ORC), then cached

    z = zs.reshape(10, 2)
    reference = np.stack([z[:, 0] + 0.1 * z[:, 1], z[:, 1] + 0.1 * np.sin(us)], axis=1).ravel()
    print(f"{'i':>3} {'scaly':>22} {'numpy':>22}")
    for i, (a, b) in enumerate(zip(zn, reference)):
        print(f"{i:>3} {a:>22.17g} {b:>22.17g}")
    err = np.max(np.abs(zn - reference) / np.maximum(np.abs(reference), 1e-300))
    print(f"max relative difference: {err:.3g}")
    if err > 1e-15:
        sys.exit("scaly and numpy disagree")
    print(f"cache: {os.environ.get('SCALY_CACHE_DIR') or '~/.cache/scaly'}")


if __name__ == "__main__":
    main()
