"""Hock-Schittkowski problems as plain data: objective, constraints, bounds, start and optimum.

Source: W. Hock, K. Schittkowski, "Test Examples for Nonlinear Programming Codes", Lecture Notes
in Economics and Mathematical Systems 187, Springer 1981 (problems 1-119); see also
K. Schittkowski, "More Test Examples for Nonlinear Programming Codes", LNEMS 282, Springer 1987.
The formulas are transcribed from the published statements; the code is written for this project.
Only smooth problems whose published optimum is reproduced by a local solver started from the
published starting point are kept.

Conventions (every problem):

    minimize    f(x)
    subject to  lbg <= g(x) <= ubg        (equality rows: lbg == ubg)
                lbx <=   x  <= ubx        (-math.inf / math.inf: no bound)

* `f(x, m)` returns a scalar and `g(x, m)` a list of len(lbg) scalars (g is None when the problem
  has no general constraints). `x` is anything indexable by the ints 0..n-1 and `m` a namespace
  holding sin, cos, exp, log, sqrt, tan, atan (the `math` module, a namespace of NumPy functions,
  or the `scaly` module for symbolic x). The bodies use only x[i], + - * / with numbers and other
  terms, unary minus, `**` with a constant exponent and those m functions: no Python control flow
  on values, no comparisons, no builtins on terms, and every sum starts from its first term.
* The collection writes inequalities as g_j(x) >= 0; they appear here as lbg = 0, ubg = inf. A few
  pairs of one-sided inequalities on the same expression are merged into one ranged row (HS83,
  HS104, HS118), which is the same feasible set.
* Indices are 0-based: the collection's x_1 is x[0].
* `x0` is the published starting point (which is infeasible for some problems, as published);
  `f_star` the published optimal value with all the digits the collection gives; `x_star` the
  published solution (None when not held here), written in closed form where one is known.
  Where the collection's rounded digits leave a constraint residual above 1e-6 (HS74, 75, 77, 78,
  79, 93, 113, 114), x_star is the same point polished to about ten digits: it agrees with the
  published digits to about 1e-5 relative at worst and is feasible to 1e-6 or better.
* Every problem here was checked against the collection's data: f(x_star) reproduces f_star to a
  relative 1e-6 with x_star feasible to 1e-6, and SLSQP or trust-constr started from x0 reaches
  f_star to a relative 1e-6 (absolute when f_star == 0).
* Problems of the collection left out after that check: HS2, HS16, HS20, HS47 and HS55 (a local
  solver started from x0 reaches another local minimum), HS95 (the published value differs from
  the exact optimum 4.7 * 4.97 / 1495.5 by 7e-7 relative and the start is hard), HS106 and HS116
  (feasible points below the published optimum exist: 7049.248 and 97.58751), and the nonsmooth, data-heavy or degenerate
  ones (e.g. HS8, HS13, HS25, HS67-70, HS84-92, HS99, HS101-103, HS105, HS109, HS117, HS119).
"""
import hs_small  # noqa: F401  (registers HS1-HS57)
import hs_large  # noqa: F401  (registers HS60-HS119)
from hs_model import HSProblem, PROBLEMS  # noqa: F401

PROBLEMS.sort(key=lambda p: p.number)

_BY_NUMBER = {p.number: p for p in PROBLEMS}


def by_number(k):
    """The problem HS<k>; KeyError when the collection's problem k is not held here."""
    return _BY_NUMBER[k]
