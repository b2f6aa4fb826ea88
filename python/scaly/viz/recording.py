"""Recording renders of marked functions (scaly.viz).

The render paths (`scaly.codegen.render_c_module` and the JIT's render) look
for this module in `sys.modules` and, for a marked function, render with the
pass instrumentation on and hand the result to `record`. A recording is kept in
memory for `recordings()` and appended to `recording_path()`: under an
exclusive lock on a sibling lock file, the list is read, extended and written
to a temporary file renamed into place, so processes appending at once lose
nothing and a reader never sees a half-written file.
"""

from __future__ import annotations

import datetime
import fcntl
import json
import os
import threading
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

_RECORDING_LOCK = threading.RLock()
# id(Function) -> (the Function, its label); the object is kept so its id is
# never reused by another Function while it is marked.
_VIZ_TARGETS: dict = {}
_RECORDINGS: list = []


def visualize_function(fun, *, label: str | None = None):
    """Mark ``fun`` for visualization on future AOT/JIT renders and return it.

    Exact-object opt-in: only Functions passed here (or to ``capture``) are
    recorded, so ``f = visualize_function(f)`` works."""
    from .._function import Function
    if not isinstance(fun, Function):
        raise TypeError(f"visualize_function: expected a scaly Function, got {type(fun).__name__}")
    if label is not None and not isinstance(label, str):
        raise TypeError(f"visualize_function: label must be a str or None, got "
                        f"{type(label).__name__}")
    with _RECORDING_LOCK:
        _VIZ_TARGETS[id(fun)] = (fun, label)
    return fun


def _entry(fun):
    """(fun, label) when this exact object is marked, else None (call with the lock held)."""
    entry = _VIZ_TARGETS.get(id(fun))
    return entry if entry is not None and entry[0] is fun else None


def unvisualize_function(fun) -> None:
    """Stop recording renders of ``fun``; does nothing if it was not marked."""
    with _RECORDING_LOCK:
        if _entry(fun) is not None:
            del _VIZ_TARGETS[id(fun)]


@contextmanager
def capture(fun, *, label: str | None = None) -> Iterator:
    """Record renders of ``fun`` only inside a ``with`` block, which yields ``fun``
    (a mark made before the block, and its label, are restored after it)."""
    with _RECORDING_LOCK:
        before = _entry(fun)
    visualize_function(fun, label=label)
    try:
        yield fun
    finally:
        with _RECORDING_LOCK:
            if before is not None:
                _VIZ_TARGETS[id(fun)] = before
            else:
                unvisualize_function(fun)


def watched(fun) -> bool:
    """Whether ``fun`` (this exact object) is marked."""
    with _RECORDING_LOCK:
        return _entry(fun) is not None


def _label(fun):
    with _RECORDING_LOCK:
        entry = _entry(fun)
    return entry[1] if entry is not None and entry[1] else fun.name


def recordings() -> list[dict[str, Any]]:
    """The recordings made in this process, oldest first: JSON-ready dicts with the
    display ``name``, the ``function`` name, any render ``error`` and the ``steps``
    (the expression graph, the IR after each pass, the generated C)."""
    with _RECORDING_LOCK:
        return list(_RECORDINGS)


def load_recordings(path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Read the recordings saved at ``path`` (default ``recording_path()``), those of
    other processes included; [] when there is no file. A file that is not a JSON
    list raises ValueError naming it."""
    p = Path(path) if path is not None else recording_path()
    if not p.exists():
        return []
    try:
        data = json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"load_recordings: {p} is not a recordings file ({e})") from None
    if not isinstance(data, list):
        raise ValueError(f"load_recordings: {p} is not a recordings file (expected a JSON list)")
    return data


def clear_recordings(*, disk: bool = False) -> None:
    """Forget this process's recordings; with ``disk=True`` delete the recording file too."""
    with _RECORDING_LOCK:
        _RECORDINGS.clear()
    if disk and recording_dir().is_dir():
        with _file_lock():
            recording_path().unlink(missing_ok=True)


def recording_dir() -> Path:
    """The directory recordings are written to: ``SCALY_VIZ_DIR``, else
    ``$XDG_CACHE_HOME/scaly/viz``, else ``~/.cache/scaly/viz``."""
    override = os.environ.get("SCALY_VIZ_DIR")
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "scaly" / "viz"


def recording_path() -> Path:
    """The JSON file every finished recording is appended to."""
    return recording_dir() / "recordings.json"


@contextmanager
def _file_lock():
    directory = recording_dir()
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / "recordings.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _append(recording):
    path = recording_path()
    with _file_lock():
        try:
            existing = json.loads(path.read_text()) if path.exists() else []
            damaged = not isinstance(existing, list)
        except (json.JSONDecodeError, UnicodeDecodeError):
            damaged = True
        if damaged:
            # Never appended to and never lost: moved aside, a new list begun.
            aside = path.with_name(f"{path.name}.damaged")
            os.replace(path, aside)
            warnings.warn(f"scaly.viz: {path} was not a recordings list; moved it to {aside} "
                          "and started a new one", RuntimeWarning, stacklevel=4)
            existing = []
        existing.append(recording)
        tmp = path.with_name(f"{path.name}.tmp.{os.getpid()}.{threading.get_ident()}")
        try:
            tmp.write_text(json.dumps(existing))
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()


def record(fun, mode, *, module=None, error=None):
    """Append the recording of one render of ``fun`` (called by the render paths):
    ``module`` a RenderedModule rendered with its stages, or ``error`` the failure."""
    from .. import _scaly
    steps = []
    try:
        functions = _scaly.expr_graph(fun._traced)
        for f in functions:  # as JSON has them, in memory too
            f["edges"] = [list(e) for e in f["edges"]]
        steps.append({"kind": "graph", "name": "expression graph", "functions": functions})
    except Exception as e:  # the graph of a function that cannot be built
        steps.append({"kind": "graph", "name": "expression graph", "functions": [],
                      "error": str(e)})
    timing = None
    if module is not None:
        seconds = tuple(getattr(module, "stage_seconds", ()))
        previous = None
        for k, (name, text) in enumerate(module.stages):
            step = {"kind": "ir", "name": name, "text": text,
                    "seconds": seconds[k] if k < len(seconds) else None}
            if previous is not None:
                step["changed"] = text != previous
            previous = text
            steps.append(step)
        timed = [s for s in steps[2:] if s.get("kind") == "ir" and s["seconds"] is not None]
        if timed:
            slowest = max(timed, key=lambda s: s["seconds"])
            timing = {"total": sum(s["seconds"] for s in timed), "slowest": slowest["name"],
                      "slowest_seconds": slowest["seconds"],
                      "unchanged": sum(not s.get("changed", True) for s in timed)}
        steps.append({"kind": "c", "name": "C", "source": module.source,
                      "header": module.header, "recipe": module.recipe})
    recording = {"name": _label(fun), "function": fun.name, "mode": mode,
                 "error": None if error is None else str(error),
                 "time": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                 "pid": os.getpid(), "passes": timing, "steps": steps}
    with _RECORDING_LOCK:
        _RECORDINGS.append(recording)
    try:
        _append(recording)
    except OSError as e:
        # A recordings folder that cannot be written never fails the render.
        warnings.warn(f"scaly.viz: could not save the recording of {fun.name}() to "
                      f"{recording_path()}: {e}", RuntimeWarning, stacklevel=3)
    return recording
