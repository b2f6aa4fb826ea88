"""The JIT cache's files: the cache root, and writes that are never seen half done.

Every file is written to a temporary named after the process and thread and
renamed into place (a temporary a process that no longer runs left is removed
when the same file is written again); a path taken by the wrong kind of file is a CacheError
naming it (Scaly never deletes what it did not write).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path


class CacheError(OSError):
    """A path of the cache is taken by the wrong kind of file (a directory where
    Scaly writes a file, or a file where it keeps a directory) that Scaly will not
    delete; the message names the path to delete."""


# Raised through the JIT: tracebacks name it where it always was.
CacheError.__module__ = "scaly.runtime.jit"


def cache_root():
    """The cache root: SCALY_CACHE_DIR, else $XDG_CACHE_HOME/scaly, else ~/.cache/scaly."""
    override = os.environ.get("SCALY_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "scaly"


def _make_dirs(directory):
    """Make `directory` and its parents; a file (or anything not a directory) where
    one of them goes is a CacheError naming it: Scaly does not delete it, and
    every compile would fail on it the same way."""
    try:
        os.makedirs(directory, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        taken = [p for p in (Path(directory), *Path(directory).parents)
                 if os.path.lexists(p) and not os.path.isdir(p)]
        if not taken:
            raise
        raise CacheError(f"the cache is damaged: {taken[-1]} is a file where Scaly keeps a "
                         f"directory; delete it (rm '{taken[-1]}') and call again") from None
    except OSError as e:  # no such parent that can be made, no permission, read-only
        raise CacheError(f"cannot make the cache directory {directory} ({e.strerror}); the "
                         f"cache root is {cache_root()}: set SCALY_CACHE_DIR to a directory "
                         "you can write") from None


def _replace(tmp, path):
    """os.replace(tmp, path), a new file into place. An empty directory at `path`
    (nothing lost) is removed first; a directory holding anything is a CacheError
    naming it (a directory there made every call fail with IsADirectoryError)."""
    try:
        os.replace(tmp, path)
    except IsADirectoryError:
        if not os.path.isdir(path) or os.path.islink(path):
            raise
        try:
            os.rmdir(path)
        except OSError:
            raise CacheError(f"the cache is damaged: {path} is a directory where Scaly writes "
                             f"a file, and it is not empty; delete it (rm -r '{path}') and call "
                             "again") from None
        os.replace(tmp, path)


def _process_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


def sweep_temporaries(path: Path):
    """Remove the temporaries of `path` (`<path>.tmp.<pid>.<thread>`) that a process
    no longer running left: one killed, or ended by os._exit, while it wrote
    (multiprocessing's forked workers end so). A live process's are its own."""
    for tmp in Path(path).parent.glob(Path(path).name + ".tmp.*"):
        parts = tmp.name[len(Path(path).name) + len(".tmp."):].split(".")
        if parts and parts[0].isdigit() and int(parts[0]) != os.getpid() \
                and not _process_alive(int(parts[0])):
            try:
                tmp.unlink()
            except OSError:
                pass


def _write_atomic(path: Path, data: bytes):
    """Write `data` to a file named after this process and thread, then rename it
    into place: readers see the old file or the new one, never a partial one."""
    path = os.fspath(path)
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        _make_dirs(directory)
    sweep_temporaries(Path(path))
    tmp = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        _replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_json(path: Path):
    try:
        with open(path, "rb") as f:
            value = json.loads(f.read())
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None
