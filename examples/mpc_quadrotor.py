"""Linear MPC of a quadrotor: a Scaly model, its Jacobians, a scan over the horizon, two QPs.

    PYTHONPATH=python /usr/bin/python3 examples/mpc_quadrotor.py [steps] [--cold]

The nonlinear 12-state model (position, roll/pitch/yaw, velocity, body rates; four rotor
thrusts) is written once as a Scaly Function and discretized by RK4. Its Jacobians at hover
(sc.jacobian) give the linear model; a Scaly Function with sc.scan over the horizon builds the
condensed prediction matrices from them. The same MPC is then posed twice:

  (a) sparse, multiple shooting: variables (x_1..x_N, u_0..u_{N-1}), dynamics as Ax = b with
      the measured state in b; solved by QPSolver(backend="sparse");
  (b) condensed: variables u_0..u_{N-1} only, roll/pitch limits as rows of G;
      solved by QPSolver(backend="dense").

Both run side by side in closed loop on the nonlinear model (the JIT-compiled `step`), each
step updating only the data that depend on the measured state and starting from the previous
solution shifted by one step (--cold: no warm start). These are the reference.

The same two QPs are then solved inside compiled Scaly Functions with sc.qp, the controller
one would ship: u0 = mpc_step(x0, ...), no Python between the measurement and the thrusts:

  (c) mpc_sparse(x0): the multiple-shooting matrices are constants computed before tracing
      from the evaluated Jacobians (their sparsity kept); only b depends on x0; sparse backend;
  (d) mpc_condensed(x0, Ad, Bd, P_N): the prediction matrices come from the scans of
      prediction() inside the Function, and H = Su'Qb Su + Rb, c, G and the tilt bounds are
      expressions (dense 120 x 120); dense backend.

Each drives its own closed loop on the plant; every step is checked against the Python
QPSolver of the same formulation at the same state (main_in_model).
"""

import sys
import time

import numpy as np
import scipy.linalg
import scipy.sparse as sp

import scaly as sc
from scaly.solvers import QPSolver

# -- the model -----------------------------------------------------------------------------

NX, NU = 12, 4          # x = (p[3], roll, pitch, yaw, v[3], omega[3]); u = rotor thrusts [N]
DT = 0.02               # [s]
N = 30                  # horizon: 0.6 s
MASS = 0.5              # [kg]
J = (2.3e-3, 2.3e-3, 4.0e-3)  # [kg m^2]
GRAVITY = 9.81          # [m/s^2]
ARM = 0.17              # rotor arm [m] ('+' configuration: rotors 1, 3 on body x; 2, 4 on y)
K_YAW = 0.016           # yaw torque per newton of thrust [m]


@sc.function(sc.arg("x", NX), sc.arg("u", NU), outputs=sc.arg("xdot"))
def dynamics(x, u):
    """Rigid-body quadrotor: ZYX Euler angles, velocity in the world frame, rates in body."""
    roll, pitch, yaw = x[3], x[4], x[5]
    p, q, r = x[9], x[10], x[11]
    thrust = u.sum()
    tau = (ARM * (u[1] - u[3]), ARM * (u[2] - u[0]), K_YAW * (u[0] - u[1] + u[2] - u[3]))
    s_roll, c_roll = roll.sin(), roll.cos()
    s_pitch, c_pitch, t_pitch = pitch.sin(), pitch.cos(), pitch.tan()
    s_yaw, c_yaw = yaw.sin(), yaw.cos()
    euler_rates = (p + (s_roll * q + c_roll * r) * t_pitch,
                   c_roll * q - s_roll * r,
                   (s_roll * q + c_roll * r) / c_pitch)
    a = thrust / MASS   # along the body z axis: R e3
    accel = (a * (c_yaw * s_pitch * c_roll + s_yaw * s_roll),
             a * (s_yaw * s_pitch * c_roll - c_yaw * s_roll),
             a * c_pitch * c_roll - GRAVITY)
    jx, jy, jz = J
    omega_dot = ((tau[0] + (jy - jz) * q * r) / jx,
                 (tau[1] + (jz - jx) * p * r) / jy,
                 (tau[2] + (jx - jy) * p * q) / jz)
    return sc.concat([x[6:9], sc.stack(euler_rates), sc.stack(accel), sc.stack(omega_dot)])


