"""Compressed Jacobian and Hessian sweeps with infinite and NaN values (issue 33,
item 2), and patterns through products with constant matrices (item 3).

A compressed sweep seeds several columns (or rows) at once, with zeros for the
others. A plain product of a zero tangent with an infinite or NaN partial is NaN,
which spread a non-finite entry into every entry of its colour group: the
Jacobian of x[:-1]*sin(x[1:]) + exp(x[1:]) at [nan, 1, 2, 3] had J[0, 0] = nan
where it is sin(1). The sweeps are exact with zeros: every entry that does not
depend on a non-finite value is finite. References are closed forms evaluated
by NumPy, and an entry-by-entry check of which entries are non-finite.
"""
import numpy as np
import pytest

import scaly as sc

LAYOUTS = ["dense", "csc"]


def _dense(result, shape):
    return result if isinstance(result, np.ndarray) and result.shape == shape else \
        result.toarray()


def _assert_same(got, want):
    """Equal where `want` is finite (to rounding); non-finite where it is not."""
    finite = np.isfinite(want)
    assert np.all(np.isfinite(got[finite])), (got, want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-13, atol=1e-13)
    assert not np.any(np.isfinite(got[~finite])), (got, want)


@sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
def chain(x):
    return x[:-1] * sc.sin(x[1:]) + sc.exp(x[1:])


def _chain_jacobian(x):
    """d/dx of x[:-1]*sin(x[1:]) + exp(x[1:]), by its closed form."""
    J = np.zeros((3, 4))
    with np.errstate(invalid="ignore"):
        for i in range(3):
            J[i, i] = np.sin(x[i + 1])
            J[i, i + 1] = x[i] * np.cos(x[i + 1]) + np.exp(x[i + 1])
    return J


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("x", [[np.nan, 1.0, 2.0, 3.0], [1.0, 2.0, np.inf, 3.0],
                               [1.0, -np.inf, 2.0, 3.0], [0.5, 1.0, 2.0, np.nan]])
def test_issue_example_non_finite_entries_stay_put(layout, x):
    x = np.array(x)
    got = _dense(sc.jacobian(chain, layout=layout)(x), (3, 4))
    want = _chain_jacobian(x)
    _assert_same(got, want)
    # The issue's entries: sin(1) and sin(3).
    if np.isnan(x[0]):
        assert got[0, 0] == pytest.approx(np.sin(1.0))
    if np.isinf(x[2]):
        assert got[2, 2] == pytest.approx(np.sin(3.0))


def test_issue_example_agrees_with_vjp_rows():
    x = np.array([np.nan, 1.0, 2.0, 3.0])
    back = sc.vjp(chain)
    got = sc.jacobian(chain)(x)
    # J[0, 0] from the row sweep of output 0 alone, which never meets the NaN.
    assert got[0, 0] == back(x, np.array([1.0, 0.0, 0.0]))[0]


@sc.function(sc.arg("x", 5), outputs=sc.arg("y"))
def two_rows(x):
    return sc.stack([sc.sum(sc.sin(x[:-1]) * x[1:]), sc.sum(x)])


@pytest.mark.parametrize("layout", LAYOUTS)
def test_reverse_sweeps_keep_unseeded_rows_out(layout):
    # Two dense rows: the rows are coloured (two reverse sweeps). Row 1's sweep
    # gives row 0 a zero cotangent; times cos(inf) that was NaN in J[1, 0].
    x = np.array([np.inf, 1.0, 2.0, 3.0, 4.0])
    got = _dense(sc.jacobian(two_rows, layout=layout)(x), (2, 5))
    want = np.zeros((2, 5))
    with np.errstate(invalid="ignore"):
        want[0, :-1] = np.cos(x[:-1]) * x[1:]
        want[0, 1:] += np.sin(x[:-1])
    want[1] = 1.0
    _assert_same(got, want)
    np.testing.assert_array_equal(got[1], np.ones(5))


