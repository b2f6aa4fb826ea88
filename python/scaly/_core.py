"""The compiler half of Scaly's native code, imported on first use.

`scaly._scaly` (tracing graph, passes, C printer, in-process Clang) maps
libLLVM, libMLIR and libclang-cpp: about 100 ms of loading. `import scaly`
does not load it; `core` stands in for the module and imports it the first
time one of its attributes is read (a trace, a lowering, a compile). A
process whose Functions all come from the cache's trace-free index
(runtime/fast.py) never loads it at all.

What must be known before then, the dialect's enumerations (the math
function names sc.<name> and Expr.<name> are made from), is read from
_enums.json, which the build writes next to the extension
(``python _core.py --write-enums <extension> <json>``).
"""

import json
import os
import sys
import threading

_LOCK = threading.RLock()
_MODULE = None
_ON_LOAD = []


def loaded():
    """Whether the compiler module is loaded in this process."""
    return _MODULE is not None


def on_load(hook):
    """Run `hook(module)` when the compiler module is loaded (now, if it is)."""
    with _LOCK:
        if _MODULE is None:
            _ON_LOAD.append(hook)
            return
    hook(_MODULE)


def load():
    """The compiler module `scaly._scaly`, imported (and its hooks run) on the first call."""
    global _MODULE
    if _MODULE is not None:
        return _MODULE
    with _LOCK:
        if _MODULE is None:
            # Lazy binding: Python opens extensions with RTLD_NOW, which resolves
            # every symbol libLLVM, libMLIR and libclang-cpp import before the
            # first use; most are never called. Binding them on first call made
            # the load ~30% shorter here (~130 -> ~90 ms, under load).
            flags = sys.getdlopenflags()
            sys.setdlopenflags((flags & ~os.RTLD_NOW) | os.RTLD_LAZY)
            try:
                from . import _scaly
            finally:
                sys.setdlopenflags(flags)
            for hook in _ON_LOAD:
                hook(_scaly)
            _ON_LOAD.clear()
            _MODULE = _scaly
    return _MODULE


class _Core:
    """Stands in for `scaly._scaly`: attribute reads load it."""

    __slots__ = ()

    def __getattr__(self, name):
        return getattr(load(), name)

    def __setattr__(self, name, value):  # monkeypatching in tests reaches the module
        setattr(load(), name, value)

    def __delattr__(self, name):
        delattr(load(), name)


core = _Core()

_ENUMS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_enums.json")


def expr_enums():
    """The expression dialect's enumerations by kind, from _enums.json when the build
    wrote it (no compiler loaded), else from the compiler module."""
    try:
        with open(_ENUMS_FILE) as f:
            enums = json.load(f)
        if isinstance(enums, dict) and all(isinstance(v, list) for v in enums.values()):
            return enums
    except (OSError, ValueError):
        pass
    return load().expr_enums()


def _write_enums(extension, out):
    """Build step: import the extension from its file and write its enumerations."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("scaly._scaly", extension)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = json.dumps(module.expr_enums(), sort_keys=True)
    tmp = f"{out}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "--write-enums":
        sys.exit("usage: _core.py --write-enums <_scaly extension> <output json>")
    _write_enums(sys.argv[2], sys.argv[3])
