"""The C of NLP solver wrappers (the wrapper translation unit's NLP part).

Still C text: it follows the part lib/Codegen/SolverWrappers.cpp builds as
EmitC (the prologue with the lock and ``scaly_wrapper_now``, the QP wrappers,
``_with_options``, and each NLP wrapper's ``<w>_call_options`` static, which
``_with_options`` sets and the solve below reads).

Per NLP ``<w>`` the wrapper source holds its oracles (rendered from the
traced f, g and their derivatives, hidden in the library), their index
tables, the NLP library's problem description over them, and exports:

* ``void <w>(x0, p, lbx, ubx, lbg, ubg, lam_g0, lam_x0, x, lam_g, lam_x)``:
  the solve the module's body calls (hidden);
* ``void <w>_stats(scaly_solver_stats *)``, ``int <w>_set_option(name, value)``
  (the backend's option table; a choice by its index);
* ``int <w>_set_ipopt_option(const char *name, const char *value)``: any IPOPT
  option as text (IPOPT backend only; -1 otherwise);
* ``const char *<w>_kind(void)``: "ipopt" or "sqp".
"""

from .nlp_model import spec as nlp_spec
from .nlp_options import BACKEND_CODES, nlp_option_names
from .wrapper import stats_accessor


def _table(ctype, name, values):
    values = [int(v) for v in values] or [0]
    return f"static const {ctype} {name}[{len(values)}] = {{{', '.join(map(str, values))}}};\n"


def render_oracles(specs, module_name, recipe):
    """One C module with the oracles of every NLP in `specs` (so that helpers
    they share are defined once): (C text for the wrapper unit, {entry: workspace bytes})."""
    from .. import _scaly
    functions = [fn for s in specs for fn in s.functions if fn is not None]
    # Hidden: the declaration's visibility carries to the definition. (A
    # visibility pragma around the code would also hide the libm and libmvec
    # functions it calls, which the library must import.) The header's text
    # comes right before the source, which does not include it.
    options = dict(recipe, name=f"{module_name}_oracles", record_stages=False, casadi=False,
                   sparse_tables=False, lang="c", entry_specifier="SCALY_WRAPPER_HIDDEN",
                   include_header=False)
    out = _scaly.render([fn._traced for fn in functions], options)
    text = ("/* The NLP oracles, rendered from the traced f and g and their derivatives;\n"
            " * hidden: only the wrappers below call them. */\n" + out["header"] + out["source"]
            + "\n")
    workspace = {e["name"]: int(e["workspace_bytes"]) for e in out["entries"]}
    return text, workspace


def _call(entry, args, result, w):
    return (f"  const double *arg[{len(args)}] = {{{', '.join(args)}}};\n"
            f"  double *res[1] = {{{result}}};\n"
            f"  return {entry}(arg, res, NULL, {w}_work, 0);\n")