@sc.function(sc.arg("x", 5), outputs=sc.arg("f"))
def chain_sum(x):
    return sc.sum(x[:-1] * sc.sin(x[1:]) + sc.exp(x[1:]))


def _chain_sum_hessian(x):
    n = len(x)
    H = np.zeros((n, n))
    with np.errstate(invalid="ignore"):
        for j in range(1, n):
            H[j, j] = -x[j - 1] * np.sin(x[j]) + np.exp(x[j])
            H[j - 1, j] = H[j, j - 1] = np.cos(x[j])
    return H


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("x", [[np.nan, 1.0, 2.0, 3.0, 0.5], [1.0, 2.0, np.inf, 3.0, 0.5],
                               [1.0, 2.0, 3.0, 0.5, -np.inf]])
def test_hessian_sweeps(layout, x):
    x = np.array(x)
    got = _dense(sc.hessian(chain_sum, layout=layout)(x), (5, 5))
    _assert_same(got, _chain_sum_hessian(x))


A = np.array([[1.0, 0.0, 0.0, 2.0],
              [0.0, 0.0, 3.0, 0.0],
              [0.0, 4.0, 0.0, 0.0]])


@sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
def sparse_map(x):
    return A @ sc.sin(x)


def test_pattern_of_a_constant_matrix_product_is_its_structure():
    # Item 3: 4 stored entries, A's, not the 12 of a dense A.
    pattern = sc.jacobian_sparsity(sparse_map).toarray()
    np.testing.assert_array_equal(pattern != 0, A != 0)
    J = sc.jacobian(sparse_map, layout="csc")
    assert J.sparsity()[1].tolist() == [0, 1, 2, 3, 4]
    x = np.array([0.3, -1.2, 2.5, 0.7])
    np.testing.assert_allclose(J(x).toarray(), A * np.cos(x), rtol=1e-15)
    np.testing.assert_allclose(sc.jacobian(sparse_map)(x), A * np.cos(x), rtol=1e-15)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_constant_matrix_product_with_infinite_input(layout):
    # Columns 0, 1 and 2 share a colour: the sweep's tangent is NaN at x[2] =
    # inf (cos(inf)), which A's zeros must not carry into rows 0 and 2.
    x = np.array([0.3, -1.2, np.inf, 0.7])
    got = _dense(sc.jacobian(sparse_map, layout=layout)(x), (3, 4))
    with np.errstate(invalid="ignore"):
        want = np.where(A != 0, A * np.cos(x), 0.0)
    _assert_same(got, want)


@sc.function(sc.arg("m", (3, 2)), outputs=sc.arg("y"))
def right_constant(m):
    B = np.array([[0.0, 5.0, 0.0], [7.0, 0.0, 0.0]])
    return (sc.exp(m) @ B).vec()


def test_pattern_of_a_product_with_a_constant_on_the_right():
    # y[i, j] = sum_k exp(m[i, k]) B[k, j]: column 2 of B is zero, so
    # y[:, 2] depends on nothing; y[i, 0] on m[i, 1] and y[i, 1] on m[i, 0].
    B = np.array([[0.0, 5.0, 0.0], [7.0, 0.0, 0.0]])
    pattern = sc.jacobian_sparsity(right_constant).toarray() != 0
    want = np.zeros((9, 6), dtype=bool)
    for i in range(3):
        for j in range(3):
            for k in range(2):
                want[i * 3 + j, i * 2 + k] = B[k, j] != 0
    np.testing.assert_array_equal(pattern, want)
    m = np.array([[0.1, 0.2], [0.3, np.inf], [-0.5, 0.6]])
    got = sc.jacobian(right_constant)(m)
    with np.errstate(invalid="ignore"):
        expected = np.zeros((9, 6))
        for i in range(3):
            for j in range(3):
                for k in range(2):
                    if B[k, j]:
                        expected[i * 3 + j, i * 2 + k] = np.exp(m[i, k]) * B[k, j]
    _assert_same(got, expected)


@sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
def outer(x):
    return (x[:2].reshape((2, 1)) @ x[2:].reshape((1, 2))).vec()


@pytest.mark.parametrize("layout", LAYOUTS)
def test_product_of_two_variable_matrices_with_infinite_factor(layout):
    # y[2i + j] = x[i] x[2 + j]. The sweep seeding x[2], x[3] multiplies the
    # zero tangent of x[:2] by x[2:] = [inf, .]; J[0, 2] = x[0] stays finite.
    x = np.array([1.5, -2.0, np.inf, 3.0])
    got = _dense(sc.jacobian(outer, layout=layout)(x), (4, 4))
    want = np.zeros((4, 4))
    for i in range(2):
        for j in range(2):
            want[2 * i + j, i] = x[2 + j]
            want[2 * i + j, 2 + j] = x[i]
    _assert_same(got, want)


def test_finite_inputs_unchanged_against_finite_differences():
    rng = np.random.default_rng(3)
    for f, n in ((chain, 4), (sparse_map, 4), (outer, 4)):
        x = rng.normal(size=n)
        J = sc.jacobian(f)(x)
        h = 1e-6
        fd = np.stack([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(n)], axis=1)
        np.testing.assert_allclose(J, fd, rtol=1e-6, atol=1e-8)


def _shooting_chain():
    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=sc.arg("t"))
    def lane_step(s, u):
        return s + 0.1 * sc.stack([s[1] * sc.exp(s[0]), sc.sin(s[0]) * u / (1.0 + s[1] * s[1])])

    @sc.function(sc.arg("w", 50), outputs=sc.arg("g"))
    def lane_chain(w):
        states, inputs = w[:34].reshape((17, 2)), w[34:]
        return (states[1:] - sc.vmap(lane_step, 16)(states[:-1], inputs)).reshape((32,))

    return lane_chain


@pytest.mark.parametrize("lanes", [2, 4, 8, "auto"])
def test_exact_sweeps_widen_to_lanes_and_compile_warning_free(tmp_path, lanes):
    # The exact products' compares and selects become lane masks and a bitwise
    # blend: the sweep over a vmapped model is widened (it used to stay scalar,
    # 3-9x slower than plain products), and gcc and clang accept the C.
    import shutil
    import subprocess

    from scaly.codegen import render_c_module
    J = sc.jacobian(_shooting_chain(), layout="csc")
    module = render_c_module(J, lanes=lanes, name="lane_sweeps")
    assert "scaly_select_f64x" in module.source
    module.write(str(tmp_path))
    for cc in ("gcc", "clang-19"):
        if shutil.which(cc) is None:
            continue
        for arch in ("-march=native", "-march=x86-64"):
            proc = subprocess.run([cc, "-O3", arch, "-Wall", "-Wextra", "-Werror", "-c",
                                   str(tmp_path / "lane_sweeps.c"), "-o", str(tmp_path / "o.o")],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, (cc, arch, proc.stderr)


def test_widened_exact_sweeps_keep_non_finite_entries_put():
    chain = _shooting_chain()
    J = sc.jacobian(chain, layout="csc")
    w = np.sin(np.arange(50.0))
    eps = 1e-6
    fd = np.array([(chain(w + eps * e) - chain(w - eps * e)) / (2 * eps) for e in np.eye(50)]).T
    np.testing.assert_allclose(J(w).toarray(), fd, atol=1e-7)
    # An infinite state: the entries of the other stages (every lane but its
    # own, sharing colours with it) stay equal to the finite point's.
    bad = w.copy()
    bad[7] = np.inf  # state 3's second component: stage 3's rows and stage 2's result
    got, ref = J(bad).toarray(), J(w).toarray()
    rows = [r for r in range(32) if r // 2 not in (2, 3)]
    np.testing.assert_array_equal(got[rows], ref[rows])
