"""Scaly's solvers: the QP library (PIQP's method) and the solver layer's pieces.

    from scaly.solvers import solve_qp
    res = solve_qp(P, c, A=A, b=b, G=G, h_l=lo, h_u=hi, x_l=xl, x_u=xu)

See docs/solvers.md.
"""

from ._native import native_paths
from .nlp_options import nlp_default_options, nlp_option_names
from .qp import (BACKENDS, STATUS_NAMES, QPResult, QPSolver, default_options, option_names,
                 solve_qp)

__all__ = ["BACKENDS", "STATUS_NAMES", "QPResult", "QPSolver", "default_options",
           "native_paths", "nlp_default_options", "nlp_option_names", "option_names",
           "solve_qp"]
