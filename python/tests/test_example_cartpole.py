"""examples/cartpole_nlp.py: a reduced run (N = 25 intervals of 0.1 s, the same 2.5 s horizon;
a 6 s closed loop), checked against references written here from scratch.

The references: the cart-pole's accelerations from Lagrange's equations as a 2 x 2 linear
solve (the example writes them in closed form), a vectorized NumPy RK4, the cost, and a
finite-difference Jacobian of the shooting constraints for the KKT conditions. Nothing of the
example's own NumPy code (plant_step, defects, objective) is used as a reference.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cartpole_nlp.py"
N, DT, STEPS = 25, 0.1, 60
PUSH = (30, 1.0)
SOLVERS = ("ipopt", "sqp")


@pytest.fixture(scope="module")
def ex(tmp_path_factory):
    """The example module, with a private JIT cache for this test module."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("cartpole-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    spec = importlib.util.spec_from_file_location("cartpole_nlp_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    patch.undo()


# verbose: the example's reports are printed too (pytest keeps them unless a test fails).
@pytest.fixture(scope="module")
def swing(ex):
    return ex.swing_up(N, DT, repeat=2, verbose=True)


@pytest.fixture(scope="module")
def loop(ex, swing):
    return ex.closed_loop(STEPS, N, DT, push=PUSH, start=swing["sqp"], verbose=True)


# -- the references --------------------------------------------------------------------------

def accelerations(ex, S, u):
    """(p'', theta'') per row of S from Lagrange's equations, solved as a linear system:
    [[M + m, m L cos], [cos, L]] [p'', theta''] = [u + m L omega^2 sin, -g sin]."""
    S = np.atleast_2d(S)
    u = np.broadcast_to(np.asarray(u, float), (S.shape[0],))
    th, om = S[:, 1], S[:, 3]
    m, M, L, g = ex.M_POLE, ex.M_CART, ex.LENGTH, ex.GRAVITY
    A = np.empty((S.shape[0], 2, 2))
    A[:, 0, 0], A[:, 0, 1] = M + m, m * L * np.cos(th)
    A[:, 1, 0], A[:, 1, 1] = np.cos(th), L
    b = np.stack([u + m * L * om ** 2 * np.sin(th), -g * np.sin(th)], axis=1)
    return np.linalg.solve(A, b[..., None])[..., 0]


def xdot(ex, S, u):
    S = np.atleast_2d(S)
    return np.column_stack([S[:, 2], S[:, 3], accelerations(ex, S, u)])


def rk4(ex, S, u, h):
    k1 = xdot(ex, S, u)
    k2 = xdot(ex, S + h / 2 * k1, u)
    k3 = xdot(ex, S + h / 2 * k2, u)
    k4 = xdot(ex, S + h * k3, u)
    return np.atleast_2d(S) + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def unpack(w, n=N):
    nxs = 4 * (n + 1)
    return w[:nxs].reshape(n + 1, 4), w[nxs:]


def constraints(ex, w, s_init, n=N, dt=DT):
    """g(w): s_0 - s_init, then every shooting gap s_{k+1} - RK4(s_k, u_k)."""
    X, U = unpack(w, n)
    return np.concatenate([X[0] - s_init, (X[1:] - rk4(ex, X[:-1], U, dt)).ravel()])


def cost(w, n=N):
    X, U = unpack(w, n)
    q = np.array([1.0, 5.0, 0.1, 0.1])
    e = X - np.array([0.0, np.pi, 0.0, 0.0])
    return float(np.sum(q * e[:-1] ** 2) + np.sum(10 * q * e[-1] ** 2) + 0.01 * np.sum(U ** 2))


def cost_gradient(w, n=N):
    X, U = unpack(w, n)
    q = np.array([1.0, 5.0, 0.1, 0.1])
    e = X - np.array([0.0, np.pi, 0.0, 0.0])
    gx = 2 * q * e
    gx[-1] *= 10
    return np.concatenate([gx.ravel(), 0.02 * U])


def jacobian_fd(ex, w, s_init, h=1e-6):
    cols = [(constraints(ex, w + h * e, s_init) - constraints(ex, w - h * e, s_init)) / (2 * h)
            for e in np.eye(w.size)]
    return np.column_stack(cols)


def upright_error(theta):
    return np.abs(np.mod(theta, 2 * np.pi) - np.pi)


# -- the model --------------------------------------------------------------------------------

def test_model_against_lagrange(ex):
    """The example's RK4 step (Scaly) and plant (NumPy) against the linear-solve reference."""
    rng = np.random.default_rng(7)
    S = rng.uniform([-1, -4, -3, -8], [1, 4, 3, 8], size=(20, 4))
    U = rng.uniform(-15, 15, size=20)
    step = ex.rk4_function(DT)
    got = np.array([step(s, u) for s, u in zip(S, U)])
    np.testing.assert_allclose(got, rk4(ex, S, U, DT), rtol=0, atol=1e-12)
    plant = np.array([ex.plant_step(s, u, DT, 4) for s, u in zip(S, U)])
    ref = S
    for _ in range(4):
        ref = rk4(ex, ref, U, DT / 4)
    np.testing.assert_allclose(plant, ref, rtol=0, atol=1e-12)
    # Hanging and upright at rest are equilibria.
    for s in (ex.S_HANG, ex.S_UP):
        np.testing.assert_allclose(step(s, 0.0), s, atol=1e-15)


def test_shooting_is_one_loop_in_the_c(ex):
    """The oracles (g, its Jacobian, the Lagrangian's Hessian) keep the RK4 step as a loop:
    the C's sin/cos calls do not grow with the horizon, and a loop runs over it."""
    from scaly.codegen import render_c_module
    sources = {n: render_c_module(ex.make_solver("sqp", n, DT)).solver_source for n in (10, N)}
    assert sources[10].count("sin(") == sources[N].count("sin(") > 0
    assert sources[10].count("cos(") == sources[N].count("cos(") > 0
    assert f"< {N}; ++" in sources[N]


# -- (a) the swing-up --------------------------------------------------------------------------

@pytest.mark.parametrize("solver", SOLVERS)
def test_solution_is_a_feasible_swing_up(ex, swing, solver):
    o = swing[solver]
    assert o["stats"]["status"] == "solved", o["stats"]
    w = o["w"]
    nw, m = ex.sizes(N)
    assert w.shape == (nw,) and o["lam_g"].shape == (m,) and o["lam_x"].shape == (nw,)
    gaps = constraints(ex, w, ex.S_HANG)
    assert np.abs(gaps[:4]).max() < 1e-10                  # starts where it was asked to
    assert np.abs(gaps).max() < (1e-7 if solver == "ipopt" else 1e-9), np.abs(gaps).max()
    X, U = unpack(w)
    assert np.abs(U).max() <= ex.U_MAX + 1e-8 and np.abs(X[1:, 0]).max() <= ex.P_MAX + 1e-8
    assert np.sum(np.abs(U) >= ex.U_MAX - 1e-6) >= 3       # bang-bang: the force limit is active
    # A swing-up: the pole passes the horizontal and ends near upright, the cart near the middle.
    assert upright_error(X[-1, 1]) < 0.05 and abs(X[-1, 0]) < 0.2
    assert np.abs(X[:, 1]).max() > np.pi / 2


def test_objectives_agree(ex, swing):
    f = {s: swing[s]["stats"]["obj"] for s in SOLVERS}
    # SQP reports f at the point it returns. IPOPT reports it at its last iterate, inside
    # bounds relaxed by bound_relax_factor (1e-8), and returns that point moved back within
    # the original bounds: the inputs at the force limit move by up to 1.5e-7.
    assert f["sqp"] == pytest.approx(cost(swing["sqp"]["w"]), rel=1e-12)
    assert f["ipopt"] == pytest.approx(cost(swing["ipopt"]["w"]), rel=1e-8)
    assert f["sqp"] == pytest.approx(f["ipopt"], rel=1e-6)
    assert cost(swing["sqp"]["w"]) == pytest.approx(cost(swing["ipopt"]["w"]), rel=1e-6)
    np.testing.assert_allclose(swing["sqp"]["w"], swing["ipopt"]["w"], atol=1e-4)


@pytest.mark.parametrize("solver", SOLVERS)
def test_kkt_conditions(ex, swing, solver):
    """grad f + J' lam_g + lam_x = 0 with a finite-difference J, CasADi's signs on the bounds."""
    o = swing[solver]
    w, lam_g, lam_x = o["w"], o["lam_g"], o["lam_x"]
    J = jacobian_fd(ex, w, ex.S_HANG)
    residual = cost_gradient(w) + J.T @ lam_g + lam_x
    scale = max(1.0, np.abs(lam_g).max())
    assert np.abs(residual).max() < 1e-5 * scale, np.abs(residual).max()
    lbx, ubx = ex.bounds(N)
    # An interior point leaves multipliers of order mu / distance on inactive bounds.
    tol = 1e-5 if solver == "ipopt" else 1e-8
    assert np.all(lam_x[w < ubx - 1e-5] <= tol) and np.all(lam_x[w > lbx + 1e-5] >= -tol)
    assert np.all(lam_x[np.isinf(lbx) & np.isinf(ubx)] == pytest.approx(0, abs=1e-8))
    assert np.abs(lam_x).max() > 1.0                       # the active force limits


@pytest.mark.parametrize("solver", SOLVERS)
def test_stats(swing, solver):
    o = swing[solver]
    for st in [o["stats"]] + o["solves"]:
        assert st["solver"] == solver and st["status"] == "solved"
        assert 0 < st["iter"] < 200
        parts = sum(st[k] for k in ("t_fe", "t_solver", "t_qp", "t_globalization", "t_glue"))
        assert parts == pytest.approx(st["t_total"], rel=1e-9, abs=1e-12)
        assert st["t_total"] > 0 and st["t_fe"] > 0 and st["t_solver"] > 0
        assert st["t_globalization"] >= 0 and st["primal_viol"] < 1e-7
        assert st["n_eval_f"] >= st["iter"] and st["n_eval_g"] >= st["iter"]
        assert st["n_eval_grad_f"] >= st["iter"] and st["n_eval_jac_g"] >= st["iter"]
        if solver == "ipopt":
            assert st["t_qp"] == 0 and st["n_eval_h"] >= st["iter"] - 1
        else:
            assert st["t_qp"] > 0 and st["qp_iter"] >= st["iter"]
            assert st["n_eval_h"] == st["iter"] and 0 < st["alpha"] <= 1
    # The first solve's wall time covers its t_total.
    assert o["t_first_call"] >= o["stats"]["t_total"]


def test_sqp_time_split_has_no_negative_part(swing):
    for st in [swing["sqp"]["stats"]] + swing["sqp"]["solves"]:
        assert st["t_glue"] >= 0, st["t_glue"]


# -- (b) closed-loop NMPC with real-time iterations ---------------------------------------------

def test_closed_loop_swings_up_and_stays(ex, loop):
    s = loop["s"]
    assert s.shape == (STEPS + 1, 4) and np.all(np.isfinite(s))
    # Every logged step is what the reference plant makes of the logged force; the state
    # logged (measured) at the push's step has the push in it.
    np.testing.assert_allclose(s[0], ex.S_HANG)
    for k in range(STEPS):
        x = s[k]
        for _ in range(ex.SUBSTEPS):
            x = rk4(ex, x, loop["u"][k], DT / ex.SUBSTEPS)[0]
        if k + 1 == PUSH[0]:
            x = x + np.array([0, 0, 0, PUSH[1]])
        np.testing.assert_allclose(s[k + 1], x, rtol=0, atol=1e-12)
    # Limits: the force exactly, the track up to the model's error at the limit.
    assert np.abs(loop["u"]).max() <= ex.U_MAX + 1e-9
    assert np.any(np.abs(loop["u"]) >= ex.U_MAX - 1e-6)
    assert np.abs(s[:, 0]).max() <= ex.P_MAX + 1e-3
    # Up before the push, and back up at the end.
    assert upright_error(s[PUSH[0] - 1, 1]) < 0.05
    assert upright_error(s[-1, 1]) < 0.05 and abs(s[-1, 0]) < 0.1 and np.abs(s[-1, 2:]).max() < 0.1
    assert loop["upright"]


def test_closed_loop_rti_steps(loop):
    assert set(loop["status"]) == {"rti_step"}
    assert np.all(loop["iter"] == 1) and np.all(loop["n_eval_h"] == 1)
    # Each plan starts at the measured state (the linear constraint s_0 = s holds after one
    # step), except where the linearization is inconsistent (the elastic QP, at the track limit).
    assert np.median(loop["plan_s0_err"]) < 1e-9 and loop["plan_s0_err"].max() < 1e-3
    assert np.mean(loop["plan_s0_err"] < 1e-8) > 0.8
    # One SQP step from a shifted plan: small gaps in steady state.
    assert np.median(loop["plan_gap"]) < 1e-6


def test_closed_loop_timing(loop):
    parts = sum(loop[k] for k in ("t_fe", "t_solver", "t_qp", "t_globalization", "t_glue"))
    np.testing.assert_allclose(parts, loop["t_total"], rtol=1e-9, atol=1e-12)
    assert np.all(loop["t_total"] > 0) and np.all(loop["wall"] >= loop["t_total"])
    assert np.all(loop["t_qp"] > 0) and np.all(loop["t_fe"] > 0)
    assert np.all(loop["qp_iter"] >= 1)


def test_real_time_iterations_converge_to_the_solution(ex, swing):
    """At a fixed state, RTI steps fed back converge to IPOPT's solution at Newton's rate."""
    s = np.array([0.1, np.pi - 0.4, 0.0, 0.5])
    solve = swing["ipopt"]["fn"]
    w_ref, _, _ = solve(s, ex.rest_guess(N, s))
    assert solve.stats()["status"] == "solved"
    # Its own wrapper (other trace-time options): no multipliers left from the closed loop.
    rti = ex.make_rti(N, DT, options={"qp_eps_abs": 1e-10})
    nw, m = ex.sizes(N)
    w, lam_g, lam_x = ex.rest_guess(N, s), np.zeros(m), np.zeros(nw)
    errors = []
    for _ in range(15):
        _, w, lam_g, lam_x = rti(s, w, lam_g, lam_x)
        assert rti.stats()["native_status"] == "rti_step"
        errors.append(np.abs(w - w_ref).max())
    assert errors[-1] < 1e-6, errors
    assert np.abs(constraints(ex, w, s)).max() < 1e-9
    assert cost(w) == pytest.approx(cost(w_ref), rel=1e-8)


def test_example_rti_convergence(ex, swing, loop):
    """The example's part (c) with the closed loop's controller (its multipliers left from the
    loop): against the converged SQP solution, down to rounding within a few calls."""
    dist, steps = ex.rti_convergence(loop["controller"], swing["sqp"]["fn"],
                                     np.array([0.1, np.pi - 0.4, 0.0, 0.5]), N, calls=7,
                                     verbose=True)
    assert dist[-1] < 1e-10 and steps[-1] < 1e-10
    assert dist[2] < 1e-2 * dist[1] and dist[1] < 1e-1 * dist[0]   # faster than linear
