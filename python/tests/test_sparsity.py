"""Exact Jacobian/Hessian sparsity, colourings and compressed-column outputs.

Everything is checked against references that do not go through Scaly's
sparsity analysis or differentiation:

* SymPy: each body is written once against a namespace `m` (`SC`: `sc` with
  comparisons as functions, for tracing; `SY`: SymPy on object arrays), and
  an entry is structurally nonzero iff its SymPy derivative is not
  identically 0. `sc.jacobian_sparsity` (and `.sparsity()` of the csc
  Functions) must equal that pattern EXACTLY.
* central finite differences of the compiled primal Function (first and
  second order), NumPy evaluations of analytic derivatives;
* direct graph checks of the colourings (`_scaly.colour_columns`,
  `_scaly.colour_rows`, `_scaly.star_colouring`): validity, the star
  property (no two-coloured path on four vertices) and exact recovery;
* the rendered C module compiled with gcc and clang-19 from a C driver that
  uses the header's NROW/NCOL/NNZ/COLIND/ROW macros.

Patterns and compressed-column values are here; colourings, large n, the C
header tables and bad input are in test_sparsity_colourings.py; the shared
helpers (SymPy namespaces, `Sym`, the luksan chain, the pattern cases) in
symbolic.py.
"""

import functools

import numpy as np
import pytest
import scipy.sparse

import scaly as sc
from scaly import _scaly
from symbolic import (FD_TOL, PATTERN_CASES, SC, SPARSE_TIGHT, Sym, assert_same_pattern,
                      assert_star_colouring, assert_star_recovery, build, fd_jacobian,
                      luksan_chain, luksan_constraint_body, luksan_jacobian_numpy,
                      pattern_function, rng, structural)


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """A private JIT cache for the module: the tests never touch the user's cache."""
    patch = pytest.MonkeyPatch()
    patch.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("sparsity-cache")))
    patch.delenv("SCALY_CC", raising=False)
    patch.delenv("SCALY_CC_OPT", raising=False)
    yield
    patch.undo()


def dense_pattern(colind, row, shape):
    out = np.zeros(shape, dtype=bool)
    for j in range(shape[1]):
        out[row[colind[j]:colind[j + 1]], j] = True
    return out


def check_csc_structure(M, shape):
    """The public sparsity result is a canonical csc_matrix of `shape`."""
    assert isinstance(M, scipy.sparse.csc_matrix)
    assert M.shape == shape
    assert M.indptr.shape == (shape[1] + 1,) and M.indptr[0] == 0
    assert np.all(np.diff(M.indptr) >= 0) and M.indptr[-1] == M.nnz
    for j in range(shape[1]):
        col = M.indices[M.indptr[j]:M.indptr[j + 1]]
        assert np.all(np.diff(col) > 0), f"column {j}: indices not strictly increasing"
        assert np.all((col >= 0) & (col < shape[0]))


# ---------------------------------------------------------------------------
# The functions
# ---------------------------------------------------------------------------

def vstep_body(m, x, p):
    # wrt x: [[1,0,1],[0,1,0],[1,1,1]]; wrt p: column 0 dense, column 1 only in row 2.
    return m.stack([x[0] * p[0] + m.sin(x[2]), x[1] * p[0], x[2] * x[0] * p[0] + p[1] * x[1]])


@functools.lru_cache(maxsize=None)
def vstep():
    return build("vstep", [("x", 3), ("p", 2)], vstep_body)


@functools.lru_cache(maxsize=None)
def vmapped(shared):
    step = vstep()
    if shared:
        @sc.function(sc.arg("X", (4, 3)), sc.arg("p", 2), outputs=sc.arg("Y"))
        def vm_shared(X, p):
            return sc.vmap(step, 4, in_axes=(0, None))(X, p)
        return vm_shared

    @sc.function(sc.arg("X", (4, 3)), sc.arg("P", (4, 2)), outputs=sc.arg("Y"))
    def vm_mapped(X, P):
        return sc.vmap(step, 4)(X, P)
    return vm_mapped


