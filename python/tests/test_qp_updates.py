"""The QP solver over sequences of problems: warm starts from earlier solutions, and
updates of a QPSolver's data (values, bounds, patterns) checked against fresh solves.

Solutions are checked from x, y, z and z_box alone with qputil's NumPy KKT check.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from scaly.solvers import QPSolver
from qputil import (BACKENDS, INF, TIGHT, random_qp, as_kind, solve, names, assert_kkt,
                    qp_solver)


def perturbed(prob, seed, size=1e-3):
    rng = np.random.default_rng(seed)
    new = dict(prob)
    new["c"] = prob["c"] + size * rng.standard_normal(len(prob["c"]))
    new["b"] = prob["b"] + size * rng.standard_normal(len(prob["b"]))
    shift = size * rng.standard_normal(len(prob["h_l"]))
    new["h_l"] = prob["h_l"] + shift
    new["h_u"] = prob["h_u"] + shift
    return new


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [50, 51])
def test_warm_start_no_more_iterations(backend, seed):
    prob = random_qp(seed, 30, 5, 20)
    first = solve(prob, backend)
    assert first.status == "solved"
    new = perturbed(prob, seed)
    cold = solve(new, backend)
    warm = solve(new, backend, x0=first.x, y0=first.y, z0=first.z, z_box0=first.z_box)
    assert_kkt(new, cold)
    assert_kkt(new, warm)
    np.testing.assert_allclose(warm.x, cold.x, atol=1e-8)
    assert warm.iter <= cold.iter, (warm.iter, cold.iter)


@pytest.mark.parametrize("backend", BACKENDS)
def test_warm_start_through_solver_object(backend):
    prob = random_qp(52, 30, 5, 20)
    solver = QPSolver(prob["P"], prob["c"], A=prob["A"], b=prob["b"], G=prob["G"],
                      h_l=prob["h_l"], h_u=prob["h_u"], x_l=prob["x_l"], x_u=prob["x_u"],
                      backend=backend, options=TIGHT)
    first = solver.solve()
    assert_kkt(prob, first)
    new = perturbed(prob, 52)
    solver.update(c=new["c"], b=new["b"], h_l=new["h_l"], h_u=new["h_u"])
    cold = solver.solve()
    warm = solver.solve(x0=first.x, y0=first.y, z0=first.z, z_box0=first.z_box)
    assert_kkt(new, cold)
    assert_kkt(new, warm)
    assert warm.iter <= cold.iter, (warm.iter, cold.iter)
    # A warm start from the exact solution of the same problem: still correct.
    again = solver.solve(x0=warm.x, y0=warm.y, z0=warm.z, z_box0=warm.z_box)
    assert_kkt(new, again)
    assert again.iter <= cold.iter


@pytest.mark.parametrize("backend", BACKENDS)
def test_partial_warm_start(backend):
    prob = random_qp(53, 20, 3, 10)
    ref = solve(prob, backend)
    for kw in ({"x0": ref.x}, {"y0": ref.y, "z0": ref.z}, {"z_box0": ref.z_box},
               {"x0": np.full(20, 1e3)}):
        res = solve(prob, backend, **kw)
        assert_kkt(prob, res)
        np.testing.assert_allclose(res.x, ref.x, atol=1e-8)


def same_pattern_values(M, rng):
    """New values on exactly the nonzero pattern of M."""
    out = np.array(M, dtype=float)
    nz = out != 0
    out[nz] = rng.standard_normal(nz.sum())
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["dense", "csc"])
def test_update_matches_fresh_solve(backend, kind):
    prob = random_qp(60, 25, 4, 15)
    solver = qp_solver(as_kind(prob, kind), backend)
    assert_kkt(prob, solver.solve())
    rng = np.random.default_rng(60)
    new = perturbed(prob, 61, size=0.05)
    # Matrices: new values on the same patterns; P diagonally dominant (positive definite).
    U = same_pattern_values(np.triu(prob["P"]), rng)
    Pn = U + np.triu(U, 1).T
    Pn += np.diag(np.abs(Pn).sum(1) - np.abs(np.diag(Pn)) + 0.5 - np.diag(Pn))
    assert np.all(np.diag(Pn) > 0) and np.array_equal(Pn != 0, prob["P"] != 0)
    A_new = prob["A"] + 0.1 * np.where(prob["A"] != 0, rng.standard_normal(prob["A"].shape), 0)
    G_new = prob["G"] + 0.1 * np.where(prob["G"] != 0, rng.standard_normal(prob["G"].shape), 0)
    x_feas = np.linalg.lstsq(A_new, new["b"], rcond=None)[0]
    g = G_new @ x_feas
    new.update(P=Pn, A=A_new, G=G_new)
    # Keep the problem feasible around x_feas (the bounds' kinds unchanged).
    new["h_l"] = np.where(np.isfinite(prob["h_l"]), g - np.where(
        prob["h_l"] == prob["h_u"], 0.0, 0.3), -INF)
    new["h_u"] = np.where(np.isfinite(prob["h_u"]), g + np.where(
        prob["h_l"] == prob["h_u"], 0.0, 0.3), INF)
    new["x_l"] = np.where(np.isfinite(prob["x_l"]), x_feas - 0.4, -INF)
    new["x_u"] = np.where(np.isfinite(prob["x_u"]), x_feas + 0.4, INF)
    newk = as_kind(new, kind)
    solver.update(c=new["c"], b=new["b"], h_l=new["h_l"], h_u=new["h_u"], x_l=new["x_l"],
                  x_u=new["x_u"], P=newk["P"], A=newk["A"], G=newk["G"])
    got = solver.solve()
    fresh = solve(newk, backend)
    assert_kkt(new, got)
    assert_kkt(new, fresh)
    np.testing.assert_allclose(got.x, fresh.x, rtol=0, atol=1e-8)
    np.testing.assert_allclose(got.y, fresh.y, rtol=0, atol=1e-7)


def new_values_same_pattern(prob, rng):
    """prob with new values for P (kept positive definite), A, G on their patterns and a
    little moved c: an SQP's next model."""
    U = same_pattern_values(np.triu(prob["P"]), rng)
    Pn = U + np.triu(U, 1).T
    Pn += np.diag(np.abs(Pn).sum(1) - np.abs(np.diag(Pn)) + 0.5 - np.diag(Pn))
    A_new = prob["A"] + 0.1 * np.where(prob["A"] != 0, rng.standard_normal(prob["A"].shape), 0)
    G_new = prob["G"] + 0.1 * np.where(prob["G"] != 0, rng.standard_normal(prob["G"].shape), 0)
    return dict(prob, P=Pn, A=A_new, G=G_new, c=prob["c"] + 0.01 * rng.standard_normal(
        len(prob["c"])))