@sc.function(sc.arg("x", NX), sc.arg("u", NU), outputs=sc.arg("x_next"))
def step(x, u):
    """One RK4 step of DT with the input held."""
    k1 = dynamics(x, u)
    k2 = dynamics(x + 0.5 * DT * k1, u)
    k3 = dynamics(x + 0.5 * DT * k2, u)
    k4 = dynamics(x + DT * k3, u)
    return x + (DT / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


# The discrete linear model: Functions of (x, u) returning d step / dx and d step / du,
# evaluated at hover in main(). (They stay separate calls: one Function that feeds them
# into prediction() does not lower yet; see the report with this example.)
step_jac_x = sc.jacobian(step, wrt="x")
step_jac_u = sc.jacobian(step, wrt="u")


# -- condensed prediction: dx_{k+1} = Ad^(k+1) dx_0 + sum_{j<=k} Ad^(k-j) Bd du_j --------

@sc.function(sc.arg("M", (NX, NX)), sc.arg("Ad", (NX, NX)), sc.arg("Bd", (NX, NU)),
             outputs=(sc.arg("M_next"), sc.arg("power"), sc.arg("markov")))
def advance(M, Ad, Bd):
    """Carries M = Ad^k; emits Ad^(k+1) (free response) and Ad^k Bd (input response)."""
    M_next = Ad @ M
    return M_next, M_next, M @ Bd


@sc.function(sc.arg("col", (N, NX, NU)), outputs=(sc.arg("col_next"), sc.arg("column")))
def shift_down(col):
    """Emits one block column of Su and moves it down a block for the next input."""
    return sc.concat([np.zeros((1, NX, NU)), col[:-1]], axis=0), col


@sc.function(sc.arg("Ad", (NX, NX)), sc.arg("Bd", (NX, NU)),
             outputs=(sc.arg("Sx", (N * NX, NX)), sc.arg("Su", (N * NX, N * NU))))
def prediction(Ad, Bd):
    """Stacked predictions X = Sx dx0 + Su U over the horizon, from two scans of N steps:
    Sx stacks Ad^1..Ad^N; block (i, j) of Su is Ad^(i-j) Bd on and below the diagonal."""
    _, (powers, markov) = sc.scan(advance, N, in_axes=(None, None))(np.eye(NX), Ad, Bd)
    _, columns = sc.scan(shift_down, N)(markov)          # columns[j, i] = block (i, j)
    Su = columns.transpose(1, 2, 0, 3).reshape(N * NX, N * NU)
    return powers.reshape(N * NX, NX), Su


def prediction_numpy(Ad, Bd):
    """The same matrices, built the textbook way."""
    Sx = np.vstack([np.linalg.matrix_power(Ad, k + 1) for k in range(N)])
    Su = np.zeros((N * NX, N * NU))
    for i in range(N):
        for j in range(i + 1):
            Su[i * NX:(i + 1) * NX, j * NU:(j + 1) * NU] = np.linalg.matrix_power(Ad, i - j) @ Bd
    return Sx, Su


# -- the MPC problem -----------------------------------------------------------------------

X_REF = np.zeros(NX)
X_REF[2] = 1.0                                  # hover at (0, 0, 1), yaw 0
U_HOVER = np.full(NU, MASS * GRAVITY / NU)      # 1.226 N per rotor
U_MIN, U_MAX = 0.2, 2.0                         # rotor thrust limits [N]
TILT_MAX = 0.25                                 # |roll|, |pitch| <= 0.25 rad (14 deg)
TILT = (3, 4)                                   # their indices in x
Q = np.diag([20.0, 20.0, 30.0, 2.0, 2.0, 5.0, 2.0, 2.0, 2.0, 0.05, 0.05, 0.1])
R = np.diag([1.0] * NU)

X0 = X_REF.copy()
X0[0:3] += (0.8, -0.4, -0.4)                    # about 1 m away (0.98 m)
X0[5] = 0.5                                     # and yawed by 0.5 rad


def sparse_qp(Ad, Bd, P_N):
    """Multiple shooting: z = (dx_1..dx_N, du_0..du_{N-1}), dx = x - x_ref, du = u - u_hover.

    min 1/2 (sum dx_k' Q dx_k + dx_N' P_N dx_N + sum du_k' R du_k)
    s.t. dx_1 - Bd du_0 = Ad dx_0,  dx_{k+1} - Ad dx_k - Bd du_k = 0,  bounds on z.
    The model is linearized at the reference hover, so c = 0. Returns the QP data and b(dx0).
    """
    nx, nu = N * NX, N * NU
    P = sp.block_diag([sp.kron(sp.eye(N - 1), Q), P_N, sp.kron(sp.eye(N), R)], format="csc")
    Aeq = sp.hstack([sp.eye(nx) - sp.kron(sp.eye(N, k=-1), Ad), -sp.kron(sp.eye(N), Bd)],
                    format="csc")
    x_l, x_u = np.full(nx + nu, -np.inf), np.full(nx + nu, np.inf)
    for i in TILT:
        x_l[i:nx:NX], x_u[i:nx:NX] = -TILT_MAX, TILT_MAX
    x_l[nx:], x_u[nx:] = U_MIN - np.tile(U_HOVER, N), U_MAX - np.tile(U_HOVER, N)

    def b(dx0):
        out = np.zeros(nx)
        out[:NX] = Ad @ dx0
        return out

    return dict(P=P, c=np.zeros(nx + nu), A=Aeq, x_l=x_l, x_u=x_u), b


def condensed_qp(Sx, Su, P_N):
    """Inputs only: U = (du_0..du_{N-1}), dX = Sx dx0 + Su U.

    min 1/2 U'(Su' Qb Su + Rb) U + (Su' Qb Sx dx0)' U,  -tilt <= S (Sx dx0 + Su U) <= tilt
    (the same cost as the sparse QP's, less the constant 1/2 dx0' Sx' Qb Sx dx0).
    Returns the QP data and c(dx0), h_l(dx0), h_u(dx0).
    """
    Qb = scipy.linalg.block_diag(*([Q] * (N - 1) + [P_N]))
    Rb = np.kron(np.eye(N), R)
    H = Su.T @ Qb @ Su + Rb
    F = Su.T @ Qb @ Sx
    rows = np.array([k * NX + i for k in range(N) for i in TILT])   # roll, pitch of each x_k
    G, Gx = Su[rows], Sx[rows]
    du_l = np.tile(U_MIN - U_HOVER, N)
    du_u = np.tile(U_MAX - U_HOVER, N)
    data = dict(P=H, c=np.zeros(N * NU), G=G, h_l=np.full(len(rows), -TILT_MAX),
                h_u=np.full(len(rows), TILT_MAX), x_l=du_l, x_u=du_u)
    return data, (lambda dx0: F @ dx0), (lambda dx0: -TILT_MAX - Gx @ dx0), \
        (lambda dx0: TILT_MAX - Gx @ dx0)


def shifted(v, block, keep_last=True):
    """A horizon-stacked vector moved one block ahead, its last block repeated."""
    out = np.empty_like(v)
    out[:-block] = v[block:]
    out[-block:] = v[-block:] if keep_last else 0.0
    return out


# -- the same MPC inside Scaly Functions: sc.qp in the trace -------------------------------
# A controller to ship: one compiled Function from the measured state to the rotor thrusts,
# with the QP's data computed in the generated C and the QP solved by the same library through
# the module's solver wrapper. The wrapper keeps its solver between calls (set up on the first,
# updated after); sc.qp takes no starting point, so every solve starts cold.

def make_mpc_sparse(Ad, Bd, P_N):
    """(c) Multiple shooting inside a Function: mpc_sparse(x0) -> (u0, X, U).

    The QP's matrices are constants, taken from the numerically evaluated Jacobians before
    tracing: P and A keep their sparsity pattern in the generated C. Only b = (Ad dx0, 0)
    depends on the input. X: the predicted states x_1..x_N, U: the planned thrusts."""
    data, _ = sparse_qp(Ad, Bd, P_N)
    nx = N * NX

    @sc.function(sc.arg("x0", NX),
                 outputs=(sc.arg("u0", NU), sc.arg("X", (N, NX)), sc.arg("U", (N, NU))))
    def mpc_sparse(x0):
        b = sc.concat([sc.matmul(Ad, x0 - X_REF), np.zeros(nx - NX)])
        z, _, _, _ = sc.qp(data["P"], data["c"], A=data["A"], b=b, x_l=data["x_l"],
                           x_u=data["x_u"], sparse=True)
        U = U_HOVER + z[nx:].reshape(N, NU)
        return U[0], X_REF + z[:nx].reshape(N, NX), U

    return mpc_sparse


def make_mpc_condensed():
    """(d) Condensed inside a Function: mpc_condensed(x0, Ad, Bd, P_N) -> (u0, X, U).

    The linear model and the terminal cost are inputs, so the same compiled controller takes a
    new linearization at run time. The body builds Sx and Su with the scans of prediction(),
    then the QP's data as expressions: H = Su' Qb Su + Rb (dense 120 x 120), c = Su' Qb Sx dx0,
    the tilt rows G = S Su and their bounds. Q is diagonal, so Qb is applied as weights.
    (Computing Ad, Bd from step_jac_x/u inside this trace and feeding them to the scan does not
    lower yet: "operand #0 does not dominate this use", see the report with this example.)"""
    assert np.array_equal(Q, np.diag(np.diag(Q)))
    q = np.tile(np.diag(Q), N - 1)                       # Qb's diagonal, less the last block
    tilt = slice(TILT[0], TILT[-1] + 1)                  # roll, pitch: a slice, not a gather
    assert tuple(range(NX)[tilt]) == TILT
    Rb = np.kron(np.eye(N), R)
    du_l, du_u = np.tile(U_MIN - U_HOVER, N), np.tile(U_MAX - U_HOVER, N)

    @sc.function(sc.arg("x0", NX), sc.arg("Ad", (NX, NX)), sc.arg("Bd", (NX, NU)),
                 sc.arg("P_N", (NX, NX)),
                 outputs=(sc.arg("u0", NU), sc.arg("X", (N, NX)), sc.arg("U", (N, NU))))
    def mpc_condensed(x0, Ad, Bd, P_N):
        Sx, Su = prediction(Ad, Bd)
        free = Sx @ (x0 - X_REF)                         # the free response dx_1..dx_N
        S, S_N = Su[:-NX], Su[-NX:]
        H = S.T @ (q[:, None] * S) + S_N.T @ (P_N @ S_N) + Rb
        c = S.T @ (q * free[:-NX]) + S_N.T @ (P_N @ free[-NX:])
        G = Su.reshape(N, NX, N * NU)[:, tilt].reshape(N * len(TILT), N * NU)
        free_tilt = free.reshape(N, NX)[:, tilt].reshape(N * len(TILT))
        dU, _, _, _ = sc.qp(H, c, G=G, h_l=-TILT_MAX - free_tilt, h_u=TILT_MAX - free_tilt,
                            x_l=du_l, x_u=du_u, sparse=False)
        U = U_HOVER + dU.reshape(N, NU)
        return U[0], X_REF + (free + Su @ dU).reshape(N, NX), U

    return mpc_condensed


# -- closed loop ---------------------------------------------------------------------------

# The solver's default gap test (1e-8 absolute, 1e-12 relative to terms as large as the
# condensed cost, ~1e4 here) only bounds the error in u by about sqrt(2 gap / lambda_min(H)),
# up to 1e-4 (seen: 2e-6 between the two formulations). An absolute 1e-10 brings them to
# within 2e-7 (3e-9 warm-started) for one or two more iterations.
QP_OPTIONS = {"eps_duality_gap_abs": 1e-10, "eps_duality_gap_rel": 0.0}


def main(steps=200, warm_start=True, verbose=True, options=QP_OPTIONS, pos_tol=None):
    """Closed loop of `steps` steps; returns the logs. Asserts as it goes: every QP solved,
    limits kept, both formulations' first inputs equal to 1e-6 (and the final position
    within pos_tol of the reference when pos_tol is given)."""
    say = print if verbose else (lambda *a, **k: None)

    # Linearization at hover, from Scaly's derivatives of the RK4 step.
    assert np.allclose(step(X_REF, U_HOVER), X_REF, rtol=0, atol=1e-14), "hover is an equilibrium"
    Ad, Bd = step_jac_x(X_REF, U_HOVER), step_jac_u(X_REF, U_HOVER)
    h = 1e-6
    Ad_fd = np.column_stack([(step(X_REF + h * e, U_HOVER) - step(X_REF - h * e, U_HOVER))
                             / (2 * h) for e in np.eye(NX)])
    assert np.allclose(Ad, Ad_fd, rtol=0, atol=1e-7), "Jacobian vs central differences"

    # Condensed prediction matrices from the scan, checked against NumPy.
    Sx, Su = prediction(Ad, Bd)
    Sx_np, Su_np = prediction_numpy(Ad, Bd)
    err = max(np.abs(Sx - Sx_np).max(), np.abs(Su - Su_np).max())
    assert err < 1e-12 * max(np.abs(Sx_np).max(), np.abs(Su_np).max()), err
    say(f"prediction matrices (sc.scan over N = {N}) match NumPy: max |difference| {err:.1e}")

    P_N = scipy.linalg.solve_discrete_are(Ad, Bd, Q, R)    # terminal cost: the LQR value

    a_data, a_b = sparse_qp(Ad, Bd, P_N)
    b_data, b_c, b_hl, b_hu = condensed_qp(Sx, Su, P_N)
    dx0 = X0 - X_REF
    sparse = QPSolver(**dict(a_data, b=a_b(dx0)), backend="sparse", options=options)
    dense = QPSolver(**dict(b_data, c=b_c(dx0), h_l=b_hl(dx0), h_u=b_hu(dx0)), backend="dense",
                     options=options)
    n_a, p_a = a_data["P"].shape[0], a_data["A"].shape[0]
    n_b, m_b = N * NU, b_data["G"].shape[0]
    sizes = dict(sparse=(n_a, p_a, 0), condensed=(n_b, 0, m_b))
    say(f"sparse QP:    n = {n_a} (states and inputs), p = {p_a} (dynamics), m = 0; "
        f"nnz(P) = {a_data['P'].nnz}, nnz(A) = {a_data['A'].nnz}; bounds on the {N * NU} "
        f"inputs and {len(TILT) * N} tilts")
    say(f"condensed QP: n = {n_b} (inputs), p = 0, m = {m_b} (tilts); P dense {n_b}x{n_b}; "
        f"bounds on the {N * NU} inputs")

    nx = N * NX
    x = X0.copy()
    log = {k: [] for k in ("t_solve_sparse", "t_solve_dense", "wall_sparse", "wall_dense",
                           "update_sparse", "update_dense", "iter_sparse", "iter_dense",
                           "du_diff", "u", "x")}
    prev_a = prev_b = None
    for t in range(steps):
        dx0 = x - X_REF
        # (a) sparse: only b depends on the state.
        start = time.perf_counter()
        sparse.update(b=a_b(dx0))
        updated = time.perf_counter()
        if warm_start and prev_a is not None:
            ra = sparse.solve(
                x0=np.concatenate([shifted(prev_a.x[:nx], NX), shifted(prev_a.x[nx:], NU)]),
                y0=shifted(prev_a.y, NX, keep_last=False),
                z_box0=np.concatenate([shifted(prev_a.z_box[:nx], NX, keep_last=False),
                                       shifted(prev_a.z_box[nx:], NU, keep_last=False)]))
        else:
            ra = sparse.solve()
        log["update_sparse"].append(updated - start)
        log["wall_sparse"].append(time.perf_counter() - start)
        # (b) condensed: the cost's linear term and the tilt rows' bounds depend on the state.
        start = time.perf_counter()
        dense.update(c=b_c(dx0), h_l=b_hl(dx0), h_u=b_hu(dx0))
        updated = time.perf_counter()
        if warm_start and prev_b is not None:
            rb = dense.solve(x0=shifted(prev_b.x, NU),
                             z0=shifted(prev_b.z, len(TILT), keep_last=False),
                             z_box0=shifted(prev_b.z_box, NU, keep_last=False))
        else:
            rb = dense.solve()
        log["update_dense"].append(updated - start)
        log["wall_dense"].append(time.perf_counter() - start)

        for name, res in (("sparse", ra), ("condensed", rb)):
            assert res.status == "solved", f"step {t}: {name} QP {res!r}"
        du_a, du_b = ra.x[nx:nx + NU], rb.x[:NU]
        log["du_diff"].append(np.abs(du_a - du_b).max())
        assert log["du_diff"][-1] < 1e-6, f"step {t}: first inputs differ by {log['du_diff'][-1]}"
        # Both QPs keep the limits over the horizon (their own predictions).
        tilts_a = np.concatenate([ra.x[i:nx:NX] for i in TILT])
        tilts_b = (Sx @ dx0 + Su @ rb.x).reshape(N, NX)[:, TILT]
        for tilts, dus in ((tilts_a, ra.x[nx:]), (tilts_b, rb.x)):
            assert np.abs(tilts).max() <= TILT_MAX + 1e-7, f"step {t}: tilt {np.abs(tilts).max()}"
            us = np.tile(U_HOVER, N) + dus
            assert us.min() >= U_MIN - 1e-7 and us.max() <= U_MAX + 1e-7, f"step {t}: thrust"

        u = U_HOVER + du_a
        log["u"].append(u)
        log["x"].append(x)
        for key, res in (("sparse", ra), ("dense", rb)):
            log["t_solve_" + key].append(res.t_solve)
            log["iter_" + key].append(res.iter)
        x = step(x, u)                      # the nonlinear plant: the JIT-compiled Scaly step
        prev_a, prev_b = ra, rb

    log = {k: np.array(v) for k, v in log.items()}
    log["x"] = np.vstack([log["x"], x])
    pos_err = float(np.linalg.norm(x[:3] - X_REF[:3]))
    max_tilt = float(np.abs(log["x"][:, TILT]).max())
    u_lim = (log["u"] <= U_MIN + 1e-6) | (log["u"] >= U_MAX - 1e-6)
    tilt_lim = np.abs(log["x"][1:, TILT]).max(axis=1) >= TILT_MAX - 1e-3
    say(f"\nclosed loop: {steps} steps of {DT} s from {np.linalg.norm(X0[:3] - X_REF[:3]):.2f} m "
        f"away and yaw {X0[5]} rad; warm start {'on' if warm_start else 'off'}")
    say(f"  final position error {100 * pos_err:.3f} cm, yaw {x[5]:+.1e} rad, "
        f"speed {np.linalg.norm(x[6:9]):.1e} m/s")
    say(f"  thrusts in [{log['u'].min():.3f}, {log['u'].max():.3f}] N (limits [{U_MIN}, {U_MAX}],"
        f" reached on {int(u_lim.any(axis=1).sum())} steps); max |roll|, |pitch| of the plant "
        f"{max_tilt:.4f} rad (limit {TILT_MAX}, within 1e-3 on {int(tilt_lim.sum())} steps)")
    say(f"  max |u_0(sparse) - u_0(condensed)| over all steps: {log['du_diff'].max():.1e} N")
    say("\nper step             t_solve (library)    update+solve (wall)   of it update()   "
        "iterations")
    say("                     median / max  ms     median / max  ms      median  ms      "
        "median / max")
    for key, label in (("sparse", f"sparse (n={n_a})"), ("dense", f"condensed (n={n_b})")):
        ts, wall, upd, it = (log[k + key] for k in ("t_solve_", "wall_", "update_", "iter_"))
        say(f"  {label:<18} {1e3 * np.median(ts):6.3f} / {1e3 * ts.max():6.3f}      "
            f"{1e3 * np.median(wall):6.3f} / {1e3 * wall.max():6.3f}       "
            f"{1e3 * np.median(upd):6.3f}        {np.median(it):4.0f} / {it.max()}")

    # The QP kept the tilt limit on the linear model; the plant is nonlinear (yaw and yaw
    # rate couple into roll and pitch), so it may exceed the limit by a few mrad.
    assert max_tilt <= TILT_MAX + 0.01, max_tilt
    assert log["u"].min() >= U_MIN - 1e-7 and log["u"].max() <= U_MAX + 1e-7
    if pos_tol is not None:
        assert pos_err < pos_tol, f"final position error {pos_err} m"
    return dict(log, final_x=x, pos_err=pos_err, max_tilt=max_tilt, sizes=sizes,
                prediction_error=err)


def main_in_model(steps=200, verbose=True, options=QP_OPTIONS, pos_tol=None):
    """The in-model controllers, each in its own closed loop of `steps` steps on the plant.

    At every step the compiled Function's solve must report 'solved', its first input must
    equal that of the Python QPSolver of the same formulation at the same state (set up from
    the same data, cold-started like the in-model solve, the same options) to 1e-6, and its
    plan must keep the limits; with pos_tol, the final position error must be below it.
    Returns per variant: the logs, the trace and compile times and the final error."""
    say = print if verbose else (lambda *a, **k: None)
    Ad, Bd = step_jac_x(X_REF, U_HOVER), step_jac_u(X_REF, U_HOVER)
    P_N = scipy.linalg.solve_discrete_are(Ad, Bd, Q, R)
    Sx, Su = prediction(Ad, Bd)
    a_data, a_b = sparse_qp(Ad, Bd, P_N)
    b_data, b_c, b_hl, b_hu = condensed_qp(Sx, Su, P_N)
    nx = N * NX
    dx0 = X0 - X_REF
    ref_sparse = QPSolver(**dict(a_data, b=a_b(dx0)), backend="sparse", options=options)
    ref_dense = QPSolver(**dict(b_data, c=b_c(dx0), h_l=b_hl(dx0), h_u=b_hu(dx0)),
                         backend="dense", options=options)

    def solve_sparse(dx0):
        ref_sparse.update(b=a_b(dx0))
        res = ref_sparse.solve()
        return res, res.x[nx:nx + NU]

    def solve_dense(dx0):
        ref_dense.update(c=b_c(dx0), h_l=b_hl(dx0), h_u=b_hu(dx0))
        res = ref_dense.solve()
        return res, res.x[:NU]

    variants = []
    for name, make, extra, reference in (
            ("sparse", lambda: make_mpc_sparse(Ad, Bd, P_N), (), solve_sparse),
            ("condensed", make_mpc_condensed, (Ad, Bd, P_N), solve_dense)):
        start = time.perf_counter()
        fn = make()
        traced = time.perf_counter()
        fn.compile()
        variants.append((name, fn, extra, reference, traced - start,
                         time.perf_counter() - traced))

    out = {}
    for name, fn, extra, reference, t_trace, t_compile in variants:
        log = {k: [] for k in ("wall", "t_qp", "t_total", "iter", "wall_ref", "t_solve_ref",
                               "iter_ref", "du_diff", "u", "x")}
        x = X0.copy()
        for t in range(steps):
            start = time.perf_counter()
            u0, X, U = fn(x, *extra, options=options)
            log["wall"].append(time.perf_counter() - start)
            stats = fn.stats()
            assert stats["status"] == "solved", f"step {t}: in-model {name} QP: {stats}"
            start = time.perf_counter()
            ref, du_ref = reference(x - X_REF)
            log["wall_ref"].append(time.perf_counter() - start)
            assert ref.status == "solved", f"step {t}: Python {name} QP {ref!r}"
            log["du_diff"].append(np.abs(u0 - (U_HOVER + du_ref)).max())
            assert log["du_diff"][-1] < 1e-6, \
                f"step {t}: in-model {name} u0 differs from QPSolver's by {log['du_diff'][-1]}"
            assert np.abs(X[:, TILT]).max() <= TILT_MAX + 1e-7, f"step {t}: planned tilt"
            assert U.min() >= U_MIN - 1e-7 and U.max() <= U_MAX + 1e-7, f"step {t}: thrust"
            assert np.allclose(U[0], u0, rtol=0, atol=0)
            for key, value in (("t_qp", stats["t_qp"]), ("t_total", stats["t_total"]),
                               ("iter", stats["iter"]), ("t_solve_ref", ref.t_solve),
                               ("iter_ref", ref.iter), ("u", u0), ("x", x)):
                log[key].append(value)
            x = step(x, u0)
        log = {k: np.array(v) for k, v in log.items()}
        log["x"] = np.vstack([log["x"], x])
        pos_err = float(np.linalg.norm(x[:3] - X_REF[:3]))
        if pos_tol is not None:
            assert pos_err < pos_tol, f"in-model {name}: final position error {pos_err} m"
        out[name] = dict(log, final_x=x, pos_err=pos_err, t_trace=t_trace, t_compile=t_compile,
                         max_tilt=float(np.abs(log["x"][:, TILT]).max()))

    say(f"\nin-model MPC (sc.qp inside the compiled Function; cold start each call; options "
        f"{options}): {steps} steps each")
    for name, fn, *_ in variants:
        o = out[name]
        say(f"  {fn.name}: traced in {1e3 * o['t_trace']:.0f} ms, compiled (or loaded from the "
            f"cache) in {o['t_compile']:.2f} s; final position error {100 * o['pos_err']:.3f} "
            f"cm; max |u_0 - u_0(QPSolver)| {o['du_diff'].max():.1e} N; iterations equal to "
            f"QPSolver's on {int((o['iter'] == o['iter_ref']).sum())}/{steps} steps")
    say("\nper step             mpc_step call (wall)  t_qp     t_total   iterations    "
        "| QPSolver, cold: update+solve  t_solve  iterations")
    say("                     median / max  ms      median ms  median ms  median / max  "
        "|                 median ms      median ms  median / max")
    for name, *_ in variants:
        o = out[name]
        say(f"  {name:<18} {1e3 * np.median(o['wall']):6.3f} / {1e3 * o['wall'].max():6.3f}    "
            f"{1e3 * np.median(o['t_qp']):6.3f}   {1e3 * np.median(o['t_total']):6.3f}    "
            f"{np.median(o['iter']):4.0f} / {o['iter'].max():<4}   |"
            f"                 {1e3 * np.median(o['wall_ref']):6.3f}         "
            f"{1e3 * np.median(o['t_solve_ref']):6.3f}    {np.median(o['iter_ref']):4.0f} / "
            f"{o['iter_ref'].max()}")
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--cold"]
    steps = int(args[0]) if args else 200
    main(steps, warm_start="--cold" not in sys.argv, pos_tol=0.05)
    main_in_model(steps, pos_tol=0.05)