def vmapped_sym_body(shared):
    def body(m, X, p):
        return m.stack([vstep_body(m, X[i], p if shared else p[i]) for i in range(4)])
    return body


def scan_step_body(m, s, u):
    nxt = m.stack([s[0] + 0.1 * s[1], s[1] + 0.1 * (m.sin(s[0]) * -1.0 + u)])
    return nxt, nxt[0] * nxt[1]


SCAN_N = 5


@functools.lru_cache(maxsize=None)
def rollout():
    @sc.function(sc.arg("s", 2), sc.arg("u", ()), outputs=(sc.arg("s_next"), sc.arg("out")))
    def step(s, u):
        return scan_step_body(SC, s, u)

    @sc.function(sc.arg("s0", 2), sc.arg("us", SCAN_N), outputs=(sc.arg("final"), sc.arg("outs")))
    def roll(s0, us):
        return sc.scan(step, SCAN_N)(s0, us)

    return roll


def rollout_sym(of):
    def body(m, s0, us):
        s, outs = s0, []
        for k in range(SCAN_N):
            s, o = scan_step_body(m, s, us[k])
            outs.append(o)
        return s if of == "final" else m.stack(outs)
    return Sym(body, [(2,), (SCAN_N,)])


@functools.lru_cache(maxsize=None)
def pattern_sym(name):
    shapes, body = PATTERN_CASES[name]
    return Sym(body, shapes)


PATTERN_PARAMS = [(name, k) for name in sorted(PATTERN_CASES)
                  for k in range(len(PATTERN_CASES[name][0]))]


# ---------------------------------------------------------------------------
# 1. Patterns equal SymPy's structural nonzeros exactly
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name,wrt", PATTERN_PARAMS)
def test_pattern_matches_sympy(name, wrt):
    f = pattern_function(name)
    S = sc.jacobian_sparsity(f, wrt=wrt)
    sym = pattern_sym(name)
    want = structural(sym.jacobian(wrt=wrt))
    check_csc_structure(S, want.shape)
    assert np.all(S.data == 1.0)
    assert_same_pattern(S.toarray() != 0, want, f"{name} wrt {wrt}")


def test_where_condition_carries_no_derivative():
    """Only the condition depends on y: d out / d y is structurally empty."""
    S = sc.jacobian_sparsity(pattern_function("where_condition_only"), wrt=1)
    assert S.nnz == 0 and S.shape == (6, 6)
    S = sc.jacobian_sparsity(pattern_function("where_condition_reversed"))
    assert_same_pattern(S.toarray() != 0, np.eye(6, dtype=bool), "diagonal only")


def test_floor_ceil_have_zero_pattern():
    S = sc.jacobian_sparsity(pattern_function("floor_only"))
    assert S.shape == (5, 5) and S.nnz == 0
    S = sc.jacobian_sparsity(pattern_function("floor_ceil"), wrt=0)
    assert_same_pattern(S.toarray() != 0, np.eye(5, dtype=bool), "x * floor(x[::-1])")


@pytest.mark.parametrize("shared", [False, True], ids=["mapped", "unmapped_param"])
def test_vmap_pattern(shared):
    f = vmapped(shared)
    sym = Sym(vmapped_sym_body(shared), [(4, 3), (2,) if shared else (4, 2)])
    block_x = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 1]], bool)
    for wrt in (0, 1):
        S = sc.jacobian_sparsity(f, wrt=wrt)
        want = structural(sym.jacobian(wrt=wrt))
        check_csc_structure(S, want.shape)
        assert_same_pattern(S.toarray() != 0, want, f"vmap shared={shared} wrt {wrt}")
    # The shapes the brief promises, independently of SymPy.
    Sx = sc.jacobian_sparsity(f, wrt=0).toarray() != 0
    assert_same_pattern(Sx, np.kron(np.eye(4, dtype=bool), block_x), "block diagonal")
    Sp = sc.jacobian_sparsity(f, wrt=1).toarray() != 0
    if shared:
        assert Sp.shape == (12, 2)
        assert Sp[:, 0].all(), "the unmapped parameter p[0] is a dense column"
        assert_same_pattern(Sp[:, 1], np.tile([False, False, True], 4), "p[1]")
    else:
        assert_same_pattern(Sp, np.kron(np.eye(4, dtype=bool),
                                         np.array([[1, 0], [1, 0], [1, 1]], bool)), "P blocks")