def assert_same_bits(got, fresh):
    for key in ("x", "y", "z", "z_box"):
        np.testing.assert_array_equal(getattr(got, key), getattr(fresh, key), err_msg=key)
    assert got.iter == fresh.iter


@pytest.mark.parametrize("backend", BACKENDS)
def test_updates_of_matrix_values_match_fresh_solves_exactly(backend):
    """New matrix values on unchanged patterns are equilibrated again in place, and the sparse
    backend keeps its ordering and symbolic factorization: every solve of a sequence of such
    updates gives the bits a solver set up on that data gives; then a new pattern (a G entry
    more) is set up anew, and values on it again match a fresh solver."""
    rng = np.random.default_rng(66)
    prob = random_qp(66, 25, 4, 15)
    solver = qp_solver(as_kind(prob, "csc"), backend)
    assert_same_bits(solver.solve(), solve(as_kind(prob, "csc"), backend))
    for _ in range(3):
        prob = new_values_same_pattern(prob, rng)
        k = as_kind(prob, "csc")
        solver.update(c=k["c"], P=k["P"], A=k["A"], G=k["G"])
        got = solver.solve()
        assert_kkt(prob, got)
        assert_same_bits(got, solve(k, backend))
    # A new pattern: one more entry in G.
    zero = np.argwhere(prob["G"] == 0)[0]
    G2 = prob["G"].copy()
    G2[tuple(zero)] = 0.5
    prob = dict(prob, G=G2)
    for _ in range(2):
        k = as_kind(prob, "csc")
        solver.update(c=k["c"], P=k["P"], A=k["A"], G=k["G"])
        got = solver.solve()
        assert_kkt(prob, got)
        assert_same_bits(got, solve(k, backend))
        prob = new_values_same_pattern(prob, rng)


