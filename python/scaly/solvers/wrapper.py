"""The C of a module's solver wrappers: one translation unit beside the module's source.

For each QP the module calls, the wrapper holds the solver's index tables, a
solver object kept between calls (set up on the first, updated after), the
statistics of the latest solve and the option values set with the option
setter. It exports, per wrapper ``<w>``:

* ``void <w>(...)``: the solve the module's body calls (hidden: only the
  module calls it);
* ``void <w>_stats(scaly_solver_stats *)``: the latest statistics;
* ``int <w>_set_option(const char *name, double value)``: a default for later
  calls (0, or -1 for an unknown name or a bad value);

and, per module, ``<entry>_with_options``: the five arguments of the entry and
a sixth, ``const double *const *options``: for wrapper k, ``options[k]`` is
NULL (the defaults) or an array of ``scaly_qp_option_count()`` values in the
order of ``scaly_qp_option_name``, NaN meaning "keep the default". The arrays
are read during the call only.
"""

import re

import numpy as np

from .model import spec

SETUP_OPTIONS = frozenset({"preconditioner_iter", "preconditioner_scale_cost"})
"""Options that act when a solver is set up (its equilibration), so not per call."""

WRAPPER_NAME = re.compile(r"\b(scaly_qp_[0-9a-f]{16})\(")


def wrappers_called(source: str) -> list:
    """Names of the solver wrappers a rendered module calls, in first-call order."""
    seen = []
    for name in WRAPPER_NAME.findall(source):
        if name not in seen:
            seen.append(name)
    return seen


def _table(ctype, name, values):
    values = [int(v) for v in values] or [0]  # C has no zero-length arrays
    body = ", ".join(str(v) for v in values)
    return f"static const {ctype} {name}[{len(values)}] = {{{body}}};\n"


def _one_wrapper(s) -> str:
    w = s.name
    backend = "SCALY_QP_DENSE" if s.dense else "SCALY_QP_SPARSE"
    out = [f"/* {w}: QP with n = {s.n}, p = {s.p}, m = {s.m}, "
           f"{'dense' if s.dense else 'sparse'} backend */\n"]
    for mat in ("P", "A", "G"):
        colptr, rowind = getattr(s, mat)
        out.append(_table("int32_t", f"{w}_{mat}_colptr", colptr))
        out.append(_table("int32_t", f"{w}_{mat}_rowind", rowind))
    out.append(f"""static scaly_qp_solver *{w}_solver;
static scaly_solver_stats {w}_last;
static scaly_qp_settings {w}_defaults;
static int {w}_defaults_ready;
static const double *{w}_call_options;

static void {w}_ready(void) {{
  if (!{w}_defaults_ready) {{
    scaly_qp_default_settings(&{w}_defaults);
    {w}_defaults_ready = 1;
  }}
}}

int {w}_set_option(const char *name, double value) {{
  int status;
  pthread_mutex_lock(&scaly_solvers_lock);
  {w}_ready();
  status = scaly_qp_set_option(&{w}_defaults, name, value, NULL, 0);
  pthread_mutex_unlock(&scaly_solvers_lock);
  return status;
}}

void {w}_stats(scaly_solver_stats *out) {{
  pthread_mutex_lock(&scaly_solvers_lock);
  if (out) *out = {w}_last;
  pthread_mutex_unlock(&scaly_solvers_lock);
}}

SCALY_WRAPPER_HIDDEN void {w}(const double *P, const double *c, const double *A, const double *b,
    const double *G, const double *h_l, const double *h_u, const double *x_l, const double *x_u,
    double *x, double *y, double *z, double *z_box) {{
  double start;
  pthread_mutex_lock(&scaly_solvers_lock);
  start = scaly_wrapper_now();
  {{
  scaly_qp_data data = {{{s.n}, {s.p}, {s.m},
      {{{s.n}, {s.n}, {w}_P_colptr, {w}_P_rowind, P}}, c,
      {{{s.p}, {s.n}, {w}_A_colptr, {w}_A_rowind, A}}, b,
      {{{s.m}, {s.n}, {w}_G_colptr, {w}_G_rowind, G}}, h_l, h_u, x_l, x_u}};
  scaly_qp_settings settings;
  int ok = 1;
  {w}_ready();
  settings = {w}_defaults;
  if ({w}_call_options) {{
    int k;
    for (k = 0; k < scaly_qp_option_count(); ++k)
      if (!isnan({w}_call_options[k]) &&
          scaly_qp_set_option(&settings, scaly_qp_option_name(k), {w}_call_options[k], NULL, 0))
        ok = 0;
  }}
  if (ok && !{w}_solver)
    ok = ({w}_solver = scaly_qp_setup(&data, {backend}, &settings, NULL, 0)) != NULL;
  else if (ok)
    ok = scaly_qp_update_settings({w}_solver, &settings, NULL, 0) == 0 &&
         scaly_qp_update({w}_solver, &data, NULL, 0) == 0;
  if (ok) {{
    scaly_qp_solve({w}_solver, NULL, NULL, NULL, NULL);
    scaly_qp_solution({w}_solver, x, y, z, z_box);
    scaly_qp_get_stats({w}_solver, &{w}_last);
  }} else {{
    /* Bad data (NaN, a non-convex P) or options: NaN results, status ERROR. */
    int i;
    for (i = 0; i < {s.n}; ++i) x[i] = z_box[i] = NAN;
    for (i = 0; i < {s.p}; ++i) y[i] = NAN;
    for (i = 0; i < {s.m}; ++i) z[i] = NAN;
    memset(&{w}_last, 0, sizeof {w}_last);
    {w}_last.version = SCALY_SOLVER_STATS_VERSION;
    {w}_last.status = SCALY_SOLVE_ERROR;
    {w}_last.native_status = SCALY_QP_INVALID_DATA;
  }}
  /* The data were computed by the host body before this call: t_fe stays 0
     and everything outside the QP library is glue. */
  {w}_last.t_total = scaly_wrapper_now() - start;
  {w}_last.t_glue = {w}_last.t_total - {w}_last.t_qp;
  }}
  pthread_mutex_unlock(&scaly_solvers_lock);
}}
""")
    return "".join(out)