@pytest.mark.parametrize("of", ["final", "outs"])
@pytest.mark.parametrize("wrt", ["s0", "us"])
def test_scan_pattern(of, wrt):
    f = rollout()
    sym = rollout_sym(of)
    S = sc.jacobian_sparsity(f, wrt=wrt, of=of)
    want = structural(sym.jacobian(wrt=("s0", "us").index(wrt)))
    check_csc_structure(S, want.shape)
    assert_same_pattern(S.toarray() != 0, want, f"d{of}/d{wrt}")
    if (of, wrt) == ("outs", "us"):
        # outs[k] depends on us[0..k]: lower block-triangular.
        assert_same_pattern(S.toarray() != 0, np.tril(np.ones((SCAN_N, SCAN_N), bool)), "tril")


def test_luksan_chain_pattern_is_banded():
    n = 9
    f = luksan_chain(n)
    S = sc.jacobian_sparsity(f)

    def body(m, x):
        return m.stack([luksan_constraint_body(m, x[k], x[k + 1], x[k + 2])
                        for k in range(n - 2)])

    want = structural(Sym(body, [(n,)]).jacobian())
    check_csc_structure(S, (n - 2, n))
    assert_same_pattern(S.toarray() != 0, want, "luksan chain")
    band = np.zeros((n - 2, n), bool)
    for k in range(n - 2):
        band[k, k:k + 3] = True
    assert_same_pattern(want, band, "sympy band")


def test_nested_vmap_pattern():
    inner = vmapped(True)

    @sc.function(sc.arg("Z", (2, 4, 3)), sc.arg("p", 2), outputs=sc.arg("Y"))
    def nested(Z, p):
        return sc.vmap(inner, 2, in_axes=(0, None))(Z, p)

    def body(m, Z, p):
        return m.stack([m.stack([vstep_body(m, Z[j, i], p) for i in range(4)])
                        for j in range(2)])

    sym = Sym(body, [(2, 4, 3), (2,)])
    for wrt in (0, 1):
        S = sc.jacobian_sparsity(nested, wrt=wrt)
        assert_same_pattern(S.toarray() != 0, structural(sym.jacobian(wrt=wrt)), f"wrt {wrt}")


def shared_scan_body(m, s, k, u):
    return m.stack([s[0] + 0.1 * s[1] * k, s[1] - 0.1 * m.sin(s[0]) + u]), s[1] * u


@functools.lru_cache(maxsize=None)
def shared_scan():
    @sc.function(sc.arg("s", 2), sc.arg("k", ()), sc.arg("u", ()),
                 outputs=(sc.arg("s_next"), sc.arg("o")))
    def pstep(s, k, u):
        return shared_scan_body(SC, s, k, u)

    @sc.function(sc.arg("s0", 2), sc.arg("k", ()), sc.arg("us", 6),
                 outputs=(sc.arg("fin"), sc.arg("os")))
    def prollout(s0, k, us):
        return sc.scan(pstep, 6, in_axes=(None, 0))(s0, k, us)

    return prollout


@pytest.mark.parametrize("of", [0, 1], ids=["final", "stacked"])
def test_scan_unmapped_parameter_pattern(of):
    def body(m, s0, k, us):
        s, outs = s0, []
        for i in range(6):
            s, o = shared_scan_body(m, s, k, us[i])
            outs.append(o)
        return s if of == 0 else m.stack(outs)

    sym = Sym(body, [(2,), (), (6,)])
    for wrt in range(3):
        S = sc.jacobian_sparsity(shared_scan(), wrt=wrt, of=of)
        assert_same_pattern(S.toarray() != 0, structural(sym.jacobian(wrt=wrt)), f"wrt {wrt}")