def scaled_entries(prob, rng, size):
    """prob with every entry of P, A and G multiplied by 1 + size * (a uniform in [-1, 1]),
    P kept symmetric (and positive definite: shifted when an eigenvalue fell below 0.1)."""
    out = dict(prob)
    for key in ("A", "G"):
        out[key] = prob[key] * (1 + size * rng.uniform(-1, 1, prob[key].shape))
    U = np.triu(1 + size * rng.uniform(-1, 1, prob["P"].shape))
    Pn = prob["P"] * (U + np.triu(U, 1).T)
    out["P"] = Pn + max(0.0, 0.1 - np.linalg.eigvalsh(Pn).min()) * np.eye(len(Pn))
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_preconditioner_reuse_keeps_the_scaling_while_it_still_balances(backend):
    """preconditioner_reuse = 1.1: matrices whose entries moved by 1e-4 keep the previous
    equilibration (the solve satisfies the KKT conditions to the tolerance); entries that moved by up to 50 % are equilibrated afresh (exactly the
    bits of a fresh solver's solve). 0, the default, always equilibrates afresh."""
    rng = np.random.default_rng(67)
    prob = random_qp(67, 25, 4, 15)
    reuse = dict(TIGHT, preconditioner_reuse=1.1)
    solver = qp_solver(as_kind(prob, "csc"), backend, options=reuse)
    always = qp_solver(as_kind(prob, "csc"), backend)
    assert_same_bits(solver.solve(), solve(as_kind(prob, "csc"), backend))
    near = scaled_entries(prob, rng, 1e-4)
    k = as_kind(near, "csc")
    for s in (solver, always):
        s.update(P=k["P"], A=k["A"], G=k["G"])
    got, fresh = solver.solve(), solve(k, backend)
    assert_kkt(near, got)
    assert_same_bits(always.solve(), fresh)
    # Solved with the first problem's scaling. Scalings are powers of two, so a fresh
    # equilibration of entries that moved by 1e-4 mostly rounds to the same ones: the bits
    # may or may not differ from the fresh solve's; the solution must agree.
    np.testing.assert_allclose(got.x, fresh.x, atol=1e-8)
    far = scaled_entries(near, rng, 0.5)
    k = as_kind(far, "csc")
    solver.update(P=k["P"], A=k["A"], G=k["G"])
    got = solver.solve()
    assert_kkt(far, got)
    assert_same_bits(got, solve(k, backend))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", [70, 71, 72])
