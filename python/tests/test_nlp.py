"""`sc.nlp` inside traced Functions: parameters and bounds as inputs, results feeding further
computation, vmap, statistics, options (trace-time and call-time), real-time iterations, bad
problems and bad authoring (test_nlp_hs.py: the Hock-Schittkowski set; test_nlp_export.py: the
exported C).

References are closed-form solutions (projections onto a disc and a box), SciPy's SLSQP and
NumPy checks of the KKT conditions.
"""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import scaly as sc
from qpmodelutil import named, private_cache  # noqa: F401  (module fixture)
from scaly.solvers import nlp_default_options, nlp_option_names

SOLVERS = ("ipopt", "sqp")
OUTS = [sc.arg("x"), sc.arg("lam_g"), sc.arg("lam_x")]


def projection(solver, **kw):
    """min ||x - p||^2 s.t. ||x||^2 <= r2, 0 <= x_1 <= ub: the projection onto a disc cut by a box."""
    def body(p, r2, ub):
        return sc.nlp(lambda x, q: sc.sumsqr(x - q[:2]), lambda x, q: [sc.sumsqr(x)],
                      x0=np.zeros(2), p=sc.concat([p, sc.stack([r2])]), ubg=sc.stack([r2]),
                      lbx=np.array([-np.inf, 0.0]), ubx=sc.stack([np.inf, ub]), solver=solver,
                      **kw)
    return named(f"proj_{solver}", [sc.arg("p", 2), sc.arg("r2", ()), sc.arg("ub", ())], OUTS,
                 body)


def disc_reference(p, r2, ub):
    res = minimize(lambda x: np.sum((x - p) ** 2), np.zeros(2), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda x: r2 - x @ x}],
                   bounds=[(None, None), (0, ub)], options={"ftol": 1e-14, "maxiter": 500})
    return res.x


@pytest.fixture(scope="module", params=SOLVERS)
def proj(request, private_cache):  # noqa: F811
    return projection(request.param)


# -- 1. Results against references ---------------------------------------------------------

@pytest.mark.parametrize("p,r2,ub", [((3.0, 4.0), 1.0, 10.0), ((0.2, 0.1), 1.0, 10.0),
                                     ((1.0, 3.0), 4.0, 0.5), ((-2.0, -1.0), 2.0, 1.0)])
def test_solution_and_multipliers(proj, p, r2, ub):
    x, lam_g, lam_x = proj(np.array(p), r2, ub)
    np.testing.assert_allclose(x, disc_reference(np.array(p), r2, ub), atol=1e-6)
    # KKT: 2(x - p) + lam_g * 2x + lam_x = 0, with CasADi's signs.
    np.testing.assert_allclose(2 * (x - p) + lam_g[0] * 2 * x + lam_x, 0, atol=1e-6)
    assert lam_g[0] >= -1e-8  # an upper bound: nonnegative
    assert proj.stats()["status"] == "solved"


def test_solution_feeds_further_computation(private_cache):  # noqa: F811
    def body(p):
        x, lam_g, _ = sc.nlp(lambda x, p: sc.sumsqr(x - p), lambda x, p: [sc.sumsqr(x)],
                             x0=np.zeros(2), p=p, ubg=[1.0], solver="sqp")
        return sc.sum(x * x) + 10 * lam_g[0]

    f = named("feeds", [sc.arg("p", 2)], sc.arg("y"), body)
    p = np.array([3.0, 4.0])  # x = p / 5, lam = (|p| - 1) / 1 = 4
    assert f(p) == pytest.approx(1.0 + 10 * 4.0, rel=1e-7)


def test_vmap_over_a_solve(private_cache):  # noqa: F811
    single = projection("sqp")
    batched = named("proj_batch", [sc.arg("P", (6, 2))], sc.arg("X"),
                    lambda P: sc.vmap(single, 6, in_axes=(0, None, None))(P, 1.0, 10.0)[0])
    P = np.random.default_rng(3).normal(size=(6, 2)) * 2
    expected = np.array([disc_reference(p, 1.0, 10.0) for p in P])
    np.testing.assert_allclose(batched(P), expected, atol=1e-6)