def module_wrapper_names(module_name: str, names: list) -> dict:
    """The C names a module gives the wrappers it calls: `<module>_qp<k>` in call
    order, so that two modules linked into one program never share a symbol
    (tracing names a wrapper by a digest of its structure)."""
    return {n: f"{module_name}_qp{k}" for k, n in enumerate(names)}


def rename_wrappers(source: str, renames: dict) -> str:
    """`source` with every traced wrapper name replaced by its module name."""
    return WRAPPER_NAME.sub(lambda m: renames.get(m.group(1), m.group(1)) + "(", source)


def render_wrappers(entries, names: list, renames=None) -> str:
    """The wrapper translation unit of a module: `entries` lists its exported
    entries as (C name, C parameter list) pairs (one `_with_options` entry each),
    `names` the (traced) wrappers its body calls, `renames` their C names in
    this module (default: unchanged)."""
    from dataclasses import replace
    renames = renames or {}
    specs = [replace(spec(n), name=renames.get(n, n)) for n in names]
    first = entries[0][0]
    parts = [f"""/* Scaly solver wrappers of {first}: compiled as their own translation unit
 * and linked with the module to the QP library (see {first}.build.json):
 *   cc -O2 -fPIC -shared {first}.c {first}_solvers.c -I<include> -L<lib> -lscaly_qp -lm
 */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "scaly_qp.h"

#define SCALY_WRAPPER_HIDDEN __attribute__((visibility("hidden")))

/* Each wrapper keeps its solver, statistics and call options in statics: one
 * lock serializes the module's solves (recursive: _with_options holds it
 * around the entry, whose body takes it again per solve). */
static pthread_mutex_t scaly_solvers_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static double scaly_wrapper_now(void) {{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}}

"""]
    for s in specs:
        parts.append(_one_wrapper(s))
        parts.append("\n")
    sets = "".join(f"  {s.name}_call_options = options ? options[{k}] : NULL;\n"
                   for k, s in enumerate(specs))
    resets = "".join(f"  {s.name}_call_options = NULL;\n" for s in specs)
    for entry, params in entries:
        args = ", ".join(p.strip().split()[-1].lstrip("*") for p in params.split(","))
        parts.append(f"""int {entry}({params});

/* {entry} with call-time options: options[k] for the k-th wrapper above. */
int {entry}_with_options({params}, const double *const *options) {{
  int status;
  pthread_mutex_lock(&scaly_solvers_lock);
{sets}  status = {entry}({args});
{resets}  pthread_mutex_unlock(&scaly_solvers_lock);
  return status;
}}

""")
    return "".join(parts)


def build_manifest(module_name: str, names: list, include_dir: str, library: str,
                   renames=None) -> dict:
    """The build manifest of a module that reaches solvers: its files, its solvers
    and the commands that build it into a shared library."""
    import os
    libdir = os.path.dirname(library)
    return {
        "module": module_name,
        "sources": [f"{module_name}.c", f"{module_name}_solvers.c"],
        "headers": [f"{module_name}.h", "scaly_qp.h", "scaly_solver_stats.h"],
        "solvers": [{"wrapper": (renames or {}).get(s.name, s.name), "kind": "qp",
                     "backend": "dense" if s.dense else "sparse", "n": s.n, "p": s.p, "m": s.m,
                     "exports": [f"{(renames or {}).get(s.name, s.name)}_stats",
                                 f"{(renames or {}).get(s.name, s.name)}_set_option"]}
                    for s in (spec(n) for n in names)],
        "include_dirs": [include_dir],
        "library_dirs": [libdir],
        "libraries": ["scaly_qp", "m"],
        "build": (f"cc -O3 -fno-math-errno -fPIC -shared -o lib{module_name}.so "
                  f"{module_name}.c {module_name}_solvers.c -I{include_dir} -L{libdir} "
                  f"-lscaly_qp -Wl,-rpath,{libdir} -Wl,-Bsymbolic -lm"),
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
