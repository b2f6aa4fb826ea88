"""The NLP part of a module's solver wrapper unit: its oracles and its description.

Per NLP ``<w>`` the wrapper unit holds its oracles (rendered from the traced
f, g and their derivatives, hidden in the library), their index tables, the
NLP library's problem description over them, and exports:

* ``void <w>(x0, p, lbx, ubx, lbg, ubg, lam_g0, lam_x0, x, lam_g, lam_x)``:
  the solve the module's body calls (hidden);
* ``void <w>_stats(scaly_solver_stats *)``, ``int <w>_set_option(name, value)``
  (the backend's option table; a choice by its index);
* ``int <w>_set_ipopt_option(const char *name, const char *value)``: any IPOPT
  option as text (IPOPT backend only; -1 otherwise);
* ``const char *<w>_kind(void)``: "ipopt" or "sqp".

``describe`` says what lib/Codegen/NlpWrappers.cpp builds the wrapper from
(as EmitC, printed by the C printer); ``render_oracles`` renders the oracles
with the normal renderer, their text following the built part of the unit.
"""

from .nlp_model import spec as nlp_spec
from .nlp_options import nlp_option_names


def oracle_names(s, traced_name):
    """The C names of NLP wrapper `s`'s oracles (f, g, grad_f, jac_g, hess_l; "" for none):
    traced under `traced_name`'s digest (scalynlp_<digest>_oracle_f: an entry may not start
    with scaly_), named after the wrapper's C name `s.name`."""
    prefix = traced_name.replace("scaly_nlp_", "scalynlp_")
    return [fn.name.replace(prefix, s.name) if fn is not None else "" for fn in s.functions]


def render_oracles(nlps, module_name, recipe):
    """One C module with the oracles of every NLP in `nlps`, (traced name, spec named as
    in this module) pairs, so that helpers they share are defined once: (C text for the
    wrapper unit, {oracle's C name: workspace bytes})."""
    from .. import _scaly
    functions, names = [], {}
    for traced, s in nlps:
        for fn, name in zip(s.functions, oracle_names(s, traced)):
            if fn is not None:
                functions.append(fn)
                names[fn.name] = name
    # Hidden: the declaration's visibility carries to the definition. (A
    # visibility pragma around the code would also hide the libm and libmvec
    # functions it calls, which the library must import.) The header's text
    # comes right before the source, which does not include it.
    options = dict(recipe, name=f"{module_name}_oracles", record_stages=False, casadi=False,
                   sparse_tables=False, lang="c", entry_specifier="SCALY_WRAPPER_HIDDEN",
                   include_header=False, entry_names=names)
    out = _scaly.render([fn._traced for fn in functions], options)
    text = ("/* The NLP oracles, rendered from the traced f and g and their derivatives;\n"
            " * hidden: only the wrappers above call them. */\n" + out["header"] + out["source"]
            + "\n")
    workspace = {e["name"]: int(e["workspace_bytes"]) for e in out["entries"]}
    return text, workspace


def describe(s, traced_name, workspace):
    """What the C++ builder needs of NLP wrapper `s` (a spec named as in this module);
    `traced_name` is the name its oracles were traced under, `workspace` their
    workspaces in bytes by C name."""
    names = nlp_option_names(s.solver)
    oracles = oracle_names(s, traced_name)
    return {
        "name": s.name, "nlp": True, "n": int(s.n), "m": int(s.m), "solver": s.solver,
        "dense_qp": s.qp == "dense", "option_count": len(names),
        "trace_options": [(names.index(k), float(v)) for k, v in s.options.items()
                          if not isinstance(v, str)],
        "ipopt_options": [(k, v) for k, v in s.options.items() if isinstance(v, str)],
        "oracles": oracles,
        "workspace_bytes": max([workspace.get(name, 0) for name in oracles if name] + [0]),
        "hess_full": int(s.functions[4].outputs[0][1][0]),
        "jac_colptr": [int(v) for v in s.jac[0]], "jac_rowind": [int(v) for v in s.jac[1]],
        "hess_colptr": [int(v) for v in s.hess[0]],
        "hess_rowind": [int(v) for v in s.hess[1]],
        "hess_pick": [int(v) for v in s.hess_pick],
    }


def nlp_spec_renamed(name, new_name):
    """The spec traced as `name`, carrying the module's name for it."""
    from dataclasses import replace
    return replace(nlp_spec(name), name=new_name)