def test_backends_agree_on_a_larger_problem(private_cache):  # noqa: F811
    """A chained Rosenbrock with a coupling constraint, n = 40: same optimum both ways."""
    n = 40

    def f(x):
        return sc.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)

    def g(x):
        return x[:-2] * x[1:-1] - x[2:] * 0.5

    outs = []
    def solve_with(solver, qp):
        return lambda x0: sc.nlp(f, g, x0=x0, lbg=-np.inf, ubg=np.full(n - 2, 0.4),
                                 solver=solver, qp=qp)

    for solver, qp in (("ipopt", "sparse"), ("sqp", "sparse"), ("sqp", "dense")):
        fn = named(f"chain_{solver}_{qp}", [sc.arg("x0", n)], OUTS, solve_with(solver, qp))
        outs.append(fn(np.full(n, 0.5)))
        assert fn.stats()["status"] == "solved", (solver, qp, fn.stats())
    for x, lam_g, _ in outs[1:]:
        np.testing.assert_allclose(x, outs[0][0], atol=1e-5)
        np.testing.assert_allclose(lam_g, outs[0][1], atol=1e-4)


# -- 2. Statistics -------------------------------------------------------------------------

def test_stats_ipopt(private_cache):  # noqa: F811
    f = projection("ipopt")
    f(np.array([3.0, 4.0]), 1.0, 10.0)
    st = f.stats()
    assert st["solver"] == "ipopt" and st["native_status"] == "Solve_Succeeded"
    assert st["iter"] > 0 and st["t_solver"] > 0 and st["t_qp"] == 0
    for k in ("n_eval_f", "n_eval_grad_f", "n_eval_g", "n_eval_jac_g", "n_eval_h"):
        assert st[k] > 0, k
    parts = st["t_fe"] + st["t_solver"] + st["t_qp"] + st["t_globalization"] + st["t_glue"]
    assert parts == pytest.approx(st["t_total"], rel=1e-9, abs=1e-12)
    assert st["obj"] == pytest.approx(16.0, rel=1e-6)  # |(3,4) - (0.6,0.8)|^2


def test_stats_sqp(private_cache):  # noqa: F811
    f = projection("sqp")
    f(np.array([3.0, 4.0]), 1.0, 10.0)
    st = f.stats()
    assert st["solver"] == "sqp" and st["native_status"] == "solved"
    assert st["qp_iter"] > 0 and st["t_qp"] > 0 and st["t_globalization"] >= 0
    assert st["merit_penalty"] >= 4.0  # above the multiplier of the disc (4)
    assert 0 < st["alpha"] <= 1 and st["step_inf"] >= 0 and st["primal_viol"] < 1e-8
    assert st["n_eval_h"] == st["iter"]
    parts = st["t_fe"] + st["t_solver"] + st["t_qp"] + st["t_globalization"] + st["t_glue"]
    assert parts == pytest.approx(st["t_total"], rel=1e-9, abs=1e-12)


# -- 3. Options ----------------------------------------------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_call_time_options(private_cache, solver):  # noqa: F811
    f = projection(solver)
    args = (np.array([3.0, 4.0]), 1.0, 10.0)
    f(*args)
    full = f.stats()["iter"]
    f(*args, options={"max_iter": 1})
    assert f.stats()["status"] == "max_iter" and f.stats()["iter"] <= 1 < full
    nested = {solver: {"max_iter": 1}}
    f(*args, options=nested)
    assert f.stats()["status"] == "max_iter"
    f(*args)  # the defaults again: call-time options last one call
    assert f.stats()["status"] == "solved" and f.stats()["iter"] == full


def test_choice_options_by_name(private_cache):  # noqa: F811
    f = projection("sqp")
    args = (np.array([3.0, 4.0]), 1.0, 10.0)
    x, _, _ = f(*args, options={"hessian_approximation": "bfgs"})
    np.testing.assert_allclose(x, [0.6, 0.8], atol=1e-6)
    assert f.stats()["n_eval_h"] == 0
    f(*args, options={"hessian_approximation": 0})  # a choice's index works too
    assert f.stats()["n_eval_h"] == f.stats()["iter"]


