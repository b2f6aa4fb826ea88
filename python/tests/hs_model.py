"""The Hock-Schittkowski problems' record (HSProblem), the helpers their data use and the
registry they join (PROBLEMS); hsproblems.py says the conventions."""
from dataclasses import dataclass
import math

INF = math.inf


@dataclass(frozen=True)
class HSProblem:
    number: int            # HS number, e.g. 71
    n: int                 # number of variables
    f: object              # f(x, m) -> scalar;  x indexable x[0..n-1], m a math namespace
    g: object              # g(x, m) -> list of scalars (constraint bodies), or None when unconstrained
    lbg: tuple             # lower bounds of g (use -math.inf for none); equality: lbg == ubg
    ubg: tuple
    lbx: tuple             # variable bounds, -math.inf / math.inf when absent
    ubx: tuple
    x0: tuple              # the published starting point
    f_star: float          # the published optimal objective value
    x_star: tuple | None = None   # published solution when known (optional)


def _rows(kinds):
    """Bounds of constraint rows from a string of kinds: 'i' is g >= 0, 'e' is g == 0."""
    lb = tuple(0.0 for _ in kinds)
    ub = tuple(INF if k == "i" else 0.0 for k in kinds)
    return lb, ub


def _free(n):
    return tuple(-INF for _ in range(n)), tuple(INF for _ in range(n))


def _box(n, lo, hi):
    return tuple(float(lo) for _ in range(n)), tuple(float(hi) for _ in range(n))


_SQRT2 = math.sqrt(2.0)
_SQRT3 = math.sqrt(3.0)

PROBLEMS = []


def _add(number, n, f, g, kinds, lbx, ubx, x0, f_star, x_star=None, lbg=None, ubg=None):
    if g is None:
        lb, ub = (), ()
    elif lbg is not None:
        lb, ub = tuple(float(v) for v in lbg), tuple(float(v) for v in ubg)
    else:
        lb, ub = _rows(kinds)
    PROBLEMS.append(HSProblem(
        number=number, n=n, f=f, g=g, lbg=lb, ubg=ub,
        lbx=tuple(float(v) for v in lbx), ubx=tuple(float(v) for v in ubx),
        x0=tuple(float(v) for v in x0), f_star=float(f_star),
        x_star=None if x_star is None else tuple(float(v) for v in x_star)))


def _rosenbrock(x, m):
    return 100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2