def test_constant_zeros_are_not_inspected():
    """Structural, not value-based: a constant factor that happens to be 0 keeps its entry
    (a superset of SymPy's pattern), and the stored value is exactly 0."""
    C = np.array([[1.0, 0.0, 0.0, 2.0], [0.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]])

    def body(m, x):
        return m.concat([m.matmul(C, x), x * np.array([1.0, 0.0, 2.0, 0.0])])

    f = build("const_zeros", [("x", 4)], body)
    S = sc.jacobian_sparsity(f).toarray() != 0
    want = structural(Sym(body, [(4,)]).jacobian())
    assert not (want & ~S).any(), "a nonzero derivative is missing from the pattern"
    x = np.array([0.3, -0.4, 1.2, 0.8])
    M = sc.jacobian(f, layout="csc")(x)
    np.testing.assert_array_equal(M.toarray(), np.concatenate([C, np.diag([1.0, 0, 2, 0])]))


def test_csc_function_sparsity_matches_jacobian_sparsity():
    f = pattern_function("gather_repeated")
    J = sc.jacobian(f, layout="csc")
    shape, colind, row = J.sparsity()
    by_name = J.sparsity(J.outputs[0][0])
    S = sc.jacobian_sparsity(f)
    assert tuple(shape) == S.shape
    np.testing.assert_array_equal(colind, S.indptr)
    np.testing.assert_array_equal(row, S.indices)
    np.testing.assert_array_equal(by_name[1], colind)
    with pytest.raises(ValueError, match="no output named"):
        J.sparsity("nope")


def objective_chain_body(m, x):
    a, b = x[:-1], x[1:]
    return m.sum(100.0 * (a * a - b) ** 2 + (a - 1.0) ** 2) + x[0] * x[-1]


def bilinear_body(m, x):
    # Structurally zero diagonal except H[0, 0]; off-diagonals (k, k+1).
    return m.sum(x[:-1] * x[1:]) + x[0] ** 3


def lagrangian_chain_body(m, x):
    # g_k = x_k^2 x_{k+1} + sin(x_{k+1}) x_{k+2} - exp(x_k): H of lam . g has
    # no (k, k+2) entries and H[n-1, n-1] is structurally zero.
    return x[:-2] ** 2 * x[1:-1] + m.sin(x[1:-1]) * x[2:] - m.exp(x[:-2])


def arrowhead_body(m, x):
    # Row and column 0 dense, full diagonal, nothing else.
    return x[0] * m.sum(x[1:] ** 2) + m.sum(m.sin(x))


def lagrangian_step_body(m, x0, x1, x2):
    return x0 ** 2 * x1 + m.sin(x1) * x2 - m.exp(x0)


HESSIAN_N = 7
HESSIAN_CASES = ["objective_chain", "bilinear", "arrowhead", "lagrangian_chain",
                 "lagrangian_vmap"]


@functools.lru_cache(maxsize=None)
def hessian_case(name):
    n = HESSIAN_N
    if name == "lagrangian_vmap":
        step = build("lag_step", [("x0", ()), ("x1", ()), ("x2", ())], lagrangian_step_body,
                     ("c",))

        @sc.function(sc.arg("x", n), outputs=sc.arg("g"))
        def lag_vmap(x):
            return sc.vmap(step, n - 2)(x[:-2], x[1:-1], x[2:])

        f, body = lag_vmap, lagrangian_chain_body
    else:
        body = {"objective_chain": objective_chain_body, "bilinear": bilinear_body,
                "arrowhead": arrowhead_body, "lagrangian_chain": lagrangian_chain_body}[name]
        f = build(f"hs_{name}", [("x", n)], body)
    multipliers = name.startswith("lagrangian")
    H = sc.hessian(f, wrt="x", multipliers=multipliers, layout="csc")
    Hd = sc.hessian(f, wrt="x", multipliers=multipliers)
    sym = Sym(body, [(HESSIAN_N,)])
    ref = sym.lagrangian_hessian() if multipliers else sym.hessian()
    return f, H, Hd, ref