def test_trace_time_ipopt_options(private_cache):  # noqa: F811
    f = projection("ipopt", options={"mu_strategy": "adaptive", "tol": 1e-10,
                                     "linear_solver": "mumps", "max_soc": 2})
    x, _, _ = f(np.array([3.0, 4.0]), 1.0, 10.0)
    np.testing.assert_allclose(x, [0.6, 0.8], atol=1e-8)


def test_option_errors_name_the_option(private_cache):  # noqa: F811
    f = projection("sqp")
    args = (np.array([3.0, 4.0]), 1.0, 10.0)
    with pytest.raises(ValueError, match="unknown option 'eps_abs'.*max_iter"):
        f(*args, options={"eps_abs": 1e-9})
    with pytest.raises(ValueError, match="tol"):
        f(*args, options={"tol": -1.0})
    with pytest.raises(TypeError, match="max_iter"):
        f(*args, options={"max_iter": "ten"})
    with pytest.raises(ValueError, match="hessian_approximation.*'exact', 'bfgs'"):
        f(*args, options={"hessian_approximation": "sr1"})
    with pytest.raises(ValueError, match="options for 'ipopt' given to a 'sqp' solve"):
        f(*args, options={"ipopt": {"tol": 1e-9}})
    g = projection("ipopt")
    with pytest.raises(ValueError, match="mu_strategy"):
        g(*args, options={"mu_strategy": "fastest"})
    with pytest.raises(ValueError, match="call-time options are"):
        g(*args, options={"max_soc": 3})  # an IPOPT option, but not one of the table's


def test_trace_time_option_errors():
    with pytest.raises(ValueError, match="IPOPT does not take 1 for option no_such_option"):
        projection("ipopt", options={"no_such_option": 1})
    with pytest.raises(ValueError, match="IPOPT does not take fast for option max_soc"):
        projection("ipopt", options={"max_soc": "fast"})
    with pytest.raises(ValueError, match="unknown option 'max_soc' for solver 'sqp'"):
        projection("sqp", options={"max_soc": 2})


def test_option_tables():
    assert "max_iter" in nlp_option_names("ipopt") and "rti" in nlp_option_names("sqp")
    d = nlp_default_options("sqp")
    assert d["max_iter"] == 100 and d["hessian_approximation"] == "exact" and d["rti"] == "no"
    assert nlp_default_options("ipopt")["tol"] is None  # IPOPT's own default applies
    with pytest.raises(ValueError, match="unknown NLP solver 'snopt'"):
        nlp_option_names("snopt")


# -- 4. Real-time iterations ---------------------------------------------------------------

def test_real_time_iterations_converge_when_fed_back(private_cache):  # noqa: F811
    """One SQP step per call; feeding x back converges to the solution (Newton's rate)."""
    def body(x0, p):
        return sc.nlp(lambda x, p: sc.sumsqr(x - p) + x[0] ** 4, lambda x, p: [x[0] * x[1]],
                      x0=x0, p=p, lbg=[0.5], solver="sqp", options={"rti": "yes"})

    f = named("rti", [sc.arg("x0", 2), sc.arg("p", 2)], OUTS, body)
    p = np.array([0.2, 0.3])
    x = np.array([1.0, 1.0])
    steps = []
    for _ in range(12):
        x_new = f(x, p)[0]
        st = f.stats()
        assert st["native_status"] == "rti_step" and st["iter"] == 1 and st["alpha"] == 1.0
        steps.append(np.abs(x_new - x).max())
        x = x_new
    ref = minimize(lambda x: np.sum((x - p) ** 2) + x[0] ** 4, [1.0, 1.0], method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda x: x[0] * x[1] - 0.5}],
                   options={"ftol": 1e-15}).x
    np.testing.assert_allclose(x, ref, atol=1e-7)
    assert steps[-1] < 1e-9


