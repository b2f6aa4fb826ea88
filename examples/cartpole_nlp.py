"""Cart-pole swing-up by multiple shooting with sc.nlp: IPOPT, Scaly SQP and real-time NMPC.

    PYTHONPATH=python /usr/bin/python3 examples/cartpole_nlp.py [steps]

The model: a cart of mass M_CART on a frictionless track, pushed by a horizontal force u, and a
pole of length LENGTH hinged on it, its mass M_POLE at the tip (massless rod, no friction).
State s = (p, theta, v, omega): cart position [m], pole angle [rad] (0 hanging down, pi
upright, counter-clockwise), cart velocity [m/s], pole rate [rad/s]. Lagrange's equations

    (M_CART + M_POLE) p'' + M_POLE L (theta'' cos(theta) - omega^2 sin(theta)) = u
    L theta'' + p'' cos(theta) + g sin(theta) = 0

solved for the accelerations (D = M_CART + M_POLE sin^2(theta)):

    p''     = (u + M_POLE sin(theta) (L omega^2 + g cos(theta))) / D
    theta'' = (-u cos(theta) - M_POLE L omega^2 sin(theta) cos(theta)
               - (M_CART + M_POLE) g sin(theta)) / (L D)

The optimal control problem, by multiple shooting over N = 50 intervals of DT = 0.05 s (a
2.5 s horizon): decision variables w = (s_0, ..., s_N, u_0, ..., u_{N-1}), all states then all
inputs (4 (N + 1) + N = 254), and

    minimize   sum_k (s_k - s_up)' Q (s_k - s_up) + R u_k^2  +  (s_N - s_up)' Q_N (s_N - s_up)
    subject to s_0 = s_measured,  s_{k+1} = RK4(s_k, u_k)   (k = 0..N-1: 4 (N + 1) = 204 rows)
               |u_k| <= U_MAX,  |p_k| <= P_MAX (k = 1..N: p_0 is measured)

The shooting constraints are one sc.vmap of the RK4 step Function over the horizon: the
constraint function, its Jacobian and the Hessian of the Lagrangian that Scaly derives from
it stay one loop each in the generated C, whatever N is.

  (a) The swing-up from the pole hanging at rest (the initial guess: resting there all along),
      solved to convergence by IPOPT and by Scaly SQP (sc.nlp(..., solver="ipopt"|"sqp")):
      iterations, solve times and objectives from stats(), which must agree.
  (b) Closed-loop NMPC with SQP real-time iterations (options={"rti": "yes"}): one SQP step per
      control interval from the previous plan shifted by one interval, the multipliers carried
      over by the solver; the plant is an independent NumPy RK4 with SUBSTEPS substeps per
      interval, and the pole gets a push halfway. Per-step time from stats() and the wall time
      of the call, and whether the pole ends upright.
  (c) The same controller called repeatedly at one fixed state with its plan fed back
      unshifted: the distance to the converged solution falls at Newton's rate.
"""

import sys
import time

import numpy as np

import scaly as sc

# -- the model -----------------------------------------------------------------------------

NX, NU = 4, 1                   # s = (p, theta, v, omega); u = force on the cart [N]
M_CART = 1.0                    # [kg]
M_POLE = 0.2                    # [kg], at the tip of the pole
LENGTH = 0.5                    # [m]
GRAVITY = 9.81                  # [m/s^2]
U_MAX = 15.0                    # |u| <= U_MAX [N]
P_MAX = 1.0                     # |p| <= P_MAX [m]: the track

N = 50                          # shooting intervals
DT = 0.05                       # [s]: a 2.5 s horizon
SUBSTEPS = 4                    # the plant's RK4 substeps per control interval

S_HANG = np.zeros(NX)                       # hanging at rest
S_UP = np.array([0.0, np.pi, 0.0, 0.0])     # upright at rest, over the middle of the track
Q = np.array([1.0, 5.0, 0.1, 0.1])          # diagonal state weight
R = 0.01                                    # input weight
Q_N = 10.0 * Q                              # terminal state weight