@pytest.mark.parametrize("name", HESSIAN_CASES)
def test_hessian_pattern_matches_sympy(name):
    _, H, _, ref = hessian_case(name)
    shape, colind, row = H.sparsity()
    assert tuple(shape) == (HESSIAN_N, HESSIAN_N)
    got = dense_pattern(colind, row, shape)
    want = structural(ref)
    assert_same_pattern(want, want.T, "sympy symmetric")
    assert_same_pattern(got, got.T, "scaly symmetric")
    assert_same_pattern(got, want, f"hessian {name}")
    colours, from_row = _scaly.star_colouring(HESSIAN_N, list(map(int, colind)),
                                              list(map(int, row)))
    assert_star_colouring(HESSIAN_N, colind, row, colours)
    assert_star_recovery(HESSIAN_N, np.asarray(colind), np.asarray(row), colours, from_row)


@functools.lru_cache(maxsize=None)
def scan_cost():
    @sc.function(sc.arg("s", 1), sc.arg("u", ()), outputs=(sc.arg("s_next"), sc.arg("out")))
    def cstep(s, u):
        return s + u * u, s[0] * u

    @sc.function(sc.arg("s0", 1), sc.arg("us", 3), outputs=sc.arg("cost"))
    def scost(s0, us):
        final, outs = sc.scan(cstep, 3)(s0, us)
        return sc.sum(outs)

    return scost


def scan_cost_body(m, s0, us):
    s, total = s0[0], 0
    for i in range(3):
        s, total = s + us[i] * us[i], total + s * us[i]
    return total


def test_scan_hessian_values():
    """cost = sum_i s_i u_i with s_{i+1} = s_i + u_i^2 (the final state unused)."""
    f = scan_cost()
    s0, us = np.array([0.5]), np.array([0.3, 0.7, -0.4])
    H = sc.hessian(f, wrt="us", layout="csc")(s0, us)
    sym = Sym(scan_cost_body, [(1,), (3,)])
    want = sym.value(sym.hessian(wrt=1), [s0, us])
    np.testing.assert_allclose(H.toarray(), want, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(sc.hessian(f, wrt="us")(s0, us), want, rtol=1e-13, atol=1e-14)


def test_scan_hessian_pattern_matches_sympy():
    """d2 cost / d us[-1]^2 is identically 0 (cost is linear in the last step's
    input, and the final state is unused): the pattern does not store it."""
    H = sc.hessian(scan_cost(), wrt="us", layout="csc")
    shape, colind, row = H.sparsity()
    want = structural(Sym(scan_cost_body, [(1,), (3,)]).hessian(wrt=1))
    assert not want[2, 2]
    assert_same_pattern(dense_pattern(colind, row, tuple(shape)), want, "scan Hessian")


# ---------------------------------------------------------------------------
# 2. Values: csc equals dense equals finite differences
# ---------------------------------------------------------------------------

def fd_hessian(scalar, x, h=1e-4):
    """Second-order central differences of a scalar function of a vector."""
    n = x.size
    H = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            def at(si, sj):
                y = x.copy()
                y[i] += si * h
                y[j] += sj * h
                return float(scalar(y))
            H[i, j] = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * h * h)
    return H


VALUE_CASES = ["broadcast_chain", "slices_2d", "reshape", "max_axis1", "prod_axis1",
               "matvec", "gather_repeated", "where_two_inputs", "floor_ceil", "floor_only",
               "rosenbrock_chain", "stack_axis1", "dense_rows", "sum_axis0"]


def value_point(name, seed):
    shapes = PATTERN_CASES[name][0]
    r = rng(seed)
    args = [r.uniform(0.3, 1.7, s) * r.choice([-1.0, 1.0], s) for s in shapes]
    if name == "max_axis1":  # distinct magnitudes: a unique maximum per row
        args = [r.permutation(np.linspace(0.3, 1.9, 12)).reshape(3, 4)]
    if name in ("floor_ceil", "floor_only"):  # away from integers
        args = [np.round(a) + 0.3 for a in args]
    return args