def test_real_time_iteration_takes_the_exact_sqp_step(private_cache):  # noqa: F811
    """One RTI call is one full SQP step: the solution of the QP model at x0, here an
    equality-constrained one (bounds far away, the Hessian positive definite) whose step
    NumPy solves from its KKT system. The RTI QP steps close to its bounds' boundary
    (tau 0.9999): the step and the multipliers must still be the exact ones."""
    p = np.array([0.2, 0.3])

    def body(x0, p):
        return sc.nlp(lambda x, p: sc.sumsqr(x - p) + x[0] ** 4, lambda x, p: [x[0] * x[1]],
                      x0=x0, p=p, lbg=[0.5], ubg=[0.5], lbx=[-5.0, -5.0], ubx=[5.0, 5.0],
                      solver="sqp", options={"rti": "yes"})

    f = named("rti_exact_step", [sc.arg("x0", 2), sc.arg("p", 2)], OUTS, body)
    x0 = np.array([1.0, 0.8])
    x, lam_g, lam_x = f(x0, p)
    assert f.stats()["native_status"] == "rti_step"
    # The model at x0 with zero multipliers: H = hess f, the linearized constraint J d = -g.
    grad = 2 * (x0 - p) + np.array([4 * x0[0] ** 3, 0.0])
    hess = np.diag([2 + 12 * x0[0] ** 2, 2.0])
    jac = np.array([[x0[1], x0[0]]])
    g = x0[0] * x0[1] - 0.5
    kkt = np.block([[hess, jac.T], [jac, np.zeros((1, 1))]])
    sol = np.linalg.solve(kkt, -np.concatenate([grad, [g]]))
    np.testing.assert_allclose(x, x0 + sol[:2], rtol=0, atol=1e-8)
    np.testing.assert_allclose(lam_g, sol[2:], rtol=0, atol=1e-8)
    np.testing.assert_allclose(lam_x, 0.0, atol=1e-8)


def test_real_time_iterations_through_convexified_and_plain_models(private_cache):  # noqa: F811
    """RTI steps whose model Hessian is indefinite (the SQP convexifies it with rho J'J, the
    QP on P's whole pattern) and positive definite (the QP on the Hessian's own entries)
    in turn, each the exact SQP step: for an equality constraint the convexification
    leaves the step as it is, the solution of the model's KKT system, which NumPy solves."""
    p = np.array([0.2, 0.3])

    def body(x0, p, lam_g0):
        return sc.nlp(lambda x, p: sc.sumsqr(x - p), lambda x, p: [x[0] * x[1]],
                      x0=x0, p=p, lbg=[0.5], ubg=[0.5], lbx=[-5.0, -5.0], ubx=[5.0, 5.0],
                      lam_g0=lam_g0, solver="sqp", options={"rti": "yes"})

    f = named("rti_convexified", [sc.arg("x0", 2), sc.arg("p", 2), sc.arg("lam_g0", 1)],
              OUTS, body)
    x0 = np.array([1.0, 0.3])
    # lam_g0 2.5: hess L = [[2, 2.5], [2.5, 2]], indefinite, positive definite on the
    # constraint's tangent at x0 (the step exists); 0.5: positive definite.
    for lam in (2.5, 0.5, 2.5, 0.5):
        x, lam_g, _ = f(x0, p, np.array([lam]))
        assert f.stats()["native_status"] == "rti_step"
        hess = np.array([[2.0, lam], [lam, 2.0]])
        jac = np.array([[x0[1], x0[0]]])
        kkt = np.block([[hess, jac.T], [jac, np.zeros((1, 1))]])
        rhs = -np.concatenate([2 * (x0 - p), [x0[0] * x0[1] - 0.5]])
        sol = np.linalg.solve(kkt, rhs)
        np.testing.assert_allclose(x, x0 + sol[:2], rtol=0, atol=1e-8, err_msg=f"lam {lam}")
        np.testing.assert_allclose(lam_g, sol[2:], rtol=0, atol=1e-7, err_msg=f"lam {lam}")


# -- 5. Bad problems: a clear status, never a crash or a hang --------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_infeasible(private_cache, solver):  # noqa: F811
    f = named(f"infeasible_{solver}", [sc.arg("x0", 2)], OUTS,
              lambda x0: sc.nlp(lambda x: sc.sumsqr(x), lambda x: [x[0] + x[1], x[0] * x[1]],
                                x0=x0, lbg=[1.0, -np.inf], ubg=[1.0, 0.5],
                                lbx=np.zeros(2), ubx=np.full(2, 0.1), solver=solver))
    x, _, _ = f(np.array([0.05, 0.05]))
    assert f.stats()["status"] == "primal_infeasible"
    assert np.isfinite(x).all()


