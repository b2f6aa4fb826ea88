"""Exporting C: `render_c_module`."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from functools import cached_property

from ._core import core as _scaly
from ._function import Function

CPUS = ("generic", "x86-64-v2", "x86-64-v3", "x86-64-v4", "native")
LANES = (1, 2, 4, 8, "auto")
DIALECTS = ("gnu", "c99")
VECTOR_LIBMS = ("none", "glibc")
LANGS = ("c", "cpp")
FP_CONTRACTS = ("off", "fast")


@dataclass(frozen=True)
class EntryInfo:
    """What calling one exported entry needs, as data: its name (the C symbol), its
    inputs and outputs as (name, shape, dtype), the pointer type of its five-argument
    ABI ("double", "float" or "void") and the bytes of workspace `w` it needs."""

    name: str
    inputs: tuple
    outputs: tuple
    pointer_type: str
    workspace_bytes: int
    #: The C view of each input and output, as the header declares it: dicts with
    #: name, field (of the typed <entry>_in/_out struct), c_type, shape and tables
    #: (a sparse output's index tables: (suffix, length) pairs).
    c_inputs: tuple = ()
    c_outputs: tuple = ()


def _entries(functions, out):
    return tuple(EntryInfo(e["name"], tuple(f.inputs), tuple(f.outputs), e["pointer_type"],
                           e["workspace_bytes"], tuple(e["inputs"]), tuple(e["outputs"]))
                 for f, e in zip(functions, out["entries"]))


@dataclass(frozen=True)
class RenderedModule:
    """A rendered C module: `source` (<name>.c), `header` and the `recipe` comment.

    The header is C (<name>.h, included by the source) or, for lang="cpp",
    C++ (<name>.hpp, which the source does not include).
    """

    name: str
    source: str
    header: str
    recipe: str
    lang: str = "c"
    #: One `EntryInfo` per exported function, in the order they were given.
    entries: tuple = ()
    #: With `record_stages=True`: (stage, IR text) pairs, "input" (the traced expression
    #: module) then one per pass of the pipeline, in order, each with its locations.
    stages: tuple = ()
    #: Every C function the source defines, as the emitter printed it: dicts with
    #: name, specifiers ("static inline", or "" for an entry), result, params (their
    #: types) and param_names (each name the function gives, else "").
    functions: tuple = ()
    #: With a WebAssembly shim (scaly.wasm): the shim (<name>_wasm.c), its header
    #: (<name>_wasm.h), the allocation exports of a standalone module
    #: (scaly_alloc.c) and the shim's exports as dicts (entry, kind, detail, name,
    #: c_result, c_params as (C type, name) pairs).
    wasm_shim: str = ""
    wasm_header: str = ""
    wasm_alloc: str = ""
    wasm_exports: tuple = ()
    #: With a WebAssembly shim: (entry, why it has no scalar export, or "") pairs,
    #: and the status codes an entry returns as (value, name, meaning).
    wasm_no_scalar: tuple = ()
    status_codes: tuple = ()
    #: A module that reaches a solver: its wrapper source (<name>_solvers.c, its own
    #: translation unit), the wrappers' names in call order, and the build manifest
    #: (<name>.build.json: files, solvers, include and library paths, build command).
    solver_source: str = ""
    solvers: tuple = ()
    manifest: str = ""
    #: With `record_stages=True`: the wall time in seconds of each stage's pass,
    #: parallel to `stages` (0.0 for "input"), measured by the pass instrumentation.
    stage_seconds: tuple = ()
    #: How to find `line_origins` when a render did not: a function of no arguments
    #: (render_c_module's second render with the same options; None: there are none).
    find_line_origins: object = field(default=None, repr=False, compare=False)

    @cached_property
    def line_origins(self):
        """Where each statement of `source` came from: (C line, ((file, line), ...))
        pairs, the line 1-based in `source`, the Python lines those of every op the
        statement prints (inlined operands included). Statements of ops without a
        Python location (the entry's argument checks, its return) have none.

        Recording them costs the C printer about 7 % of a render, so render_c_module
        records them only with ``line_comments=True`` or for scaly.viz; otherwise the
        first read renders the module again with them, once (the C is the same: a
        render is deterministic)."""
        return tuple(self.find_line_origins()) if self.find_line_origins else ()

    @property
    def header_name(self):
        """File name of the header: <name>.h, or <name>.hpp for lang="cpp"."""
        return f"{self.name}.hpp" if self.lang == "cpp" else f"{self.name}.h"

    def write(self, directory):
        """Write <name>.c and the header into `directory`; returns the two paths.
        A module that reaches a solver also gets <name>_solvers.c and
        <name>.build.json beside them."""
        import os
        os.makedirs(directory, exist_ok=True)
        c_path = os.path.join(directory, f"{self.name}.c")
        h_path = os.path.join(directory, self.header_name)
        with open(c_path, "w") as f:
            f.write(self.source)
        with open(h_path, "w") as f:
            f.write(self.header)
        if self.solver_source:
            with open(os.path.join(directory, f"{self.name}_solvers.c"), "w") as f:
                f.write(self.solver_source)
            with open(os.path.join(directory, f"{self.name}.build.json"), "w") as f:
                f.write(self.manifest)
        return c_path, h_path


def _check(name, value, allowed, caller="render_c_module"):
    if value not in allowed or isinstance(value, bool) != isinstance(allowed[0], bool):
        raise ValueError(f"{caller}: {name}={value!r} is not one of "
                         f"{', '.join(repr(a) for a in allowed)}")


def _check_casadi(functions, lang):
    """CasADi's external functions take float64 scalars, vectors and matrices."""
    if lang != "c":
        raise ValueError("render_c_module: casadi=True exports C (lang='c'), got lang="
                         f"{lang!r}")
    for f in functions:
        sparse = getattr(f, "_sparse", {})
        for k, (layout, _, _) in sparse.items():
            if layout != "csc":
                raise ValueError(f"render_c_module(casadi=True): output '{f.outputs[k][0]}' of "
                                 f"{f.name}() has layout {layout!r}; CasADi takes sparse values "
                                 "in compressed-column order only (layout='csc')")
        for kind, ports in (("input", f.inputs), ("output", f.outputs)):
            for k, (port, shape, dtype) in enumerate(ports):
                if dtype != "float64":
                    raise ValueError(f"render_c_module(casadi=True): {kind} '{port}' of "
                                     f"{f.name}() is {dtype}; CasADi's external functions take "
                                     "float64 values only (cast with .astype('float64'))")
                if len(shape) > 2 and not (kind == "output" and k in sparse):
                    raise ValueError(f"render_c_module(casadi=True): {kind} '{port}' of "
                                     f"{f.name}() has shape {tuple(shape)}; CasADi's values are "
                                     "scalars, vectors or matrices (reshape to 2-D)")


# The x86-64 vector ABI libmvec's variants use per lane width: the CPU
# baselines whose -march gives it (auto picks a width the flags give).
_GLIBC_BASELINES = {2: CPUS, 4: ("x86-64-v3", "x86-64-v4", "native"), 8: ("x86-64-v4", "native"),
                    "auto": CPUS}


def _viz_watched(functions):
    """scaly.viz's recorder and the functions of `functions` it watches (none when
    scaly.viz was never imported: rendering never imports it)."""
    viz = sys.modules.get("scaly.viz.recording")
    if viz is None:
        return None, []
    return viz, [f for f in functions if viz.watched(f)]


def _entry_params(module, name):
    """The C parameters of entry `name` of rendered `module`, as (type, name) pairs
    (`("const double**", "arg"), ...`), as the printer declared them."""
    for f in module.functions:
        if f["name"] == name and not f["specifiers"]:
            return list(zip(f["params"], f["param_names"]))
    raise ValueError(f"the module {module.name} defines no entry {name}(...)")


def _render_recorded(functions, options, mode):
    """Render through _scaly.render into a RenderedModule; for functions scaly.viz
    watches, with the pass stages on, and one recording per watched function
    (errors included)."""
    viz, watched = _viz_watched(functions)
    asked = options.get("record_stages", False)
    if watched:  # the recording shows the stages and the C lines of each Python line
        options = dict(options, record_stages=True, line_origins=True)
    try:
        out = _scaly.render([f._traced for f in functions], options)
    except Exception as e:
        for f in watched:
            viz.record(f, mode, error=e)
        raise
    module = RenderedModule(out["name"], out["source"], out["header"], out["recipe"],
                            options["lang"], _entries(functions, out), tuple(out["stages"]),
                            tuple(out["functions"]), out.get("wasm_shim", ""),
                            out.get("wasm_header", ""), out.get("wasm_alloc", ""),
                            tuple(out.get("wasm_exports", ())),
                            tuple(out.get("wasm_no_scalar", {}).items()),
                            tuple(out.get("status_codes", ())),
                            stage_seconds=tuple(out.get("stage_seconds", ())),
                            find_line_origins=_line_origins_finder(functions, options, out))
    module = _with_solvers(module, options, out.get("solver_names", ()))
    for f in watched:
        viz.record(f, mode, module=module)
    return replace(module, stages=(), stage_seconds=()) if watched and not asked else module


def _line_origins_finder(functions, options, out):
    """RenderedModule.find_line_origins for a render's output `out`: its own records
    when the render made them, else a second render of `functions` that makes them."""
    if "line_origins" in out:
        origins = out["line_origins"]
        return lambda: origins
    again = dict(options, line_origins=True)
    traced = [f._traced for f in functions]
    return lambda: _scaly.render(traced, again)["line_origins"]


def _with_solvers(module, options, solver_names):
    """`module` with its solver wrappers' source and build manifest, if it calls any
    (`solver_names`: (traced name, C name) of each wrapper its source declares, as the
    render named them)."""
    if not solver_names:
        return module
    if options.get("lang", "c") != "c" or options.get("casadi"):
        raise ValueError("render_c_module: a module that reaches a solver is exported as C "
                         "(lang='c', casadi=False) for now")
    import json
    from .solvers import native_paths
    from .solvers.wrapper import build_manifest, render_wrappers
    names = [traced for traced, _ in solver_names]
    renames = dict(solver_names)
    entries = [(e.name, _entry_params(module, e.name)) for e in module.entries]
    paths = native_paths()
    manifest = build_manifest(module.name, names, paths["include"], paths["scaly_qp"], renames)
    recipe = {k: v for k, v in options.items()
              if k not in ("name", "record_stages", "line_origins")}
    return replace(module, solver_source=render_wrappers(entries, names, renames, recipe),
                   solvers=tuple(renames[n] for n in names),
                   manifest=json.dumps(manifest, indent=2) + "\n")


def default_scalarize_limit(lanes):
    """Arrays of at most this many elements are scalarized by default: 64 without
    lanes; with lanes, 15 (one element less than two 8-lane iterations)."""
    return 64 if lanes == 1 else 15


def _check_recipe(cpu, lanes, dialect, vector_libm):
    """Refuse recipe options that cannot build together, naming the option."""
    if dialect == "c99" and lanes != 1:
        raise ValueError(f"render_c_module: lanes={lanes!r} needs GNU vector extensions, which "
                         "dialect='c99' does not use; use lanes=1 or dialect='gnu'")
    if vector_libm == "glibc":
        if dialect == "c99":
            raise ValueError("render_c_module: vector_libm='glibc' calls libmvec on GNU vector "
                             "types, which dialect='c99' does not use; use dialect='gnu'")
        if lanes == 1:
            raise ValueError("render_c_module: vector_libm='glibc' needs vector lanes (lanes=2, 4, "
                             "8 or 'auto'); with lanes=1 every call is scalar libm")
        if cpu not in _GLIBC_BASELINES[lanes]:
            raise ValueError(f"render_c_module: vector_libm='glibc' with lanes={lanes} needs "
                             f"cpu={' or '.join(repr(c) for c in _GLIBC_BASELINES[lanes])} "
                             f"(the vector ABI of its width), got cpu={cpu!r}")


def render_c_module(fn, *, name=None, cpu="generic", lanes=1, dialect="gnu", vector_libm="none",
                    reciprocal=False, lang="c", casadi=False, fp_contract="off",
                    scalarize_limit=None, record_stages=False, line_comments=False):
    """Render the C module of `fn` for a build recipe; returns a `RenderedModule`.

    `fp_contract` is the recipe's floating-point contraction: "off" (default;
    `a*b + c` rounds the product, as NumPy does) or "fast" (compilers may fuse
    it into one FMA where the CPU baseline has one). Arrays of at most
    `scalarize_limit` elements become one C scalar per element; larger ones
    lower to loops. Its default is 64 with lanes=1 and 15 with vector lanes:
    an array that fills two 8-lane iterations is a loop the lanes widen, while
    small states (a cart-pole's 4) stay scalars, so a map over them widens.

    `fn` may be a list of Functions: each is exported from the one module with its
    own five-argument entry, status codes, SZ_* macros and header declarations;
    `name` names the module's files (default: the first function's name).
    `RenderedModule.entries` describes each entry as data. With `record_stages`,
    `RenderedModule.stages` holds the IR before and after every pass of the
    pipeline (recorded through MLIR's pass instrumentation).

    Each C statement's Python origin is in `RenderedModule.line_origins`; with
    ``line_comments=True`` the C also carries it as ``/* model.py:12 */`` comments,
    one above each statement whose source lines differ from the previous comment's.

    With ``casadi=True`` the module also exports CasADi's external function API for
    each entry (``casadi.external("<entry>", "<library>.so")`` loads it; Scaly's own
    five-argument entry is then named ``<entry>_scaly``): float64 ports only, dense
    matrices column-major as CasADi stores them, sparse outputs in compressed-column
    order (see docs/casadi.md).

    The build recipe (docs/recipe.md): `cpu` is the CPU baseline the recipe's
    commands target ("generic", "x86-64-v2", "x86-64-v3", "x86-64-v4", "native");
    `lanes` (1, 2, 4, 8 or "auto") widens loops of independent iterations to that
    many elements per vector iteration ("auto": the preprocessor picks 8 with
    AVX-512, 4 with AVX2, else 2); `vector_libm="glibc"` calls glibc's vector math
    (libmvec) on the lanes, guarded so a build without the recipe's flags fails;
    `reciprocal=True` lets a division by a constant or loop-invariant divisor be a
    multiplication by its reciprocal (never general fast-math); `dialect="c99"`
    uses no GNU vector extensions. Every option is validated, and combinations
    that cannot build raise ValueError naming the option.
    """
    functions, options = _aot_options(fn, name=name, cpu=cpu, lanes=lanes, dialect=dialect,
                                      vector_libm=vector_libm, reciprocal=reciprocal, lang=lang,
                                      casadi=casadi, fp_contract=fp_contract,
                                      scalarize_limit=scalarize_limit, record_stages=record_stages,
                                      line_comments=line_comments)
    return _render_recorded(functions, options, "aot")


def _aot_options(fn, *, name, cpu, lanes, dialect, vector_libm, reciprocal, lang, casadi,
                 fp_contract, scalarize_limit, record_stages, line_comments=False,
                 caller="render_c_module"):
    """render_c_module's arguments, checked: (functions, options for _scaly.render). Errors
    name `caller`, the public function the arguments were given to."""
    functions = list(fn) if isinstance(fn, (list, tuple)) else [fn]
    if not functions:
        raise ValueError(f"{caller}: the list of functions to export is empty")
    for f in functions:
        if not isinstance(f, Function):
            raise TypeError(f"{caller}: expected a scaly Function or a list of them, "
                            f"got {type(f).__name__}")
    names = [f.name for f in functions]
    for n in names:
        if names.count(n) > 1:
            raise ValueError(f"{caller}: two functions to export are named {n!r}; "
                             "each entry needs its own name")
    if name is not None and (not isinstance(name, str) or not name.isidentifier()):
        raise ValueError(f"{caller}: name={name!r} must be a C identifier")
    _check("cpu", cpu, CPUS, caller)
    if not (lanes == "auto" or (type(lanes) is int and lanes in LANES)):
        raise ValueError(f"{caller}: lanes={lanes!r} is not one of 1, 2, 4, 8, 'auto'")
    _check("dialect", dialect, DIALECTS, caller)
    _check("vector_libm", vector_libm, VECTOR_LIBMS, caller)
    if not isinstance(reciprocal, bool):
        raise ValueError(f"{caller}: reciprocal must be True or False, got {reciprocal!r}")
    _check("lang", lang, LANGS, caller)
    if not isinstance(casadi, bool):
        raise ValueError(f"{caller}: casadi must be True or False, got {casadi!r}")
    if scalarize_limit is None:
        scalarize_limit = default_scalarize_limit(lanes)
    if type(scalarize_limit) is not int or not 0 <= scalarize_limit <= 4096:
        raise ValueError(f"{caller}: scalarize_limit={scalarize_limit!r} must be an int "
                         "from 0 to 4096")
    _check("fp_contract", fp_contract, FP_CONTRACTS, caller)
    _check_recipe(cpu, lanes, dialect, vector_libm)
    if casadi:
        _check_casadi(functions, lang)
    options = {"cpu": cpu, "lanes": 0 if lanes == "auto" else lanes, "dialect": dialect, "vector_libm": vector_libm,
               "reciprocal": reciprocal, "lang": lang, "fp_contract": fp_contract,
               "scalarize_limit": scalarize_limit, "casadi": casadi}
    if name is not None:
        options["name"] = name
    if not isinstance(record_stages, bool):
        raise ValueError(f"{caller}: record_stages must be True or False, "
                         f"got {record_stages!r}")
    options["record_stages"] = record_stages
    if not isinstance(line_comments, bool):
        raise ValueError(f"{caller}: line_comments must be True or False, "
                         f"got {line_comments!r}")
    options["line_comments"] = line_comments
    return functions, options


def render_native(fn, fp_contract="off", lanes=1, vector_libm="none", name=None):
    """The module the JIT compiles: the host recipe (cpu="native", the lanes and
    vector math the host probe chose), the header without sparse index tables
    (the source never reads them), otherwise defaults (fp_contract: the JIT's
    SCALY_FP_CONTRACT). `name` names the module's files, as in render_c_module."""
    _check("fp_contract", fp_contract, FP_CONTRACTS)
    _check("vector_libm", vector_libm, VECTOR_LIBMS)
    _check_recipe("native", lanes, "gnu", vector_libm)
    options = {"cpu": "native", "lanes": lanes, "dialect": "gnu", "vector_libm": vector_libm,
               "reciprocal": False, "lang": "c", "fp_contract": fp_contract,
               "scalarize_limit": default_scalarize_limit(lanes), "sparse_tables": False}
    if name is not None:
        options["name"] = name
    return _render_recorded([fn], options, "jit")