def render_nlp_wrapper(s, traced_name, workspace):
    """The C of NLP wrapper `s` (a spec named as in this module); `traced_name` is
    the name its oracles were traced under (renamed with it in the final text)."""
    w = s.name
    prefix = traced_name.replace("scaly_nlp_", "scalynlp_")
    F, G, grad, jac, hess = (fn.name.replace(prefix, w) if fn is not None else None
                             for fn in s.functions)
    backend = BACKEND_CODES[s.solver]
    count = len(nlp_option_names(s.solver))
    qp_backend = "SCALY_QP_DENSE" if s.qp == "dense" else "SCALY_QP_SPARSE"
    words = max([workspace.get(fn.name, 0) for fn in s.functions if fn is not None] + [8])
    nnz_full = int(s.functions[4].outputs[0][1][0])
    out = [f"/* {w}: NLP with n = {s.n}, m = {s.m}, {s.solver}"
           f"{' (' + s.qp + ' QPs)' if s.solver == 'sqp' else ''} */\n"]
    out.append(_table("int32_t", f"{w}_jac_colptr", s.jac[0]))
    out.append(_table("int32_t", f"{w}_jac_rowind", s.jac[1]))
    out.append(_table("int32_t", f"{w}_hess_colptr", s.hess[0]))
    out.append(_table("int32_t", f"{w}_hess_rowind", s.hess[1]))
    out.append(_table("int32_t", f"{w}_hess_pick", s.hess_pick))
    trace_options = "".join(
        f"    {w}_defaults[{nlp_option_names(s.solver).index(k)}] = {v!r};\n"
        for k, v in s.options.items() if not isinstance(v, str))
    ipopt_strings = "".join(
        f'    scaly_nlp_set_ipopt_option({w}_solver, "{k}", "{v}");\n'
        for k, v in s.options.items() if isinstance(v, str))
    g_body = _call(G, ["x", f"{w}_p"], "g", w) if G else "  (void)x; (void)g;\n  return 0;\n"
    jac_body = (_call(jac, ["x", f"{w}_p"], "values", w) if jac else
                "  (void)x; (void)values;\n  return 0;\n")
    lam = "lam" if s.m else f"{w}_zero"
    out.append(f"""static double {w}_work[{(words + 7) // 8 + 1}];
static double {w}_hess_full[{max(nnz_full, 1)}];
static const double {w}_zero[1];
static const double *{w}_p;
static scaly_nlp_solver *{w}_solver;
static scaly_solver_stats {w}_last;
static double {w}_defaults[{count}];

static int {w}_f(void *context, const double *x, double *f) {{
  (void)context;
{_call(F, ["x", f"{w}_p"], "f", w)}}}

static int {w}_grad_f(void *context, const double *x, double *grad) {{
  (void)context;
{_call(grad, ["x", f"{w}_p"], "grad", w)}}}

static int {w}_g(void *context, const double *x, double *g) {{
  (void)context;
{g_body}}}

static int {w}_jac_g(void *context, const double *x, double *values) {{
  (void)context;
{jac_body}}}

static int {w}_hess_l(void *context, const double *x, double sigma, const double *lam,
                      double *values) {{
  const double *arg[4] = {{x, {w}_p, &sigma, {lam}}};
  double *res[1] = {{{w}_hess_full}};
  int k, status;
  (void)context;
  (void)lam;
  status = {hess}(arg, res, NULL, {w}_work, 0);
  for (k = 0; k < {len(s.hess_pick)}; ++k)
    values[k] = {w}_hess_full[{w}_hess_pick[k]];
  return status;
}}

/* Creates the solver once: the problem's patterns and oracles, and the
 * defaults fixed when tracing. */
static void {w}_ready(void) {{
  if (!{w}_solver) {{
    scaly_nlp_problem problem = {{{s.n}, {s.m}, {len(s.jac[1])}, {w}_jac_colptr, {w}_jac_rowind,
        {len(s.hess[1])}, {w}_hess_colptr, {w}_hess_rowind, NULL,
        {w}_f, {w}_grad_f, {w}_g, {w}_jac_g, {w}_hess_l}};
    int k;
    for (k = 0; k < {count}; ++k)
      {w}_defaults[k] = NAN;
{trace_options}    {w}_solver = scaly_nlp_create(&problem, {backend}, {qp_backend}, NULL, 0);
    if (!{w}_solver)
      return;
{ipopt_strings}  }}
}}

const char *{w}_kind(void) {{ return "{s.solver}"; }}

/* NaN gives an option back to the backend's default. */
int {w}_set_option(const char *name, double value) {{
  int k;
  pthread_mutex_lock(&scaly_solvers_lock);
  {w}_ready();
  if (isnan(value)) {{
    for (k = {count} - 1; k >= 0; --k)
      if (name && strcmp(scaly_nlp_option_name({backend}, k), name) == 0)
        break;
  }} else {{
    k = scaly_nlp_check_option({backend}, name, value, NULL, 0);
  }}
  if (k >= 0)
    {w}_defaults[k] = value;
  pthread_mutex_unlock(&scaly_solvers_lock);
  return k >= 0 ? 0 : -1;
}}

int {w}_set_ipopt_option(const char *name, const char *value) {{
  int status = -1;
  pthread_mutex_lock(&scaly_solvers_lock);
  {w}_ready();
  if ({backend} == SCALY_NLP_IPOPT && {w}_solver &&
      (!value || scaly_nlp_check_ipopt_option(name, value, NULL, 0) == 0))
    status = scaly_nlp_set_ipopt_option({w}_solver, name, value);
  pthread_mutex_unlock(&scaly_solvers_lock);
  return status;
}}

{stats_accessor(w)}
SCALY_WRAPPER_HIDDEN void {w}(const double *x0, const double *p, const double *lbx,
    const double *ubx, const double *lbg, const double *ubg, const double *lam_g0,
    const double *lam_x0, double *x, double *lam_g, double *lam_x) {{
  double start, options[{count}];
  int k;
  pthread_mutex_lock(&scaly_solvers_lock);
  start = scaly_wrapper_now();
  {w}_ready();
  for (k = 0; k < {count}; ++k)
    options[k] = {w}_call_options && !isnan({w}_call_options[k]) ? {w}_call_options[k]
                                                               : {w}_defaults[k];
  {w}_p = p ? p : {w}_zero;
  if ({w}_solver) {{
    scaly_nlp_solve({w}_solver, options, lbx, ubx, lbg, ubg, x0, lam_g0, lam_x0, x, lam_g, lam_x);
    scaly_nlp_get_stats({w}_solver, &{w}_last);
  }} else {{
    for (k = 0; k < {s.n}; ++k) x[k] = lam_x[k] = NAN;
    for (k = 0; k < {s.m}; ++k) lam_g[k] = NAN;
    memset(&{w}_last, 0, sizeof {w}_last);
    {w}_last.version = SCALY_SOLVER_STATS_VERSION;
    {w}_last.status = SCALY_SOLVE_ERROR;
  }}
  {w}_last.t_total = scaly_wrapper_now() - start;
  {w}_last.t_glue = {w}_last.t_total - {w}_last.t_fe - {w}_last.t_solver - {w}_last.t_qp -
                    {w}_last.t_globalization;
  pthread_mutex_unlock(&scaly_solvers_lock);
}}
""")
    return "".join(out)


def nlp_spec_renamed(name, new_name):
    """The spec traced as `name`, carrying the module's name for it."""
    from dataclasses import replace
    return replace(nlp_spec(name), name=new_name)