@pytest.mark.parametrize("solver", SOLVERS)
def test_unbounded(private_cache, solver):  # noqa: F811
    f = named(f"unbounded_{solver}", [sc.arg("x0", 2)], OUTS,
              lambda x0: sc.nlp(lambda x: -x[0] - x[1] ** 2, lambda x: [x[0] - x[1]],
                                x0=x0, ubg=[1.0], solver=solver))
    f(np.array([0.0, 0.0]))
    assert f.stats()["status"] in ("dual_infeasible", "max_iter")
    assert f.stats()["status"] == "dual_infeasible" or solver == "ipopt"


@pytest.mark.parametrize("solver", SOLVERS)
def test_nan_objective_at_start(private_cache, solver):  # noqa: F811
    f = named(f"nan_start_{solver}", [sc.arg("x0", 1)], OUTS,
              lambda x0: sc.nlp(lambda x: sc.log(x[0]) ** 2, None, x0=x0, solver=solver))
    x, _, _ = f(np.array([-1.0]))
    st = f.stats()
    assert st["status"] in ("numerics", "error")
    assert st["native_status"] in ("Invalid_Number_Detected", "eval_error")
    x, _, _ = f(np.array([2.0]))  # the same Function recovers from a good start
    assert f.stats()["status"] == "solved" and x[0] == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("solver", SOLVERS)
def test_crossed_bounds_at_call_time(private_cache, solver):  # noqa: F811
    f = named(f"crossed_{solver}", [sc.arg("lo", 1)], OUTS,
              lambda lo: sc.nlp(lambda x: x[0] ** 2, None, x0=np.zeros(1), lbx=lo,
                                ubx=np.zeros(1), solver=solver))
    f(np.array([1.0]))
    assert f.stats()["status"] == "error" if solver == "sqp" else \
        f.stats()["status"] in ("error", "primal_infeasible")


def test_wrong_lengths_and_authoring_errors():
    x0 = sc.arg("x0", 3)

    def trace(body):
        return named("bad", [x0], OUTS, body)

    f = lambda x: sc.sumsqr(x)  # noqa: E731
    with pytest.raises(ValueError, match="lbx has shape .2,., expected .3,."):
        trace(lambda x0: sc.nlp(f, None, x0=x0, lbx=np.zeros(2)))
    with pytest.raises(ValueError, match="ubg has shape .3,., expected .1,."):
        trace(lambda x0: sc.nlp(f, lambda x: [x[0]], x0=x0, ubg=np.zeros(3)))
    with pytest.raises(ValueError, match="lbg, ubg or lam_g0 are given but there is no g"):
        trace(lambda x0: sc.nlp(f, None, x0=x0, lbg=np.zeros(1)))
    with pytest.raises(ValueError, match="f must return a scalar"):
        trace(lambda x0: sc.nlp(lambda x: x * 2, None, x0=x0))
    with pytest.raises(ValueError, match="solver='snopt' is not one of 'ipopt', 'sqp'"):
        trace(lambda x0: sc.nlp(f, None, x0=x0, solver="snopt"))
    with pytest.raises(ValueError, match="qp='banded'"):
        trace(lambda x0: sc.nlp(f, None, x0=x0, solver="sqp", qp="banded"))
    with pytest.raises(ValueError, match="x0 must be a non-empty vector"):
        trace(lambda x0: sc.nlp(f, None, x0=x0.reshape((3, 1))))
    with pytest.raises(TypeError, match="f must be a function"):
        trace(lambda x0: sc.nlp(3.0, None, x0=x0))
    with pytest.raises(TypeError, match="at least one of x0"):
        trace(lambda x0: sc.nlp(f, None, x0=np.zeros(3)))
    with pytest.raises(ValueError, match="nlp: lbx has NaN entries"):
        trace(lambda x0: sc.nlp(f, None, x0=x0, lbx=np.full(3, np.nan)))
    with pytest.raises(ValueError, match="pass such values through p="):
        trace(lambda x0: sc.nlp(lambda x: sc.sumsqr(x - x0), None, x0=x0))


def test_nlp_in_the_public_api():
    assert sc.nlp.__doc__ and "nlpsol" in sc.nlp.__doc__ and "nlp" in sc.__all__
    assert math.isfinite(nlp_default_options("sqp")["tol"])