def check_csc_against(M, dense, colind, row, shape):
    check_csc_structure(M, shape)
    assert M.has_sorted_indices
    np.testing.assert_array_equal(M.indptr, colind)
    np.testing.assert_array_equal(M.indices, row)
    assert M.dtype == np.float64
    np.testing.assert_allclose(M.toarray(), dense, **SPARSE_TIGHT)
    # Everything outside the pattern is exactly zero in the dense result.
    assert not np.asarray(dense)[~dense_pattern(colind, row, shape)].any()


@pytest.mark.parametrize("name", VALUE_CASES)
def test_jacobian_csc_values(name):
    f = pattern_function(name)
    args = value_point(name, seed=len(name))
    for wrt in range(len(args)):
        J = sc.jacobian(f, wrt=wrt, layout="csc")
        Jd = sc.jacobian(f, wrt=wrt)
        M, D = J(*args), Jd(*args)
        S = sc.jacobian_sparsity(f, wrt=wrt)
        check_csc_against(M, D, S.indptr, S.indices, S.shape)
        np.testing.assert_allclose(M.toarray(), fd_jacobian(f, args, wrt=wrt), **FD_TOL,
                                   err_msg=f"wrt={wrt}")


@pytest.mark.parametrize("shared", [False, True], ids=["mapped", "unmapped_param"])
def test_vmap_csc_values(shared):
    f = vmapped(shared)
    r = rng(3)
    args = [r.uniform(-1, 1, (4, 3)), r.uniform(-1, 1, (2,) if shared else (4, 2))]
    for wrt in (0, 1):
        M = sc.jacobian(f, wrt=wrt, layout="csc")(*args)
        D = sc.jacobian(f, wrt=wrt)(*args)
        S = sc.jacobian_sparsity(f, wrt=wrt)
        check_csc_against(M, D, S.indptr, S.indices, S.shape)
        np.testing.assert_allclose(M.toarray(), fd_jacobian(f, args, wrt=wrt), **FD_TOL)


def test_scan_csc_values():
    f = rollout()
    args = [np.array([0.3, -0.2]), np.linspace(-1, 1, SCAN_N)]
    for of in ("final", "outs"):
        for wrt in ("s0", "us"):
            M = sc.jacobian(f, wrt=wrt, of=of, layout="csc")(*args)
            D = sc.jacobian(f, wrt=wrt, of=of)(*args)
            S = sc.jacobian_sparsity(f, wrt=wrt, of=of)
            check_csc_against(M, D, S.indptr, S.indices, S.shape)
            k, o = ("s0", "us").index(wrt), ("final", "outs").index(of)
            np.testing.assert_allclose(M.toarray(), fd_jacobian(f, args, wrt=k, of=o),
                                       **FD_TOL, err_msg=f"d{of}/d{wrt}")


@pytest.mark.parametrize("name", HESSIAN_CASES)
def test_hessian_csc_values(name):
    f, H, Hd, _ = hessian_case(name)
    r = rng(11)
    x = r.uniform(-1, 1, HESSIAN_N)
    if name.startswith("lagrangian"):
        lam = r.uniform(-1, 1, HESSIAN_N - 2)
        args = (x, lam)
        ref = fd_hessian(lambda y: lam @ f(y), x)
    else:
        args = (x,)
        ref = fd_hessian(f, x)
    M, D = H(*args), Hd(*args)
    shape, colind, row = H.sparsity()
    check_csc_against(M, D, colind, row, tuple(shape))
    np.testing.assert_allclose(D, D.T, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(M.toarray(), ref, rtol=1e-5, atol=1e-5)


def test_luksan_csc_values():
    n = 12
    J = sc.jacobian(luksan_chain(n), layout="csc")
    x = rng(5).uniform(-1, 1, n)
    M = J(x)
    S = sc.jacobian_sparsity(luksan_chain(n))
    check_csc_against(M, sc.jacobian(luksan_chain(n))(x), S.indptr, S.indices, S.shape)
    np.testing.assert_allclose(M.toarray(), luksan_jacobian_numpy(x).toarray(), **SPARSE_TIGHT)
    np.testing.assert_allclose(M.toarray(), fd_jacobian(luksan_chain(n), [x]), **FD_TOL)
