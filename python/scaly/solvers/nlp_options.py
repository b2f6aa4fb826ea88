"""Options of the NLP backends: names, defaults and checks, read from the library.

Each backend has a table of numerical options (``nlp_option_names``); an
option with named choices (IPOPT's ``mu_strategy``, SQP's
``hessian_approximation``) takes the choice's name, stored as its index. At
trace time IPOPT also takes any other of its options by name (checked by
IPOPT itself); call-time options are the table's only, since they travel as
an array of numbers through ``<entry>_with_options``.
"""

import math
import numbers

import numpy as np

from ._native import nlp_library

BACKEND_CODES = {"ipopt": 0, "sqp": 1}

IPOPT_STATUS_NAMES = {
    0: "Solve_Succeeded", 1: "Solved_To_Acceptable_Level", 2: "Infeasible_Problem_Detected",
    3: "Search_Direction_Becomes_Too_Small", 4: "Diverging_Iterates", 5: "User_Requested_Stop",
    6: "Feasible_Point_Found", -1: "Maximum_Iterations_Exceeded", -2: "Restoration_Failed",
    -3: "Error_In_Step_Computation", -4: "Maximum_CpuTime_Exceeded",
    -10: "Not_Enough_Degrees_Of_Freedom", -11: "Invalid_Problem_Definition",
    -12: "Invalid_Option", -13: "Invalid_Number_Detected", -100: "Unrecoverable_Exception",
    -101: "NonIpopt_Exception_Thrown", -102: "Insufficient_Memory", -199: "Internal_Error",
}
SQP_STATUS_NAMES = {
    0: "solved", 1: "acceptable", 2: "rti_step", -1: "max_iter", -2: "infeasible",
    -3: "unbounded", -4: "line_search_failed", -5: "qp_failed", -6: "eval_error",
    -11: "invalid_data",
}


def nlp_option_names(solver):
    """The numerical options of backend `solver` ("ipopt" or "sqp"), in table order."""
    lib, code = nlp_library(), _code(solver)
    return [lib.scaly_nlp_option_name(code, k).decode()
            for k in range(lib.scaly_nlp_option_count(code))]


def nlp_default_options(solver):
    """Backend `solver`'s table as {name: default}; None where the backend's own
    default applies (IPOPT's), choice options by choice name."""
    lib, code = nlp_library(), _code(solver)
    out = {}
    for k, name in enumerate(nlp_option_names(solver)):
        value = lib.scaly_nlp_option_default(code, k)
        choices = _choices(solver, k)
        out[name] = (None if math.isnan(value) else
                     choices[int(value)] if choices else
                     int(value) if value == int(value) and abs(value) < 2**31 else value)
    return out


def _code(solver):
    if solver not in BACKEND_CODES:
        raise ValueError(f"unknown NLP solver {solver!r}; expected 'ipopt' or 'sqp'")
    return BACKEND_CODES[solver]


def _choices(solver, k):
    text = nlp_library().scaly_nlp_option_choices(_code(solver), k)
    return text.decode().split("|") if text else None


def _flatten(solver, options, what):
    """`options` as one flat dict: the backend's name may nest them ({"ipopt": {...}})."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"{what}: options must be a dict, got {type(options).__name__}")
    flat = {}
    for key, value in options.items():
        if key in BACKEND_CODES:
            if key != solver:
                raise ValueError(f"{what}: options for {key!r} given to a {solver!r} solve")
            if not isinstance(value, dict):
                raise TypeError(f"{what}: options[{key!r}] must be a dict, got "
                                f"{type(value).__name__}")
            flat.update(value)
        else:
            flat[key] = value
    return flat


def _number(solver, name, value, k, what):
    """The table value of option `name` (k-th), checked by the library."""
    choices = _choices(solver, k)
    if choices is not None:
        if isinstance(value, str):
            if value not in choices:
                raise ValueError(f"{what}: option {name!r} takes one of "
                                 f"{', '.join(map(repr, choices))}, got {value!r}")
            return float(choices.index(value))
        if isinstance(value, bool):
            value = int(value)
        if not isinstance(value, numbers.Integral):
            raise TypeError(f"{what}: option {name!r} takes one of "
                            f"{', '.join(map(repr, choices))}, got {value!r}")
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}: option {name!r} takes a number, got {value!r}")
    err = _buffer()
    if nlp_library().scaly_nlp_check_option(_code(solver), name.encode(), float(value), err,
                                            len(err)) < 0:
        raise ValueError(f"{what}: {err.value.decode()}")
    return float(value)


def _buffer():
    import ctypes
    return ctypes.create_string_buffer(512)


def check_trace_options(solver, options):
    """The defaults `sc.nlp(..., options=...)` fixes: {name: number} for the
    table's options, {name: text} for IPOPT's others (IPOPT checks them)."""
    what = "nlp"
    flat = _flatten(solver, options, what)
    names = nlp_option_names(solver)
    out = {}
    for name, value in flat.items():
        if not isinstance(name, str):
            raise TypeError(f"{what}: option names are strings, got {name!r}")
        if name in names:
            out[name] = _number(solver, name, value, names.index(name), what)
        elif solver == "ipopt":
            if isinstance(value, bool) or not isinstance(value, (str, numbers.Real)):
                raise TypeError(f"{what}: IPOPT option {name!r} takes a string or a number, "
                                f"got {value!r}")
            text = value if isinstance(value, str) else repr(value)
            err = _buffer()
            if nlp_library().scaly_nlp_check_ipopt_option(name.encode(), text.encode(), err,
                                                          len(err)) < 0:
                raise ValueError(f"{what}: {err.value.decode()}")
            out[name] = text
        else:
            raise ValueError(f"{what}: unknown option {name!r} for solver 'sqp'; the options "
                             f"are {', '.join(names)}")
    return out


def option_array(solver, options, what="options"):
    """A call-time option array for one NLP wrapper: NaN where `options` says nothing."""
    flat = _flatten(solver, options, what)
    names = nlp_option_names(solver)
    values = np.full(len(names), np.nan)
    for name, value in flat.items():
        if name not in names:
            raise ValueError(f"{what}: unknown option {name!r} for solver {solver!r}; call-time "
                             f"options are {', '.join(names)} (IPOPT's others are set when "
                             "tracing: sc.nlp(..., options=...))")
        values[names.index(name)] = _number(solver, name, value, names.index(name), what)
    return values
