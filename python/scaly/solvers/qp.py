"""Quadratic programs solved by Scaly's QP library (PIQP's method), from NumPy and SciPy data.

    minimize    1/2 x'Px + c'x
    subject to  Ax = b,  h_l <= Gx <= h_u,  x_l <= x <= x_u

``solve_qp`` solves one problem; ``QPSolver`` keeps the factorization's analysis
and the last solution for a sequence of problems with the same structure (MPC).
At a solution ``P x + c + A'y + G'z + z_box = 0``, with ``z`` and ``z_box``
positive on active upper bounds and negative on active lower ones.
"""

import ctypes
import numbers

import numpy as np

from ._native import Data, Csc, Info, Settings, SolverStats, qp_library

STATUS_NAMES = ("solved", "acceptable", "max_iter", "primal_infeasible", "dual_infeasible",
                "numerics", "user_stop", "error")
"""Names of the SCALY_SOLVE_* codes, by value."""

NATIVE_STATUS_NAMES = {1: "solved", 2: "acceptable", -1: "max_iter_reached", -2: "primal_infeasible",
                       -3: "dual_infeasible", -8: "numerics", -9: "unsolved",
                       -10: "invalid_settings", -11: "invalid_data"}

BACKENDS = {"sparse": 0, "dense": 1}

_ERR_LEN = 512


def default_options() -> dict:
    """Every QP option with its default value (the names ``options=`` accepts)."""
    lib = qp_library()
    s = Settings()
    lib.scaly_qp_default_settings(ctypes.byref(s))
    return {name: getattr(s, name) for name in option_names()}


def option_names() -> tuple:
    """Names of the QP options, in the order of ``scaly_qp_settings``."""
    lib = qp_library()
    return tuple(lib.scaly_qp_option_name(i).decode() for i in range(lib.scaly_qp_option_count()))


def make_settings(options) -> Settings:
    """Default settings with ``options`` (a dict) applied; bad names, types or values raise
    before any solve, naming the option."""
    lib = qp_library()
    s = Settings()
    lib.scaly_qp_default_settings(ctypes.byref(s))
    if options is None:
        return s
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict of option names to numbers, got "
                        f"{type(options).__name__}")
    err = ctypes.create_string_buffer(_ERR_LEN)
    for name, value in options.items():
        if not isinstance(name, str):
            raise TypeError(f"QP option names are strings, got {name!r}")
        if isinstance(value, (bool, np.bool_)):
            value = int(value)
        if not isinstance(value, (numbers.Real, np.integer, np.floating)):
            raise TypeError(f"QP option {name!r} takes a number, got {type(value).__name__} "
                            f"{value!r}")
        if lib.scaly_qp_set_option(ctypes.byref(s), name.encode(), float(value), err,
                                   _ERR_LEN) != 0:
            raise ValueError(err.value.decode())
    return s


