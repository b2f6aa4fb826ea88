"""Recording renders of marked functions (scaly.viz).

The render paths (`scaly.codegen.render_c_module` and the JIT's render) look
for this module in `sys.modules` and, for a marked function, render with the
pass instrumentation on and hand the result to `record`. A recording is kept in
memory for `recordings()` and saved in `recording_dir()`: its own file
`recordings/<id>.json` (written to a temporary file renamed into place), then
one line of summary appended to the index `index.jsonl` under an exclusive lock
on `recordings.lock`. Appending costs the same whatever the history, processes
appending at once lose nothing, and a reader never sees a half-written
recording (an index line not yet complete is skipped). A `recordings.json` of
the earlier single-file layout is read as it is and moved into the new layout
by the next append.
"""

from __future__ import annotations

import datetime
import fcntl
import itertools
import json
import os
import re
import shutil
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


INDEX_NAME = "index.jsonl"
LEGACY_NAME = "recordings.json"
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_SEQUENCE = itertools.count()
# The summary fields of a recording the index keeps (the page lists them).
_SUMMARY = ("name", "function", "mode", "time", "pid", "passes")


def summary(recording: dict, rid: str) -> dict[str, Any]:
    """The index entry of ``recording`` (its id and a few small fields)."""
    entry = {"id": rid}
    entry.update({k: recording.get(k) for k in _SUMMARY})
    error = recording.get("error")
    entry["error"] = None if error is None else str(error)[:200]
    entry["steps"] = len(recording.get("steps") or ())
    return entry


def _directory(path) -> tuple[Path, Path | None]:
    """(recordings directory, legacy single file or None) for ``path``: a directory,
    its index file, or a recordings list file of the earlier layout."""
    p = Path(path) if path is not None else recording_dir()
    if p.is_dir() or (not p.exists() and p.suffix == ""):
        return p, None
    if p.name == INDEX_NAME:
        return p.parent, None
    return p.parent, p


def _read_legacy(path: Path) -> list:
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"load_recordings: {path} is not a recordings file ({e})") from None
    if not isinstance(data, list):
        raise ValueError(f"load_recordings: {path} is not a recordings file (expected a JSON list)")
    return data


def _parse_index(data: bytes) -> list:
    entries = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue  # a line being written, or a damaged one: skipped
        if isinstance(entry, dict) and isinstance(entry.get("id"), str) and _ID.match(entry["id"]):
            entries.append(entry)
    return entries


