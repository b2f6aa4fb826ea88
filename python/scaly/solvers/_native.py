"""The native solver libraries: where they are, and their C interfaces through ctypes."""

import ctypes
import json
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def native_paths() -> dict:
    """Paths of the built solver libraries and of their C headers.

    Written by the CMake build next to this file (``_native.json``): the keys are
    ``scaly_qp`` (the QP library), ``scaly_nlp`` (the NLP library) and ``include`` (the
    folder of ``scaly_qp.h``, ``scaly_nlp.h`` and ``scaly_solver_stats.h``); absolute in a
    build tree, relative to this folder in an installed package.
    """
    path = _HERE / "_native.json"
    try:
        paths = json.loads(path.read_text())
    except FileNotFoundError:
        raise RuntimeError(
            f"the solver libraries are not built: {path} is missing; run scripts/setup.sh "
            "(it configures and builds Scaly, solvers included)") from None
    # An installed package names them relative to this folder.
    return {key: str((_HERE / value).resolve()) for key, value in paths.items()}


class Csc(ctypes.Structure):
    _fields_ = [("nrow", ctypes.c_int32), ("ncol", ctypes.c_int32),
                ("colptr", ctypes.POINTER(ctypes.c_int32)),
                ("rowind", ctypes.POINTER(ctypes.c_int32)),
                ("values", ctypes.POINTER(ctypes.c_double))]


_dp = ctypes.POINTER(ctypes.c_double)


class Data(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int32), ("p", ctypes.c_int32), ("m", ctypes.c_int32),
                ("P", Csc), ("c", _dp), ("A", Csc), ("b", _dp), ("G", Csc),
                ("h_l", _dp), ("h_u", _dp), ("x_l", _dp), ("x_u", _dp)]


class Settings(ctypes.Structure):
    _fields_ = [("eps_abs", ctypes.c_double), ("eps_rel", ctypes.c_double),
                ("check_duality_gap", ctypes.c_int32),
                ("eps_duality_gap_abs", ctypes.c_double),
                ("eps_duality_gap_rel", ctypes.c_double), ("max_iter", ctypes.c_int32),
                ("rho_init", ctypes.c_double), ("delta_init", ctypes.c_double),
                ("reg_lower_limit", ctypes.c_double),
                ("reg_finetune_lower_limit", ctypes.c_double),
                ("max_factor_retries", ctypes.c_int32),
                ("preconditioner_iter", ctypes.c_int32),
                ("preconditioner_scale_cost", ctypes.c_int32), ("tau", ctypes.c_double),
                ("iterative_refinement_max_iter", ctypes.c_int32),
                ("iterative_refinement_eps", ctypes.c_double), ("verbose", ctypes.c_int32),
                ("warm_start", ctypes.c_int32), ("preconditioner_reuse", ctypes.c_double),
                ("duality_gap_extended", ctypes.c_int32),
                ("polish", ctypes.c_int32)]


class Info(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int32), ("native_status", ctypes.c_int32),
                ("iter", ctypes.c_int32), ("factorizations", ctypes.c_int32),
                ("obj", ctypes.c_double), ("primal_res", ctypes.c_double),
                ("dual_res", ctypes.c_double), ("duality_gap", ctypes.c_double),
                ("rho", ctypes.c_double), ("delta", ctypes.c_double), ("mu", ctypes.c_double),
                ("t_setup", ctypes.c_double), ("t_update", ctypes.c_double),
                ("t_solve", ctypes.c_double)]


class SolverStats(ctypes.Structure):
    """``scaly_solver_stats``, version 3: 136 bytes, the seed's field order."""
    _fields_ = [("version", ctypes.c_int32), ("status", ctypes.c_int32),
                ("native_status", ctypes.c_int32), ("iter", ctypes.c_int32),
                ("obj", ctypes.c_double), ("t_total", ctypes.c_double),
                ("t_fe", ctypes.c_double), ("t_solver", ctypes.c_double),
                ("t_qp", ctypes.c_double), ("t_globalization", ctypes.c_double),
                ("t_glue", ctypes.c_double), ("n_eval_f", ctypes.c_int32),
                ("n_eval_grad_f", ctypes.c_int32), ("n_eval_g", ctypes.c_int32),
                ("n_eval_jac_g", ctypes.c_int32), ("n_eval_h", ctypes.c_int32),
                ("_pad0", ctypes.c_int32), ("primal_viol", ctypes.c_double),
                ("step_inf", ctypes.c_double), ("alpha", ctypes.c_double),
                ("merit_penalty", ctypes.c_double), ("backtracks", ctypes.c_int32),
                ("qp_iter", ctypes.c_int32)]


assert ctypes.sizeof(SolverStats) == 136

_lib = None


def _typed(lib, signatures):
    """`lib` with each function of `signatures` ({name: (restype, argtypes)}) typed."""
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


def qp_library() -> ctypes.CDLL:
    """The QP library (``libscaly_qp.so``), loaded once, with its functions typed."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(native_paths()["scaly_qp"])
    vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
    sig = {
        "scaly_qp_default_settings": (None, [ctypes.POINTER(Settings)]),
        "scaly_qp_set_option": (ctypes.c_int, [ctypes.POINTER(Settings), cp, ctypes.c_double,
                                               cp, sz]),
        "scaly_qp_check_settings": (ctypes.c_int, [ctypes.POINTER(Settings), cp, sz]),
        "scaly_qp_option_count": (ctypes.c_int, []),
        "scaly_qp_option_name": (cp, [ctypes.c_int]),
        "scaly_qp_setup": (vp, [ctypes.POINTER(Data), ctypes.c_int32,
                                ctypes.POINTER(Settings), cp, sz]),
        "scaly_qp_update": (ctypes.c_int, [vp, ctypes.POINTER(Data), cp, sz]),
        "scaly_qp_update_settings": (ctypes.c_int, [vp, ctypes.POINTER(Settings), cp, sz]),
        "scaly_qp_solve": (ctypes.c_int, [vp, _dp, _dp, _dp, _dp]),
        "scaly_qp_solution": (None, [vp, _dp, _dp, _dp, _dp]),
        "scaly_qp_get_info": (None, [vp, ctypes.POINTER(Info)]),
        "scaly_qp_get_stats": (None, [vp, ctypes.POINTER(SolverStats)]),
        "scaly_qp_free": (None, [vp]),
        "scaly_qp_version": (cp, []),
    }
    _lib = _typed(lib, sig)
    return lib


_nlp = None


def nlp_library() -> ctypes.CDLL:
    """The NLP library (``libscaly_nlp.so``: IPOPT and Scaly SQP), loaded once, typed."""
    global _nlp
    if _nlp is not None:
        return _nlp
    lib = ctypes.CDLL(native_paths()["scaly_nlp"])
    cp, sz, i32 = ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int32
    sig = {
        "scaly_nlp_option_count": (ctypes.c_int, [i32]),
        "scaly_nlp_option_name": (cp, [i32, ctypes.c_int]),
        "scaly_nlp_option_default": (ctypes.c_double, [i32, ctypes.c_int]),
        "scaly_nlp_option_choices": (cp, [i32, ctypes.c_int]),
        "scaly_nlp_check_option": (ctypes.c_int, [i32, cp, ctypes.c_double, cp, sz]),
        "scaly_nlp_check_ipopt_option": (ctypes.c_int, [cp, cp, cp, sz]),
        "scaly_nlp_version": (cp, []),
    }
    _nlp = _typed(lib, sig)
    return lib