@sc.function(sc.arg("s", NX), sc.arg("u", ()), outputs=sc.arg("sdot"))
def dynamics(s, u):
    """The cart-pole's state derivative (the equations above)."""
    theta, v, omega = s[1], s[2], s[3]
    sin, cos = theta.sin(), theta.cos()
    d = M_CART + M_POLE * sin * sin
    p_acc = (u + M_POLE * sin * (LENGTH * omega * omega + GRAVITY * cos)) / d
    theta_acc = (-u * cos - M_POLE * LENGTH * omega * omega * sin * cos
                 - (M_CART + M_POLE) * GRAVITY * sin) / (LENGTH * d)
    return sc.stack([v, omega, p_acc, theta_acc])


_RK4 = {}


def rk4_function(dt=DT):
    """The Function s_next = RK4(s, u) for one interval of `dt` (input held), made once per dt."""
    key = float(dt)
    if key not in _RK4:
        def rk4(s, u):
            k1 = dynamics(s, u)
            k2 = dynamics(s + 0.5 * dt * k1, u)
            k3 = dynamics(s + 0.5 * dt * k2, u)
            k4 = dynamics(s + dt * k3, u)
            return s + (dt / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

        rk4.__name__ = f"cartpole_rk4_{round(dt * 1e6)}us"
        _RK4[key] = sc.function(sc.arg("s", NX), sc.arg("u", ()),
                                outputs=sc.arg("s_next"))(rk4)
    return _RK4[key]


# -- the plant: the same equations in NumPy, integrated more finely ------------------------

def dynamics_numpy(s, u):
    p, theta, v, omega = s
    sin, cos = np.sin(theta), np.cos(theta)
    d = M_CART + M_POLE * sin * sin
    p_acc = (u + M_POLE * sin * (LENGTH * omega * omega + GRAVITY * cos)) / d
    theta_acc = (-u * cos - M_POLE * LENGTH * omega * omega * sin * cos
                 - (M_CART + M_POLE) * GRAVITY * sin) / (LENGTH * d)
    return np.array([v, omega, p_acc, theta_acc])


def plant_step(s, u, dt=DT, substeps=SUBSTEPS):
    """The plant over one control interval: `substeps` RK4 steps of dt / substeps."""
    h = dt / substeps
    for _ in range(substeps):
        k1 = dynamics_numpy(s, u)
        k2 = dynamics_numpy(s + 0.5 * h * k1, u)
        k3 = dynamics_numpy(s + 0.5 * h * k2, u)
        k4 = dynamics_numpy(s + h * k3, u)
        s = s + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return s


# -- the NLP -------------------------------------------------------------------------------

def sizes(n=N):
    """(number of decision variables, number of constraints) for horizon n."""
    return NX * (n + 1) + NU * n, NX * (n + 1)


def split(w, n=N):
    """w -> (states (n + 1, NX), inputs (n,)); NumPy arrays or Exprs alike."""
    nxs = NX * (n + 1)
    return w[:nxs].reshape((n + 1, NX)), w[nxs:]


def stack(states, inputs):
    return np.concatenate([np.asarray(states).reshape(-1), np.asarray(inputs).reshape(-1)])


def bounds(n=N):
    """lbx, ubx: the track limit on p_1..p_n, the force limit on every u_k.

    Not on p_0: s_0 is the measured state, which the plant may have taken a little past the
    limit; bounding it too would make the problem infeasible there."""
    nw, _ = sizes(n)
    lbx, ubx = np.full(nw, -np.inf), np.full(nw, np.inf)
    nxs = NX * (n + 1)
    lbx[NX:nxs:NX], ubx[NX:nxs:NX] = -P_MAX, P_MAX
    lbx[nxs:], ubx[nxs:] = -U_MAX, U_MAX
    return lbx, ubx


def objective(w, n=N):
    """The tracking cost (Exprs or NumPy arrays)."""
    states, inputs = split(w, n)
    e = states - S_UP
    return (e[:-1] * e[:-1] * Q).sum() + (e[-1] * e[-1] * Q_N).sum() + R * (inputs * inputs).sum()


def shooting_constraints(w, s_init, n=N, dt=DT):
    """g(w) = (s_0 - s_init, s_{k+1} - RK4(s_k, u_k) for k < n): one vmap over the horizon."""
    states, inputs = split(w, n)
    predicted = sc.vmap(rk4_function(dt), n)(states[:-1], inputs)
    return sc.concat([states[0] - s_init, (states[1:] - predicted).reshape((NX * n,))])


def nlp_call(x0, s_init, n, dt, solver, qp="sparse", options=None, lam_g0=None, lam_x0=None):
    """sc.nlp of the swing-up: (w, lam_g, lam_x)."""
    lbx, ubx = bounds(n)
    _, m = sizes(n)
    return sc.nlp(lambda w, s0: objective(w, n),
                  lambda w, s0: shooting_constraints(w, s0, n, dt),
                  x0=x0, p=s_init, lbx=lbx, ubx=ubx, lbg=np.zeros(m), ubg=np.zeros(m),
                  lam_g0=lam_g0, lam_x0=lam_x0, solver=solver, qp=qp, options=options)


def make_solver(solver, n=N, dt=DT, qp="sparse", options=None):
    """A Function (s_init, w0) -> (w, lam_g, lam_x) solving the swing-up to convergence."""
    nw, _ = sizes(n)

    def body(s_init, w0):
        return nlp_call(w0, s_init, n, dt, solver, qp, options)

    body.__name__ = f"cartpole_{solver}_{qp}_n{n}_{round(dt * 1e6)}us"
    return sc.function(sc.arg("s_init", NX), sc.arg("w0", nw),
                       outputs=(sc.arg("w"), sc.arg("lam_g"), sc.arg("lam_x")))(body)


def make_rti(n=N, dt=DT, qp="sparse", options=None):
    """The NMPC controller: a Function (s, w_guess, lam_g0, lam_x0) -> (u0, w, lam_g, lam_x)
    taking one SQP step (options {"rti": "yes"}) from w_guess for the measured state s.

    A real-time iteration starts from the multipliers it is given when any is nonzero (the
    closed loop passes the previous step's), else from those of the wrapper's previous call.
    That memory belongs to the compiled wrapper, shared by every Function made by make_rti
    with the same arguments in this process: pass multipliers to start from known ones."""
    nw, m = sizes(n)
    opts = dict(options or {}, rti="yes")

    def body(s, w_guess, lam_g0, lam_x0):
        w, lam_g, lam_x = nlp_call(w_guess, s, n, dt, "sqp", qp, opts, lam_g0, lam_x0)
        return w[NX * (n + 1)], w, lam_g, lam_x

    body.__name__ = f"cartpole_rti_{qp}_n{n}_{round(dt * 1e6)}us"
    return sc.function(sc.arg("s", NX), sc.arg("w_guess", nw), sc.arg("lam_g0", m),
                       sc.arg("lam_x0", nw),
                       outputs=(sc.arg("u0"), sc.arg("w"), sc.arg("lam_g"), sc.arg("lam_x")))(body)


def rest_guess(n=N, s=S_HANG):
    """Every state at s, every input 0: for s hanging at rest, a feasible trajectory."""
    return stack(np.tile(s, (n + 1, 1)), np.zeros(n))


def shift(w, n=N):
    """A plan moved one interval ahead, its last state and input repeated."""
    states, inputs = split(w, n)
    return stack(np.vstack([states[1:], states[-1:]]), np.append(inputs[1:], inputs[-1]))


def defects(w, s_init, n=N, dt=DT):
    """Shooting residuals of w by the NumPy RK4 (one step of dt): (s_0 - s_init, ...)."""
    states, inputs = split(np.asarray(w), n)
    nxt = np.array([plant_step(states[k], inputs[k], dt, substeps=1) for k in range(n)])
    return np.concatenate([states[0] - s_init, (states[1:] - nxt).reshape(-1)])


def angle_error(theta):
    """Distance of theta from upright, modulo full turns."""
    return np.abs(np.mod(theta, 2 * np.pi) - np.pi)


# -- (a) the swing-up, solved to convergence -------------------------------------------------

TIME_KEYS = ("t_total", "t_fe", "t_solver", "t_qp", "t_globalization", "t_glue")


def swing_up(n=N, dt=DT, repeat=3, verbose=True, guess=None):
    """Solves the swing-up from hanging at rest with IPOPT and Scaly SQP.

    Returns {solver: dict(w, lam_g, lam_x, stats (the first solve), solves (the stats of
    `repeat` further solves of the same problem), t_build, t_first_call, fn (the Function))}."""
    say = print if verbose else (lambda *a, **k: None)
    w0 = rest_guess(n) if guess is None else guess
    out = {}
    for solver in ("ipopt", "sqp"):
        start = time.perf_counter()
        fn = make_solver(solver, n, dt).compile()
        t_build = time.perf_counter() - start
        start = time.perf_counter()
        w, lam_g, lam_x = fn(S_HANG, w0)
        t_first = time.perf_counter() - start
        stats = fn.stats()
        solves = []
        for _ in range(repeat):
            fn(S_HANG, w0)
            solves.append(fn.stats())
        out[solver] = dict(w=w, lam_g=lam_g, lam_x=lam_x, stats=stats, solves=solves,
                           t_build=t_build, t_first_call=t_first, fn=fn)

    nw, m = sizes(n)
    say(f"(a) swing-up from hanging at rest: N = {n}, dt = {dt} s; {nw} variables, {m} "
        f"equality constraints (x_0 and the shooting gaps), bounds |u| <= {U_MAX} N, "
        f"|p| <= {P_MAX} m; initial guess: hanging at rest throughout")
    say(f"  {'solver':<6} {'status':<8} {'iter':>4}  {'objective':>18}  {'max gap':>8}  "
        f"{'build s':>7}  {'1st solve ms':>12}  {'median ms':>9}  t_fe / t_solver / t_qp / "
        f"t_glob / t_glue ms (median)")
    for solver, o in out.items():
        st = o["stats"]
        med = sorted(o["solves"], key=lambda s: s["t_total"])[len(o["solves"]) // 2] \
            if o["solves"] else st
        gap = np.abs(defects(o["w"], S_HANG, n, dt)).max()
        split_ms = " / ".join(f"{1e3 * med[k]:.2f}" for k in TIME_KEYS[1:])
        say(f"  {solver:<6} {st['status']:<8} {st['iter']:>4}  {st['obj']:>18.10f}  {gap:>8.1e}  "
            f"{o['t_build']:>7.2f}  {1e3 * st['t_total']:>12.2f}  {1e3 * med['t_total']:>9.2f}"
            f"  {split_ms}")
        if o["solves"]:
            say(f"         iterations of the {len(o['solves'])} repeated solves (same input): "
                f"{[s['iter'] for s in o['solves']]}")
    f_i, f_s = out["ipopt"]["stats"]["obj"], out["sqp"]["stats"]["obj"]
    say(f"  objectives: |IPOPT - SQP| / |IPOPT| = {abs(f_i - f_s) / abs(f_i):.1e}; "
        f"max |w_IPOPT - w_SQP| = {np.abs(out['ipopt']['w'] - out['sqp']['w']).max():.1e}")
    return out


# -- (b) closed-loop NMPC with real-time iterations ------------------------------------------

def closed_loop(steps=200, n=N, dt=DT, substeps=SUBSTEPS, push=(100, 2.0), start=None,
                qp="sparse", verbose=True):
    """NMPC by SQP real-time iterations on the NumPy plant for `steps` intervals.

    The controller is seeded with the converged SQP solution of the swing-up from hanging at
    rest (`start`: the swing_up() result, or solved here); each interval it takes one SQP step
    from the previous plan shifted by one interval, applies u_0 and the plant runs on.
    `push` = (step, delta omega): the pole is pushed at that step (None: no push).
    Returns the logs (states, inputs, per-step stats and wall times, the plans)."""
    say = print if verbose else (lambda *a, **k: None)
    if start is None:
        full = make_solver("sqp", n, dt)
        w, lam_g, lam_x = full(S_HANG, rest_guess(n))
        assert full.stats()["status"] == "solved", full.stats()
    else:
        w, lam_g, lam_x = (start[k] for k in ("w", "lam_g", "lam_x"))
    t0 = time.perf_counter()
    rti = make_rti(n, dt, qp).compile()
    t_build = time.perf_counter() - t0

    s = S_HANG.copy()
    guess = w
    log = {k: [] for k in ("s", "u", "wall", "plan_gap", "plan_s0_err", "status", "qp_iter",
                           "n_eval_h", "iter") + TIME_KEYS}
    for k in range(steps):
        if push is not None and k == push[0]:
            s = s + np.array([0.0, 0.0, 0.0, push[1]])
        t0 = time.perf_counter()
        u0, w, lam_g, lam_x = rti(s, guess, lam_g, lam_x)
        log["wall"].append(time.perf_counter() - t0)
        st = rti.stats()
        for key in TIME_KEYS + ("qp_iter", "n_eval_h", "iter"):
            log[key].append(st[key])
        log["status"].append(st["native_status"])
        log["plan_s0_err"].append(np.abs(split(w, n)[0][0] - s).max())
        log["plan_gap"].append(np.abs(defects(w, s, n, dt)[NX:]).max())
        log["s"].append(s)
        log["u"].append(u0)
        s = plant_step(s, float(u0), dt, substeps)
        guess = shift(w, n)
    log = {k: np.array(v) for k, v in log.items()}
    log["s"] = np.vstack([log["s"], s])
    log["t_build"] = t_build
    log["controller"] = rti
    log["final"] = s
    log["upright"] = bool(angle_error(s[1]) < 0.05 and abs(s[0]) < 0.1
                          and np.abs(s[2:]).max() < 0.1)

    us = 1e6
    tt, wall = log["t_total"] * us, log["wall"] * us
    say(f"\n(b) NMPC by SQP real-time iterations (rti = yes, {qp} QP): {steps} steps of {dt} s, "
        f"plant: NumPy RK4 with {substeps} substeps"
        + (f", pole pushed by {push[1]} rad/s at step {push[0]}" if push else ""))
    say(f"  controller built in {t_build:.2f} s; statuses: "
        f"{dict(zip(*np.unique(log['status'], return_counts=True)))}")
    theta = log["s"][:, 1]
    up = np.nonzero(angle_error(theta) < 0.1)[0]
    say(f"  first within 0.1 rad of upright at t = {up[0] * dt if len(up) else float('nan'):.2f} "
        f"s; final state p = {s[0]:+.2e} m, theta - pi = {s[1] - np.pi:+.2e} rad, "
        f"v = {s[2]:+.1e}, omega = {s[3]:+.1e}: {'upright' if log['upright'] else 'NOT upright'}")
    say(f"  |u| <= {np.abs(log['u']).max():.3f} N (limit {U_MAX}), |p| <= "
        f"{np.abs(log['s'][:, 0]).max():.4f} m (limit {P_MAX}); the plans' shooting gaps "
        f"(one SQP step each): median {np.median(log['plan_gap']):.1e}, max "
        f"{log['plan_gap'].max():.1e}")
    off = np.nonzero(log["plan_s0_err"] > 1e-8)[0]
    say(f"  plans start at the measured state to {np.median(log['plan_s0_err']):.0e} (median)"
        + (f"; not on {len(off)} steps ({', '.join(map(str, off[:8]))}"
           f"{', ...' if len(off) > 8 else ''}: off by up to {log['plan_s0_err'].max():.1e}), "
           "where the cart runs into the track limit: from those states the model cannot "
           "quite stop the cart inside it (IPOPT finds the NLP there infeasible by ~1e-6), the "
           "linearized constraints are inconsistent and the step is the SQP's elastic QP's"
           if len(off) else ""))
    rest = slice(1, None)
    say("  per RTI step (us)   first call   then: mean   median    p90      max")
    say(f"    t_total (stats)  {tt[0]:>10.0f}   {tt[rest].mean():>10.1f} "
        f"{np.median(tt[rest]):>8.1f} {np.percentile(tt[rest], 90):>8.1f} {tt[rest].max():>8.1f}")
    say(f"    call (wall)      {wall[0]:>10.0f}   {wall[rest].mean():>10.1f} "
        f"{np.median(wall[rest]):>8.1f} {np.percentile(wall[rest], 90):>8.1f} "
        f"{wall[rest].max():>8.1f}")
    for key in TIME_KEYS[1:]:
        v = log[key][rest] * us
        say(f"      {key:<15}              {v.mean():>10.1f} {np.median(v):>8.1f}")
    say(f"    QP iterations per step: median {np.median(log['qp_iter'][rest]):.0f}, max "
        f"{log['qp_iter'][rest].max()}; the slowest steps: " + ", ".join(
            f"{k} ({tt[k]:.0f} us, {log['qp_iter'][k]} QP iterations)"
            for k in np.argsort(tt)[::-1][:3]))
    med = np.median(tt[rest])
    say(f"  goal: one RTI step of the N = {n} cart-pole under 100 us: median t_total "
        f"{med:.0f} us, median call {np.median(wall[rest]):.0f} us -> "
        f"{'met' if np.median(wall[rest]) < 100 else 'NOT met'}")
    return log


# -- (c) real-time iterations at a fixed state ----------------------------------------------

def rti_convergence(rti, solve, s, n=N, calls=8, verbose=True):
    """Calls the RTI controller `calls` times at the fixed state s, feeding its plan back
    unshifted (from every state at s, zero force), and measures the distance to the solution
    of `solve` (a make_solver Function) there: one SQP step per call, so Newton's rate.
    Returns (distances, step lengths) per call."""
    say = print if verbose else (lambda *a, **k: None)
    w_ref, _, _ = solve(s, rest_guess(n, s))
    assert solve.stats()["status"] == "solved", solve.stats()
    nw, m = sizes(n)
    w, lam_g, lam_x = rest_guess(n, s), np.zeros(m), np.zeros(nw)
    dist, steps = [], []
    for _ in range(calls):
        _, w, lam_g, lam_x = rti(s, w, lam_g, lam_x)
        dist.append(np.abs(w - w_ref).max())
        steps.append(rti.stats()["step_inf"])
    say(f"\n(c) the controller's RTI steps fed back at the fixed state s = {np.round(s, 3)}, from "
        f"resting there: max |w - w_solved| per call (Newton's rate)\n    "
        + "  ".join(f"{d:.1e}" for d in dist)
        + "\n  step lengths: " + "  ".join(f"{d:.1e}" for d in steps))
    return np.array(dist), np.array(steps)


def main(steps=200, verbose=True):
    start = swing_up(verbose=verbose)
    loop = closed_loop(steps, start=start["sqp"], verbose=verbose)
    conv = rti_convergence(loop["controller"], start["sqp"]["fn"],
                           np.array([0.1, np.pi - 0.4, 0.0, 0.5]), verbose=verbose)
    return start, loop, conv


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
