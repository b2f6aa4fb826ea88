"""Helpers for JIT tests: run Python snippets in fresh processes with a given cache."""

import json
import os
import subprocess
import textwrap

PYTHON = "/usr/bin/python3"
PACKAGE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

ENERGY = """
import scaly as sc
@sc.function(sc.L("x", 3), sc.L("energy", ...))
def energy(x):
    return sc.sumsqr(x)
"""


def run_snippet(code, cache, env_extra=None, pythonpath=PACKAGE_DIR, check=True):
    """Run `code` in a new process with SCALY_CACHE_DIR=cache; returns the JSON it prints last."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    # These snippets test the graph index and the ordinary path; test_startup.py
    # tests the trace-free index (on by default) in processes of its own.
    env.update({"SCALY_CACHE_DIR": str(cache), "PYTHONPATH": pythonpath,
                "SCALY_TRACE_FREE": "0"})
    env.update(env_extra or {})
    proc = subprocess.run([PYTHON, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"snippet failed ({proc.returncode}):\n{proc.stderr}")
    if not check:
        return proc
    return json.loads(proc.stdout.strip().splitlines()[-1])


def key_dirs(cache):
    """The per-key directories of a cache root."""
    return sorted(p for p in os.listdir(cache) if p not in ("index", "compilers"))


def temporaries(cache):
    return [os.path.join(d, f) for d, _, files in os.walk(cache) for f in files if ".tmp." in f]
