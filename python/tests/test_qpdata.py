"""qpdata: the Maros-Meszaros loader, its conversion to solve_qp's form and its independent checker,
tested on hand-made problems (no solver needed)."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

import qpdata
from qpdata import Problem, check_solution, is_success

INF = 1e20


def two_variable_problem():
    """min 1/2 |x|^2 - x1 - 3 x2  s.t.  x1 + x2 <= 1,  -x1 <= 0,  x1 - x2 >= -5.

    The optimum is x = (0, 1): the first two rows are active at their upper bounds, with
    multipliers y = (2, 1) (x + q + A'y = (0 - 1 + 2 - 1, 1 - 3 + 2) = 0); the third is inactive.
    The duality gap x'x + q'x + 1*2 + 0*1 = 1 - 3 + 2 = 0.
    """
    P = sp.identity(2, format="csc")
    q = np.array([-1.0, -3.0])
    A = sp.csc_matrix(np.array([[1.0, 1.0], [-1.0, 0.0], [1.0, -1.0]]))
    l = np.array([-INF, -INF, -5.0])
    u = np.array([1.0, 0.0, INF])
    return Problem("TWO", P, q, [[0.0]], A, l, u), np.array([0.0, 1.0]), np.array([2.0, 1.0, 0.0])


def test_check_solution_zero_at_the_optimum():
    prob, x, y = two_variable_problem()
    res = check_solution(prob, x, y)
    assert res == (0.0, 0.0, 0.0)
    assert is_success("high_accuracy", "solved", res)
    assert not is_success("high_accuracy", "max_iter", res)
    assert prob.objective(x) == pytest.approx(0.5 - 3.0)


def test_check_solution_positive_at_perturbed_points():
    prob, x, y = two_variable_problem()
    # x1 < 0 violates -x1 <= 0 by 1e-3; x1 + x2 <= 1 still holds.
    res = check_solution(prob, x + np.array([-1e-3, 0.0]), y)
    assert res.primal == pytest.approx(1e-3)
    assert res.dual == pytest.approx(1e-3)
    assert res.gap > 0
    # x2 above 1 violates the first row.
    res = check_solution(prob, x + np.array([0.0, 2e-3]), y)
    assert res.primal == pytest.approx(2e-3)
    assert res.dual == pytest.approx(2e-3)
    # A feasible interior point: no primal residual, but dual residual and gap.
    res = check_solution(prob, np.array([0.25, 0.25]), y)
    assert res.primal == 0.0 and res.dual > 0.1 and res.gap > 0.1
    # Wrong multipliers at the right x.
    res = check_solution(prob, x, y + np.array([1e-4, 0.0, 0.0]))
    assert res.primal == 0.0
    assert res.dual == pytest.approx(1e-4)
    assert res.gap == pytest.approx(1e-4)
    assert not is_success("high_accuracy", "solved", res)
    assert is_success("default", "solved", res)
    # A nonzero multiplier on an infinite side is a failure: row 3 has no upper bound.
    res = check_solution(prob, x, y + np.array([0.0, 0.0, 1e-30]))
    assert res.gap == np.inf
    assert not is_success("default", "solved", res)
    # ... and so is one on the absent lower side of row 1.
    res = check_solution(prob, x, np.array([2.0, 1.0, 0.0]) * np.array([1, -1, 1]))
    assert res.gap == np.inf
    # Non-finite values.
    assert check_solution(prob, np.array([np.nan, 1.0]), y) == (np.inf, np.inf, np.inf)


def three_variable_problem():
    """Rows: an equality, a singleton with a negative coefficient (active), a general row
    (active), a singleton bound (inactive, its upper side just below 1e20), a free row, and a
    second singleton on an already bounded column (inactive).

    x* = (0.35, 0.5, 0.15); q is chosen so that x* with multipliers y* is optimal.
    """
    A = np.array([
        [1.0, 1.0, 1.0],   # r0: = 1                 y =  0.7
        [0.0, -2.0, 0.0],  # r1: -2 x2 >= -1          y = -0.25 (lower side of the row)
        [1.0, 0.0, -1.0],  # r2: x1 - x3 <= 0.2       y =  0.4
        [1.0, 0.0, 0.0],   # r3: 0 <= x1 (<= 9.99e19) y =  0
        [0.0, 0.0, 1.0],   # r4: free                 y =  0
        [0.0, 3.0, 0.0],   # r5: -3 <= 3 x2 <= 3      y =  0
    ])
    l = np.array([1.0, -1.0, -INF, 0.0, -INF, -3.0])
    u = np.array([1.0, INF, 0.2, 9.99999999e19, INF, 3.0])
    P = sp.csc_matrix(np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    x = np.array([0.35, 0.5, 0.15])
    y = np.array([0.7, -0.25, 0.4, 0.0, 0.0, 0.0])
    q = -(P @ x + A.T @ y)
    return Problem("THREE", P, q, [[0.0]], sp.csc_matrix(A), l, u), x, y


def test_three_variable_problem_is_optimal():
    prob, x, y = three_variable_problem()
    res = check_solution(prob, x, y)
    assert res.max() < 1e-15


def test_to_scaly_conversion():
    prob, x, y = three_variable_problem()
    kw = prob.to_scaly()
    conv = prob.conversion()
    assert list(conv.eq_rows) == [0]
    assert list(conv.box_rows) == [1, 3] and list(conv.box_cols) == [1, 0]
    assert list(conv.box_coef) == [-2.0, 1.0]
    assert list(conv.g_rows) == [2, 5]
    assert list(conv.free_rows) == [4]
    np.testing.assert_array_equal(kw["A"].toarray(), [[1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(kw["b"], [1.0])
    np.testing.assert_array_equal(kw["G"].toarray(), [[1.0, 0.0, -1.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(kw["h_l"], [-np.inf, -3.0])
    np.testing.assert_array_equal(kw["h_u"], [0.2, 3.0])
    # -2 x2 >= -1  <=>  x2 <= 0.5; the bound just below 1e20 is read as infinite.
    np.testing.assert_array_equal(kw["x_l"], [0.0, -np.inf, -np.inf])
    np.testing.assert_array_equal(kw["x_u"], [np.inf, 0.5, np.inf])
    # Only P's upper triangle is passed.
    np.testing.assert_array_equal(kw["P"].toarray(), np.triu(prob.P.toarray()))
    np.testing.assert_array_equal(kw["c"], prob.q)
    assert sp.isspmatrix_csc(kw["A"]) and sp.isspmatrix_csc(kw["G"])


def test_multipliers_round_trip():
    prob, x, y_orig = three_variable_problem()
    kw = prob.to_scaly()
    conv = prob.conversion()
    # solve_qp's multipliers at x*, derived by hand: y for the equality, z for the G rows
    # (x1 - x3 <= 0.2 active on its upper side), z_box for the bound x2 <= 0.5 (upper: > 0),
    # = a * y_orig = -2 * -0.25.
    y, z, z_box = np.array([0.7]), np.array([0.4, 0.0]), np.array([0.0, 0.5, 0.0])
    for got, want in zip(conv.converted_multipliers(y_orig), (y, z, z_box)):
        np.testing.assert_allclose(got, want)
    # They satisfy solve_qp's convention on the converted problem: P x + c + A'y + G'z + z_box = 0
    # (P symmetric from its upper triangle).
    Pu = kw["P"].toarray()
    Pfull = Pu + np.triu(Pu, 1).T
    stationarity = Pfull @ x + kw["c"] + kw["A"].T @ y + kw["G"].T @ z + z_box
    np.testing.assert_allclose(stationarity, 0.0, atol=1e-15)
    assert np.all(kw["A"] @ x == kw["b"])
    assert np.all(kw["G"] @ x <= kw["h_u"] + 1e-15) and np.all(kw["G"] @ x >= kw["h_l"])
    assert np.all(x <= kw["x_u"]) and np.all(x >= kw["x_l"])
    # Back to the original rows: exactly y_orig.
    back = prob.original_multipliers(y, z, z_box)
    np.testing.assert_allclose(back, y_orig, rtol=0, atol=1e-15)
    assert check_solution(prob, x, back).max() < 1e-15

    class Result:
        pass

    res = Result()
    res.x, res.y, res.z, res.z_box = x, y, z, z_box
    np.testing.assert_allclose(prob.multipliers_from_result(res), y_orig, atol=1e-15)
    # A bound with a negative coefficient maps the sign: z_box < 0 (x2 on a lower bound) is a
    # positive multiplier of the row -2 x2 (its upper side).
    assert prob.original_multipliers(y, z, np.array([0.0, -1.0, 0.0]))[1] == 0.5


def test_conversion_keeps_the_stationarity_random():
    prob, _, _ = three_variable_problem()
    conv = prob.conversion()
    kw = prob.to_scaly()
    rng = np.random.default_rng(0)
    for _ in range(5):
        y_orig = rng.standard_normal(prob.m)
        y_orig[conv.free_rows] = 0.0
        y, z, z_box = conv.converted_multipliers(y_orig)
        np.testing.assert_allclose(prob.A.T @ y_orig,
                                   kw["A"].T @ y + kw["G"].T @ z + z_box, atol=1e-14)
        np.testing.assert_allclose(conv.original_multipliers(y, z, z_box), y_orig, atol=1e-15)


have_data = pytest.mark.skipif(not os.path.isdir(qpdata.DATA_DIR),
                               reason=f"no Maros-Meszaros data in {qpdata.DATA_DIR}")


@have_data
def test_names():
    names = qpdata.names()
    assert len(names) == 137 and names == sorted(names)
    assert "QAFIRO" in names and "EXDATA" not in names


@have_data
@pytest.mark.parametrize("name", ["QAFIRO", "QADLITTL", "KSIP", "QBRANDY", "HS21", "PRIMALC1"])
def test_conversion_of_stored_problems(name):
    """Every row lands in exactly one place, the converted rows are the same constraints
    (checked at random points) and multipliers round-trip."""
    prob = qpdata.load_maros_meszaros(name)
    conv = prob.conversion()
    kw = prob.to_scaly()
    rows = np.concatenate([conv.eq_rows, conv.g_rows, conv.box_rows, conv.free_rows])
    assert sorted(rows) == list(range(prob.m))
    assert len(set(conv.box_cols)) == len(conv.box_cols)
    l, u = qpdata._infinite(prob.l), qpdata._infinite(prob.u)
    assert np.all(np.isinf(l[conv.free_rows]) & np.isinf(u[conv.free_rows]))
    rng = np.random.default_rng(1)
    for _ in range(3):
        x = rng.standard_normal(prob.n) * 10
        Ax = prob.A @ x
        inside = (Ax >= l) & (Ax <= u)
        if kw["G"] is not None:
            Gx = kw["G"] @ x
            np.testing.assert_array_equal((Gx >= kw["h_l"]) & (Gx <= kw["h_u"]),
                                          inside[conv.g_rows])
        # Bounds: compare with the original rows, allowing for rounding in l/a and u/a.
        xb = x[conv.box_cols]
        tol = 1e-12 * (1 + np.abs(xb))
        in_box = (xb >= kw["x_l"][conv.box_cols] - tol) & (xb <= kw["x_u"][conv.box_cols] + tol)
        np.testing.assert_array_equal(in_box, inside[conv.box_rows])
        y_orig = rng.standard_normal(prob.m)
        y_orig[conv.free_rows] = 0.0
        y, z, z_box = conv.converted_multipliers(y_orig)
        lhs = prob.A.T @ y_orig
        rhs = z_box.copy()
        if kw["A"] is not None:
            rhs += kw["A"].T @ y
        if kw["G"] is not None:
            rhs += kw["G"].T @ z
        np.testing.assert_allclose(lhs, rhs, atol=1e-10)
        np.testing.assert_allclose(conv.original_multipliers(y, z, z_box), y_orig, atol=1e-14)
    # Unbounded columns carry no bound multiplier.
    free_cols = np.setdiff1d(np.arange(prob.n), conv.box_cols)
    assert np.all(np.isinf(kw["x_l"][free_cols]) & np.isinf(kw["x_u"][free_cols]))


def test_gap_is_exact():
    """Objective-sized terms (1e8) cancel in the gap: in double precision its value is rounded to
    a multiple of 2^-26 or so; check_solution's matches exact rational arithmetic."""
    from fractions import Fraction

    rng = np.random.default_rng(3)
    n, m = 40, 30
    P = np.diag(rng.uniform(1, 2, n)) * 100
    A = rng.standard_normal((m, n))
    x = rng.uniform(500, 1500, n)
    y = rng.standard_normal(m) * 1e3
    l = np.where(y < 0, A @ x, -INF)
    u = np.where(y > 0, A @ x, INF)
    q = -(P @ x + A.T @ y)
    prob = Problem("BIG", sp.csc_matrix(P), q, [[0.0]], sp.csc_matrix(A), l, u)
    F = Fraction
    Px = [sum(F(P[i, j]) * F(x[j]) for j in range(n)) for i in range(n)]
    exact = (sum(F(x[i]) * Px[i] for i in range(n)) + sum(F(q[i]) * F(x[i]) for i in range(n))
             + sum(F(u[i]) * F(y[i]) for i in range(m) if y[i] > 0)
             + sum(F(l[i]) * F(y[i]) for i in range(m) if y[i] < 0))
    assert check_solution(prob, x, y).gap == abs(float(exact))
    dbl = check_solution(prob, x, y, precision="double")
    assert abs(dbl.gap - abs(float(exact))) <= 1e-5
    # Dual residual (extended precision) against exact arithmetic too.
    dual = max(abs(Px[i] + F(q[i]) + sum(F(A[k, i]) * F(y[k]) for k in range(m)))
               for i in range(n))
    assert abs(check_solution(prob, x, y).dual - float(dual)) <= 1e-12