def test_duality_gap_in_double_solves_the_same_problems(backend, seed):
    """duality_gap_extended = 0 sums the gap in double: at the default tolerances the solve
    meets the KKT conditions and lands on the extended-precision solve's solution."""
    prob = random_qp(seed, 30, 5, 20)
    extended = solve(prob, backend, options={})
    double = solve(prob, backend, options={"duality_gap_extended": 0})
    assert extended.status == double.status == "solved"
    assert_kkt(prob, double, tol=1e-6)
    np.testing.assert_allclose(double.x, extended.x, atol=1e-7)
    np.testing.assert_allclose(double.obj, extended.obj, rtol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("key", ["c", "b", "h_l", "h_u", "x_l", "x_u"])
def test_update_each_argument_alone(backend, key):
    """One argument updated: the same as a fresh solve, and a different answer than before.

    Bounds are loosened where they are active (the problem stays feasible, the optimum moves).
    """
    base = random_qp(65, 15, 3, 10)
    solver = qp_solver(base, backend)
    first = solver.solve()
    assert_kkt(base, first)
    rng = np.random.default_rng(65)
    size = len(base[key])
    eq = base["h_l"] == base["h_u"]
    change = {"c": 0.5 * rng.standard_normal(size), "b": 0.01 * rng.standard_normal(size),
              "h_l": np.where((first.z < -1e-6) & ~eq, -0.05, 0.0),
              "h_u": np.where((first.z > 1e-6) & ~eq, 0.05, 0.0),
              "x_l": np.where(first.z_box < -1e-6, -0.05, 0.0),
              "x_u": np.where(first.z_box > 1e-6, 0.05, 0.0)}[key]
    assert np.any(change != 0)
    new = dict(base, **{key: base[key] + change})
    solver.update(**{key: new[key]})
    got = solver.solve()
    fresh = solve(new, backend)
    assert_kkt(new, fresh)
    assert_kkt(new, got)
    np.testing.assert_allclose(got.x, fresh.x, atol=1e-8)
    assert np.max(np.abs(got.x - first.x)) > 1e-4  # the update changed the answer


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_bounds_between_finite_and_infinite(backend):
    """A bound that becomes finite (or infinite) on update: the same as a fresh solve."""
    prob = random_qp(63, 20, 3, 10)
    solver = qp_solver(prob, backend)
    assert_kkt(prob, solver.solve())
    new = dict(prob)
    new["x_u"] = np.where(np.isfinite(prob["x_u"]), INF, prob["x_l"] + 1.0)
    new["x_u"][np.isinf(prob["x_l"]) & np.isinf(prob["x_u"])] = 5.0
    new["h_u"] = np.where(prob["h_l"] == prob["h_u"], prob["h_u"], INF)
    solver.update(x_u=new["x_u"], h_u=new["h_u"])
    got = solver.solve()
    fresh = solve(new, backend)
    assert_kkt(new, fresh)
    assert_kkt(new, got)
    np.testing.assert_allclose(got.x, fresh.x, atol=1e-8)
    # ... and back.
    solver.update(x_u=prob["x_u"], h_u=prob["h_u"])
    back = solver.solve()
    assert_kkt(prob, back)


BAD_UPDATES = [
    pytest.param("c", np.ones(14), id="c-short"),
    pytest.param("c", np.full(15, np.nan), id="c-nan"),
    pytest.param("b", np.ones(4), id="b"),
    pytest.param("h_u", np.ones(9), id="h_u"),
    pytest.param("x_l", np.ones(16), id="x_l"),
    pytest.param("x0", None, id="unknown-name"),
    pytest.param("A", np.ones((3, 16)), id="A"),
    pytest.param("G", np.ones((8, 14)), id="G"),
    pytest.param("P", np.eye(14), id="P"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name,value", BAD_UPDATES)
def test_bad_update_keeps_previous_data(backend, name, value):
    prob = random_qp(64, 15, 3, 8)
    solver = qp_solver(prob, backend)
    ref = solver.solve()
    with pytest.raises((ValueError, TypeError)) as info:
        solver.update(**{name: value})
    assert names(str(info.value), name), str(info.value)
    res = solver.solve()
    assert_kkt(prob, res)
    np.testing.assert_allclose(res.x, ref.x, atol=1e-10)


# (array, entry, value, accepted): a value on the setup's own patterns, past the Python
# layer's checks, as a C caller (Scaly SQP) hands it to scaly_qp_update.
C_UPDATES = [
    pytest.param("P", 3, np.nan, False, id="P-nan"),
    pytest.param("A", 0, np.inf, False, id="A-inf"),
    pytest.param("G", 5, -np.inf, False, id="G-minus-inf"),
    pytest.param("c", 2, np.inf, False, id="c-inf"),
    pytest.param("b", 1, np.nan, False, id="b-nan"),
    pytest.param("h_l", 0, np.nan, False, id="h_l-nan"),
    pytest.param("x_u", 4, np.nan, False, id="x_u-nan"),
    pytest.param("x_l", 4, -np.inf, True, id="x_l-minus-inf"),
    pytest.param("h_u", 1, np.inf, True, id="h_u-inf"),
    pytest.param("c", 2, 1e300, True, id="c-huge"),
]


@pytest.mark.parametrize("name,entry,value,accepted", C_UPDATES)
def test_c_update_on_the_same_patterns_checks_every_value(name, entry, value, accepted):
    """An update keeping the setup's matrix patterns has only its values checked (the
    patterns were checked at setup): each check as on new data, the message naming the
    entry; an accepted update solves as a fresh solver on the same data does."""
    import ctypes
    from scaly.solvers._native import qp_library

    prob = random_qp(66, 12, 2, 6)
    solver = qp_solver(prob, "sparse")
    ref = solver.solve()
    data = solver._problem
    array = getattr(data, name)
    array = array.data if hasattr(array, "indptr") else array
    old = array[entry]
    array[entry] = value
    err = ctypes.create_string_buffer(512)
    status = qp_library().scaly_qp_update(solver._handle, ctypes.byref(data.data), err, 512)
    message = err.value.decode()
    if not accepted:
        assert status != 0 and message.startswith(name), message
        array[entry] = old
        np.testing.assert_allclose(solver.solve().x, ref.x, atol=1e-10)  # previous data kept
        return
    assert status == 0, message
    fresh = qp_solver({k: getattr(data, k) for k in ("P", "c", "A", "b", "G", "h_l", "h_u",
                                                      "x_l", "x_u")}, "sparse")
    np.testing.assert_allclose(solver.solve().x, fresh.solve().x, rtol=0, atol=1e-9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_update_with_a_new_pattern_is_rejected_or_correct(backend):
    """A P with an entry outside the setup pattern: an error naming P, or the right answer."""
    prob = random_qp(65, 10, 2, 5, density=0.2)
    solver = qp_solver(prob, backend)
    solver.solve()
    P2 = prob["P"] + 0.1 * np.ones((10, 10))
    try:
        solver.update(P=sp.csc_matrix(P2))
    except ValueError as e:
        assert names(str(e), "P"), str(e)
        assert_kkt(prob, solver.solve())
        return
    res = solver.solve()
    assert_kkt(dict(prob, P=P2), res)