def load_index(path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """The index of the recordings at ``path`` (default ``recording_dir()``), oldest first:
    one small dict per recording (``id``, ``name``, ``function``, ``mode``, ``error``,
    ``time``, ``pid``, ``passes``, ``steps``). A recordings list of the earlier layout
    (``recordings.json``, or ``path`` itself when it is such a file) comes first, its
    recordings named ``legacy-<k>``."""
    directory, legacy = _directory(path)
    if legacy is not None:
        return [summary(r, f"legacy-{k}") for k, r in enumerate(_read_legacy(legacy))]
    entries = []
    old = directory / LEGACY_NAME
    if old.exists():
        entries = [summary(r, f"legacy-{k}") for k, r in enumerate(_read_legacy(old))]
    try:
        data = (directory / INDEX_NAME).read_bytes()
    except FileNotFoundError:
        return entries
    return entries + _parse_index(data)


def load_recording(rid: str, path: str | os.PathLike | None = None) -> dict[str, Any]:
    """The recording ``rid`` (an ``id`` of ``load_index(path)``); KeyError when there is none."""
    if not isinstance(rid, str) or not _ID.match(rid):
        raise KeyError(rid)
    directory, legacy = _directory(path)
    if rid.startswith("legacy-"):
        source = legacy if legacy is not None else directory / LEGACY_NAME
        try:
            k = int(rid[len("legacy-"):])
            data = _read_legacy(source) if source.exists() else []
        except ValueError:
            raise KeyError(rid) from None
        if not 0 <= k < len(data):
            raise KeyError(rid)
        return data[k]
    if legacy is not None:
        raise KeyError(rid)
    try:
        return json.loads((directory / "recordings" / f"{rid}.json").read_text())
    except FileNotFoundError:
        raise KeyError(rid) from None


def load_recordings(path: str | os.PathLike | None = None) -> list[dict[str, Any]]:
    """Read every recording saved at ``path`` (default ``recording_dir()``; a recordings
    directory, or a ``recordings.json`` list of the earlier layout), those of other
    processes included, oldest first; [] when there is none. A legacy file that is not a
    JSON list raises ValueError naming it."""
    directory, legacy = _directory(path)
    if legacy is not None and not legacy.exists():
        return []
    out = []
    for entry in load_index(path):
        try:
            out.append(load_recording(entry["id"], path))
        except (KeyError, OSError, ValueError):
            continue  # removed since the index was read
    return out


def clear_recordings(*, disk: bool = False) -> None:
    """Forget this process's recordings; with ``disk=True`` delete the saved ones too
    (the index, the recordings folder and a legacy ``recordings.json``)."""
    with _RECORDING_LOCK:
        _RECORDINGS.clear()
    if disk and recording_dir().is_dir():
        with _file_lock():
            directory = recording_dir()
            (directory / INDEX_NAME).unlink(missing_ok=True)
            (directory / LEGACY_NAME).unlink(missing_ok=True)
            shutil.rmtree(directory / "recordings", ignore_errors=True)


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
    """The index every finished recording is appended to (``index.jsonl`` in
    ``recording_dir()``; the recordings are in its ``recordings`` folder)."""
    return recording_dir() / INDEX_NAME


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


def _write_recording(folder: Path, rid: str, recording) -> None:
    tmp = folder / f".{rid}.tmp"
    try:
        tmp.write_text(json.dumps(recording))
        os.replace(tmp, folder / f"{rid}.json")
    finally:
        if tmp.exists():
            tmp.unlink()


def _append_lines(index: Path, entries) -> None:
    data = "".join(json.dumps(e) + "\n" for e in entries).encode()
    fd = os.open(index, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        while data:
            data = data[os.write(fd, data):]
    finally:
        os.close(fd)


def _migrate(directory: Path, folder: Path) -> None:
    """Move a recordings.json of the earlier layout into the folder and the index
    (called with the lock held, once); one that is not a list is moved aside."""
    old = directory / LEGACY_NAME
    try:
        existing = json.loads(old.read_text())
        damaged = not isinstance(existing, list)
    except (json.JSONDecodeError, UnicodeDecodeError):
        damaged = True
    if damaged:
        aside = old.with_name(f"{old.name}.damaged")
        os.replace(old, aside)
        warnings.warn(f"scaly.viz: {old} was not a recordings list; moved it to {aside}",
                      RuntimeWarning, stacklevel=5)
        return
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S")
    entries = []
    for k, rec in enumerate(existing):
        rid = f"{stamp}-migrated-{k}"
        _write_recording(folder, rid, rec)
        entries.append(summary(rec, rid))
    _append_lines(directory / INDEX_NAME, entries)
    old.unlink()


def _new_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S.%f")
    return f"{stamp}-{os.getpid()}-{next(_SEQUENCE)}"


def _append(recording) -> str:
    """Save ``recording`` as its own file and add its line to the index; returns its id."""
    directory = recording_dir()
    folder = directory / "recordings"
    folder.mkdir(parents=True, exist_ok=True)
    rid = recording["id"]
    _write_recording(folder, rid, recording)
    with _file_lock():
        if (directory / LEGACY_NAME).exists():
            _migrate(directory, folder)
        _append_lines(directory / INDEX_NAME, [summary(recording, rid)])
    return rid


def _sources(functions, *, margin: int = 3, limit: int = 400) -> list:
    """The Python lines the graph's nodes came from, per file: the span from the first
    to the last such line with `margin` lines around it (at most `limit` lines), as
    {"file", "first" (its 1-based number), "lines"}; files Python cannot read are left out."""
    import linecache
    wanted: dict = {}
    for f in functions:
        for n in f["nodes"]:
            if n.get("file") and isinstance(n.get("line"), int):
                wanted.setdefault(n["file"], set()).add(n["line"])
    out = []
    for file, lines in wanted.items():
        text = linecache.getlines(file)
        if not text:
            continue
        first = max(1, min(lines) - margin)
        last = min(len(text), max(lines) + margin, first + limit - 1)
        out.append({"file": file, "first": first,
                    "lines": [t.rstrip("\n") for t in text[first - 1:last]]})
    return out


def record(fun, mode, *, module=None, error=None):
    """Append the recording of one render of ``fun`` (called by the render paths):
    ``module`` a RenderedModule rendered with its stages, or ``error`` the failure."""
    from .. import _scaly
    steps = []
    try:
        functions = _scaly.expr_graph(fun._traced, derivatives=True)
        for f in functions:  # as JSON has them, in memory too
            f["edges"] = [list(e) for e in f["edges"]]
        steps.append({"kind": "graph", "name": "expression graph", "functions": functions,
                      "sources": _sources(functions)})
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
                      "header": module.header, "recipe": module.recipe,
                      "origins": [[c_line, [list(at) for at in frm]]
                                  for c_line, frm in getattr(module, "line_origins", ())]})
    recording = {"id": _new_id(), "name": _label(fun), "function": fun.name, "mode": mode,
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
