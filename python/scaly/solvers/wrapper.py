"""The C of a module's solver wrappers: one translation unit beside the module's source.

The unit is described here (its wrappers' names, sizes and index tables, the
module's entries and their parameters; an NLP's by ``nlp_wrapper.describe``)
and built as EmitC and cdecl ops by lib/Codegen/SolverWrappers.cpp and
NlpWrappers.cpp, then printed by the one C printer like the model: its
prologue (includes, the lock, the clock), its QP and NLP wrappers and the
``_with_options`` entries. An NLP's oracles, a normal render, follow it
(``nlp_wrapper.render_oracles``). For each QP the module calls, the
wrapper holds the solver's index tables, a solver object kept between calls
(set up on the first, updated after), the statistics of the latest solve and
the option values set with the option setter. It exports, per wrapper ``<w>``:

* ``void <w>(...)``: the solve the module's body calls (hidden: only the
  module calls it);
* ``void <w>_stats(scaly_solver_stats *)``: the latest statistics;
* ``int <w>_set_option(const char *name, double value)``: a default for later
  calls (0, or -1 for an unknown name or a bad value);

and, per module, ``<entry>_with_options``: the five arguments of the entry and
a sixth, ``const double *const *options``: for wrapper k, ``options[k]`` is
NULL (the defaults) or an array of ``scaly_qp_option_count()`` values in the
order of ``scaly_qp_option_name``, NaN meaning "keep the default". The arrays
are read during the call only (for an NLP wrapper, an array of its backend's
``scaly_nlp_option_count`` values).
"""

import numpy as np

from .model import spec as qp_spec

SETUP_OPTIONS = frozenset({"preconditioner_iter", "preconditioner_scale_cost"})
"""Options that act when a solver is set up (its equilibration), so not per call."""


def is_nlp(name: str) -> bool:
    """Whether the traced wrapper `name` solves an NLP (else a QP)."""
    return name.startswith("scaly_nlp_")


def spec(name):
    """The spec (QPSpec or NLPSpec) of the traced wrapper `name`."""
    if is_nlp(name):
        from .nlp_model import spec as nlp_spec
        return nlp_spec(name)
    return qp_spec(name)


def _description(s):
    """What the C++ builder needs of QP wrapper `s` (a spec named as in this module)."""
    tables = [getattr(s, mat) for mat in ("P", "A", "G")]
    return {"name": s.name, "nlp": False, "n": int(s.n), "p": int(s.p), "m": int(s.m),
            "dense": bool(s.dense), "colptr": [[int(v) for v in t[0]] for t in tables],
            "rowind": [[int(v) for v in t[1]] for t in tables]}


def render_wrappers(entries, names: list, renames=None, recipe=None) -> str:
    """The wrapper translation unit of a module: `entries` lists its exported
    entries as (C name, its parameters as (C type, name) pairs) pairs (one
    `_with_options` entry each),
    `names` the (traced) wrappers its body calls, `renames` their C names in
    this module (default: unchanged), `recipe` the render options NLP oracles
    are rendered with (the module's).

    The unit is built as EmitC by the C++ side (lib/Codegen/SolverWrappers.cpp,
    NlpWrappers.cpp) and printed by the C printer; the NLP oracles, a normal
    render (nlp_wrapper.render_oracles), follow it."""
    from dataclasses import replace
    from .. import _scaly
    from .nlp_wrapper import describe, render_oracles
    renames = renames or {}
    specs = [replace(spec(n), name=renames.get(n, n)) for n in names]
    first = entries[0][0]
    nlps = [(n, s) for n, s in zip(names, specs) if is_nlp(n)]
    oracles, workspace = render_oracles(nlps, first, recipe or {}) if nlps else ("", {})
    text = _scaly.render_solver_wrappers({
        "module": first,
        "wrappers": [describe(s, n, workspace) if is_nlp(n) else _description(s)
                     for n, s in zip(names, specs)],
        "entries": [(entry, list(params)) for entry, params in entries]})
    return text + oracles


def _manifest_entry(s, name):
    exports = [f"{name}_stats", f"{name}_set_option"]
    if getattr(s, "kind", "qp") == "nlp":
        return {"wrapper": name, "kind": "nlp", "backend": s.solver,
                **({"qp": s.qp} if s.solver == "sqp" else {}), "n": s.n, "m": s.m,
                "exports": exports + [f"{name}_set_ipopt_option", f"{name}_kind"]}
    return {"wrapper": name, "kind": "qp", "backend": "dense" if s.dense else "sparse",
            "n": s.n, "p": s.p, "m": s.m, "exports": exports}


def build_manifest(module_name: str, names: list, include_dir: str, library: str,
                   renames=None) -> dict:
    """The build manifest of a module that reaches solvers: its files, its solvers
    and the commands that build it into a shared library."""
    import os
    libdir = os.path.dirname(library)
    nlp = any(is_nlp(n) for n in names)
    libraries = (["scaly_nlp"] if nlp else []) + ["scaly_qp", "m"]
    return {
        "module": module_name,
        "sources": [f"{module_name}.c", f"{module_name}_solvers.c"],
        "headers": [f"{module_name}.h", "scaly_qp.h"] + (["scaly_nlp.h"] if nlp else []) +
                   ["scaly_solver_stats.h"],
        "solvers": [_manifest_entry(spec(n), (renames or {}).get(n, n)) for n in names],
        "include_dirs": [include_dir],
        "library_dirs": [libdir],
        "libraries": libraries,
        "build": (f"cc -O3 -fno-math-errno -fPIC -shared -o lib{module_name}.so "
                  f"{module_name}.c {module_name}_solvers.c -I{include_dir} -L{libdir} "
                  f"{' '.join('-l' + lib for lib in libraries[:-1])} -Wl,-rpath,{libdir} "
                  "-Wl,-Bsymbolic -lm"),
    }


def option_array(options: dict) -> np.ndarray:
    """A call-time option array for one QP wrapper: NaN where `options` says nothing.
    Names, types and values are checked (ValueError/TypeError naming the option)."""
    from .qp import make_settings, option_names
    make_settings(options)  # checks names, types and ranges
    fixed = sorted(set(options or {}) & SETUP_OPTIONS)
    if fixed:
        raise ValueError(f"QP option {fixed[0]!r} applies when the solver is set up (the "
                         "equilibration), not per call; set it with the wrapper's "
                         "<w>_set_option before the first call")
    names = option_names()
    values = np.full(len(names), np.nan)
    for k, name in enumerate(names):
        if name in (options or {}):
            values[k] = float(options[name])
    return values