def _vector(value, size, name, default=None, allow_inf=False):
    if value is None:
        return default
    try:
        v = np.ascontiguousarray(value, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must be an array of numbers: {e}") from None
    if v.ndim == 0 and size == 1:
        v = v.reshape(1)
    v = v.reshape(-1) if v.ndim == 2 and 1 in v.shape else v
    if v.shape != (size,):
        raise ValueError(f"{name} has shape {np.shape(value)}, expected ({size},)")
    if np.isnan(v).any():
        raise ValueError(f"{name}[{int(np.flatnonzero(np.isnan(v))[0])}] is NaN")
    if not allow_inf and np.isinf(v).any():
        raise ValueError(f"{name}[{int(np.flatnonzero(np.isinf(v))[0])}] is infinite, expected "
                         "finite values")
    return v


def _matrix(value, rows, cols, name, upper=False):
    """A CSC matrix with int32 sorted indices and float64 values."""
    import scipy.sparse as sp
    if getattr(value, "_scaly_converted", None) == (rows, cols, upper):
        return value  # converted by an earlier setup or update: reused as it is
    if value is None:
        return sp.csc_matrix((rows, cols))
    if sp.issparse(value):
        M = sp.csc_matrix(value, dtype=np.float64)
    else:
        dense = np.asarray(value, dtype=np.float64)
        if dense.ndim == 1 and rows == 1:
            dense = dense.reshape(1, -1)
        if dense.ndim != 2:
            raise ValueError(f"{name} must be a matrix, got an array of shape {dense.shape}")
        M = sp.csc_matrix(dense)
    if M.shape != (rows, cols):
        raise ValueError(f"{name} has shape {M.shape}, expected ({rows}, {cols})")
    if upper:
        M = sp.triu(M, format="csc")
    M.sum_duplicates()
    M.sort_indices()
    if not np.isfinite(M.data).all():
        k = int(np.flatnonzero(~np.isfinite(M.data))[0])
        col = int(np.searchsorted(M.indptr, k, side="right") - 1)
        raise ValueError(f"{name}[{int(M.indices[k])}, {col}] is {M.data[k]}, expected a finite "
                         "value")
    out = sp.csc_matrix((M.data.astype(np.float64), M.indices.astype(np.int32),
                         M.indptr.astype(np.int32)), shape=M.shape)
    out._scaly_converted = (rows, cols, upper)
    return out


def _ptr(a, ctype=ctypes.c_double):
    return None if a is None else a.ctypes.data_as(ctypes.POINTER(ctype))


class _Problem:
    """The data of one problem in the C layout (keeps the arrays alive)."""

    def __init__(self, P, c, A, b, G, h_l, h_u, x_l, x_u, n=None):
        if c is None:
            raise ValueError("c is required: the cost vector, of length n")
        c = _vector(c, np.size(c) if n is None else n, "c")
        n = c.shape[0]
        shape = () if P is None else _shape(P)
        if len(shape) == 2 and shape[0] == shape[1] and shape[0] != n:
            # P and c disagree on n: name both rather than blame P alone.
            raise ValueError(f"P is {shape[0]} x {shape[1]} but c has {n} entries: both must "
                             "have the problem's n (P n x n, c of length n)")
        p = _rows(A, b, "A", "b")
        m = _rows(G, h_l if h_l is not None else h_u, "G", "h_l/h_u")
        self.n, self.p, self.m = n, p, m
        self.P = _matrix(P, n, n, "P", upper=True)
        self.A = _matrix(A, p, n, "A")
        self.G = _matrix(G, m, n, "G")
        self.c = c
        self.b = _vector(b, p, "b", np.zeros(p))
        self.h_l = _vector(h_l, m, "h_l", None, allow_inf=True)
        self.h_u = _vector(h_u, m, "h_u", None, allow_inf=True)
        if m and self.h_l is None and self.h_u is None:
            raise ValueError("G is given but neither h_l nor h_u: give the bounds of Gx")
        self.x_l = _vector(x_l, n, "x_l", None, allow_inf=True)
        self.x_u = _vector(x_u, n, "x_u", None, allow_inf=True)
        self.data = Data(n, p, m, _csc(self.P), _ptr(self.c), _csc(self.A), _ptr(self.b),
                         _csc(self.G), _ptr(self.h_l), _ptr(self.h_u), _ptr(self.x_l),
                         _ptr(self.x_u))


def _shape(M):
    """The shape of a matrix given as a SciPy sparse matrix or an array-like."""
    return M.shape if hasattr(M, "shape") else np.shape(M)


def _rows(M, rhs, name, rhs_name):
    if M is None:
        if rhs is not None and np.size(rhs) > 0:
            raise ValueError(f"{rhs_name} is given without {name}")
        return 0
    shape = _shape(M)
    if len(shape) == 1:
        return 1
    if len(shape) != 2:
        raise ValueError(f"{name} must be a matrix, got shape {shape}")
    return int(shape[0])


def _csc(M):
    return Csc(M.shape[0], M.shape[1], _ptr(M.indptr, ctypes.c_int32),
               _ptr(M.indices, ctypes.c_int32), _ptr(M.data))


class QPResult:
    """The solution and diagnostics of one solve.

    ``x`` (n), ``y`` (multipliers of Ax = b), ``z`` (of h_l <= Gx <= h_u, signed),
    ``z_box`` (of the bounds on x, signed); ``status`` is a name from
    ``STATUS_NAMES`` and ``status_code`` its SCALY_SOLVE_* value; ``obj``,
    ``primal_res``, ``dual_res``, ``duality_gap`` (the solver's own measures in
    the user's units), ``iter``, ``t_setup``, ``t_solve`` (seconds).
    """

    def __init__(self, x, y, z, z_box, info: Info):
        self.x, self.y, self.z, self.z_box = x, y, z, z_box
        self.status_code = int(info.status)
        self.status = STATUS_NAMES[self.status_code]
        self.native_status = int(info.native_status)
        self.iter = int(info.iter)
        self.obj = float(info.obj)
        self.primal_res = float(info.primal_res)
        self.dual_res = float(info.dual_res)
        self.duality_gap = float(info.duality_gap)
        self.t_setup = float(info.t_setup)
        self.t_solve = float(info.t_solve)
        self.factorizations = int(info.factorizations)

    def __repr__(self):
        return (f"QPResult(status={self.status!r}, iter={self.iter}, obj={self.obj:.10g}, "
                f"primal_res={self.primal_res:.2e}, dual_res={self.dual_res:.2e})")


class QPSolver:
    """A QP set up once and solved many times: ``update`` replaces data (same shapes;
    a changed sparsity pattern or set of finite bounds is re-analysed), ``solve``
    starts cold or from a given point.

        solver = QPSolver(P, c, A=A, b=b, x_l=lo, x_u=hi, backend="sparse")
        res = solver.solve()
        solver.update(c=c2)
        res2 = solver.solve(x0=res.x, y0=res.y, z_box0=res.z_box)
    """

    def __init__(self, P, c, A=None, b=None, G=None, h_l=None, h_u=None, x_l=None, x_u=None,
                 *, backend="sparse", options=None):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {sorted(BACKENDS)}, got {backend!r}")
        self.backend = backend
        self._lib = qp_library()
        self._settings = make_settings(options)
        self._args = dict(P=P, c=c, A=A, b=b, G=G, h_l=h_l, h_u=h_u, x_l=x_l, x_u=x_u)
        self._problem = _Problem(**self._args)
        err = ctypes.create_string_buffer(_ERR_LEN)
        handle = self._lib.scaly_qp_setup(ctypes.byref(self._problem.data), BACKENDS[backend],
                                          ctypes.byref(self._settings), err, _ERR_LEN)
        if not handle:
            raise ValueError(err.value.decode())
        self._handle = handle

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.scaly_qp_free(handle)
            self._handle = None

    @property
    def n(self):
        """Number of variables."""
        return self._problem.n

    def update(self, **data):
        """Replace some of P, c, A, b, G, h_l, h_u, x_l, x_u (same dimensions)."""
        unknown = set(data) - set(self._args)
        if unknown:
            raise TypeError(f"update() got unknown data {sorted(unknown)}; expected some of "
                            f"{sorted(self._args)}")
        old = self._problem
        # Matrices not passed are reused as converted, not converted again.
        args = dict(self._args, P=old.P, A=old.A, G=old.G)
        args.update(data)
        problem = _Problem(**args, n=old.n)
        if (problem.n, problem.p, problem.m) != (old.n, old.p, old.m):
            raise ValueError(f"update changes the dimensions (n, p, m) from "
                             f"{(old.n, old.p, old.m)} to {(problem.n, problem.p, problem.m)}")
        err = ctypes.create_string_buffer(_ERR_LEN)
        if self._lib.scaly_qp_update(self._handle, ctypes.byref(problem.data), err,
                                     _ERR_LEN) != 0:
            raise ValueError(err.value.decode())
        self._args, self._problem = dict(args), problem

    def set_options(self, options):
        """Change numerical options for later solves (unknown or bad ones raise)."""
        settings = make_settings(options)
        err = ctypes.create_string_buffer(_ERR_LEN)
        if self._lib.scaly_qp_update_settings(self._handle, ctypes.byref(settings), err,
                                              _ERR_LEN) != 0:
            raise ValueError(err.value.decode())
        self._settings = settings

    def solve(self, x0=None, y0=None, z0=None, z_box0=None) -> QPResult:
        """Solve; any of x0, y0, z0, z_box0 start the iteration from them."""
        pb = self._problem
        start = [_vector(x0, pb.n, "x0"), _vector(y0, pb.p, "y0"), _vector(z0, pb.m, "z0"),
                 _vector(z_box0, pb.n, "z_box0")]
        self._lib.scaly_qp_solve(self._handle, *[_ptr(v) for v in start])
        x, y, z, zb = np.empty(pb.n), np.empty(pb.p), np.empty(pb.m), np.empty(pb.n)
        self._lib.scaly_qp_solution(self._handle, _ptr(x), _ptr(y), _ptr(z), _ptr(zb))
        info = Info()
        self._lib.scaly_qp_get_info(self._handle, ctypes.byref(info))
        return QPResult(x, y, z, zb, info)

    def stats(self) -> dict:
        """The latest solve's ``scaly_solver_stats`` as a dict; ``status`` by name."""
        st = SolverStats()
        self._lib.scaly_qp_get_stats(self._handle, ctypes.byref(st))
        return stats_dict(st)


def stats_dict(st: SolverStats, native_names=None) -> dict:
    """A ``scaly_solver_stats`` as a dict of its fields; ``status`` and ``native_status``
    by name (``status`` None before the first solve); `native_names` maps the
    backend's native statuses (default: the QP library's)."""
    out = {name: getattr(st, name) for name, _ in SolverStats._fields_ if name != "_pad0"}
    out["status"] = STATUS_NAMES[st.status] if st.version else None
    names = NATIVE_STATUS_NAMES if native_names is None else native_names
    out["native_status"] = names.get(st.native_status, st.native_status)
    return out


def solve_qp(P, c, A=None, b=None, G=None, h_l=None, h_u=None, x_l=None, x_u=None, *,
             backend="sparse", options=None, x0=None, y0=None, z0=None,
             z_box0=None) -> QPResult:
    """Solve min 1/2 x'Px + c'x s.t. Ax = b, h_l <= Gx <= h_u, x_l <= x <= x_u.

    P, A, G are SciPy sparse matrices or dense array-likes (only P's upper
    triangle is read); bounds at or beyond +-1e20 (or infinite, or None) are
    absent. ``backend`` is "sparse" (LDL^T of the KKT system) or "dense"
    (Cholesky of the condensed system); ``options`` a dict of QP options
    (``default_options()``); x0, y0, z0, z_box0 an optional starting point.
    Returns a ``QPResult``.
    """
    solver = QPSolver(P, c, A, b, G, h_l, h_u, x_l, x_u, backend=backend, options=options)
    return solver.solve(x0, y0, z0, z_box0)
