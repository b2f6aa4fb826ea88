"""Cache faults that used to repeat on every call (issue 33, item 7).

A path of the cache layout taken by the wrong kind of file made every call fail the same way:
`<key>/energy.o` replaced by a directory gave IsADirectoryError on every call, `index/`
replaced by a file FileExistsError on every compile. An empty directory where a file goes is
removed and the file rebuilt; anything else makes an error that names the path to delete.
An index entry pointing at another function's artifact with the same name and signature was
loaded: the artifact's meta.json now lists the index keys bound to it, and an entry it does not
list is refused (rendered and compiled again).
"""

import json
import os

import pytest

from scaly.runtime import CacheError

from jitutil import key_dirs, run_snippet, temporaries

SQUARES = """
import json
import scaly as sc
from scaly.runtime import counters
@sc.function(sc.L("x", 3), sc.L("energy", ...))
def energy(x):
    return {body}
v = float(energy([1.0, 2.0, 3.0]))
print(json.dumps({{**counters(), "v": v}}))
"""
SUMSQR = SQUARES.format(body="sc.sumsqr(x)")  # 14 at [1, 2, 3]
CUBES = SQUARES.format(body="(x * x * x).sum()")  # 36: the same name and signature


def first_run(cache, code=SUMSQR):
    out = run_snippet(code, cache)
    (key,) = key_dirs(cache)
    return key, out


@pytest.mark.parametrize("cc", [None, "gcc"])
def test_an_empty_directory_in_place_of_the_artifact_is_replaced(cache, cc):
    env = {"SCALY_CC": cc} if cc else {}
    run_snippet(SUMSQR, cache, env)
    (key,) = key_dirs(cache)
    artifact = cache / key / ("libenergy.so" if cc else "energy.o")
    artifact.unlink()
    artifact.mkdir()
    for _ in range(2):  # rebuilt once, then found
        out = run_snippet(SUMSQR, cache, env)
        assert out["v"] == 14.0
    assert artifact.is_file() and out["compiled"] == 0
    assert not temporaries(cache)


def test_a_directory_with_files_in_place_of_the_artifact_is_named_in_the_error(cache):
    key, _ = first_run(cache)
    artifact = cache / key / "energy.o"
    artifact.unlink()
    artifact.mkdir()
    (artifact / "something").write_text("not Scaly's")
    proc = run_snippet(SUMSQR, cache, check=False)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("scaly.runtime.jit.CacheError:"), message
    assert str(artifact) in message and "delete it" in message, message
    assert (artifact / "something").read_text() == "not Scaly's"  # nothing deleted
    assert not temporaries(cache)
    # Deleted as told: built again.
    (artifact / "something").unlink()
    artifact.rmdir()
    assert run_snippet(SUMSQR, cache)["v"] == 14.0


def test_a_file_in_place_of_the_index_directory_is_named_in_the_error(cache):
    first_run(cache)
    index = cache / "index"
    for entry in index.iterdir():
        entry.unlink()
    index.rmdir()
    index.write_text("not a directory")
    proc = run_snippet(SUMSQR, cache, check=False)
    assert proc.returncode != 0
    message = proc.stderr.strip().splitlines()[-1]
    assert message.startswith("scaly.runtime.jit.CacheError:"), message
    assert str(index) in message and "delete it" in message, message
    assert index.read_text() == "not a directory"
    index.unlink()
    out = run_snippet(SUMSQR, cache)
    assert out["v"] == 14.0 and len(os.listdir(index)) == 1


def test_a_file_in_place_of_a_key_directory_is_named_in_the_error(cache):
    key, _ = first_run(cache)
    directory = cache / key
    for f in directory.iterdir():
        f.unlink()
    directory.rmdir()
    directory.write_text("")
    for entry in (cache / "index").iterdir():
        entry.unlink()  # so that the module is built into <key>/ again
    proc = run_snippet(SUMSQR, cache, check=False)
    message = proc.stderr.strip().splitlines()[-1]
    assert "CacheError" in message and str(directory) in message, message


def test_an_index_entry_pointing_at_another_functions_artifact_is_refused(cache):
    """Two Functions named energy with one signature: the entry of the first edited to
    name the artifact of the second is refused, and the first's own result comes back."""
    run_snippet(SUMSQR, cache)
    (sumsqr_key,) = key_dirs(cache)
    (sumsqr_entry,) = os.listdir(cache / "index")
    out = run_snippet(CUBES, cache)
    assert out["v"] == 36.0
    (cubes_key,) = set(key_dirs(cache)) - {sumsqr_key}
    entry_path = cache / "index" / sumsqr_entry
    entry = json.loads(entry_path.read_text())
    assert entry["artifact"] == f"{sumsqr_key}/energy.o"
    entry["artifact"] = f"{cubes_key}/energy.o"  # the same name, another function
    entry_path.write_text(json.dumps(entry))
    out = run_snippet(SUMSQR, cache)
    assert out["v"] == 14.0 and out["index_hit"] == 0 and out["rendered"] == 1
    # The entry is rewritten to its own artifact, which is then used from the index.
    assert json.loads(entry_path.read_text())["artifact"] == f"{sumsqr_key}/energy.o"
    out = run_snippet(SUMSQR, cache)
    assert out["v"] == 14.0 and out["index_hit"] == 1 and out["rendered"] == 0


def test_meta_lists_the_index_keys_bound_to_it(cache):
    key, _ = first_run(cache)
    (entry,) = os.listdir(cache / "index")
    meta = json.loads((cache / key / "meta.json").read_text())
    assert meta["index_keys"] == [entry[:-len(".json")]]


def test_an_artifact_from_before_the_binding_is_bound_on_first_use(cache):
    """meta.json without index keys (an older cache): the entry is refused once, the module
    rendered, its artifact found by cache key and bound; then the index hits."""
    key, _ = first_run(cache)
    meta_path = cache / key / "meta.json"
    meta = json.loads(meta_path.read_text())
    del meta["index_keys"]
    meta_path.write_text(json.dumps(meta))
    out = run_snippet(SUMSQR, cache)
    assert out["v"] == 14.0 and out["index_hit"] == 0 and out["compiled"] == 0
    assert len(json.loads(meta_path.read_text())["index_keys"]) == 1
    out = run_snippet(SUMSQR, cache)
    assert out["index_hit"] == 1 and out["rendered"] == 0


def test_cache_error_is_an_os_error():
    assert issubclass(CacheError, OSError)


FORKED_POOL = """
import json, multiprocessing as mp
import numpy as np
import scaly as sc

def work(k):
    @sc.function(sc.arg("x", 3), outputs=sc.arg("y"))
    def scaled(x):
        return x * float(k)
    return float(scaled(np.ones(3))[0])

if __name__ == "__main__":
    with mp.get_context("fork").Pool(2) as pool:
        print(json.dumps({"v": pool.map(work, range(6))}))
"""


def test_forked_workers_leave_no_temporaries_and_publish_every_entry(cache, tmp_path):
    # multiprocessing's forked workers end with os._exit: a background link was cut
    # mid-write, leaving lib<name>.so.tmp.<pid>.* behind and no trace-free entry.
    script = tmp_path / "pool.py"
    script.write_text(FORKED_POOL)
    out = run_snippet(f"exec(open({str(script)!r}).read())", cache,
                      env_extra={"SCALY_TRACE_FREE": "1"})
    assert out["v"] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert temporaries(cache) == []
    entries = [f for f in os.listdir(cache / "index") if f.startswith("fast-")]
    assert len(entries) == 6


def test_a_temporary_left_by_a_process_no_longer_running_is_removed(cache, tmp_path):
    import subprocess
    import sys

    from scaly.runtime.cache_files import _write_atomic
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    target = cache / "k" / "file.json"
    target.parent.mkdir(parents=True)
    left = target.with_name(f"file.json.tmp.{int(dead.stdout)}.1")
    live = target.with_name(f"file.json.tmp.{os.getppid()}.1")  # pytest's parent: running
    left.write_bytes(b"half")
    live.write_bytes(b"half")
    _write_atomic(target, b"{}")
    assert target.read_bytes() == b"{}"
    assert not left.exists() and live.exists()


def test_a_cache_root_that_cannot_be_made_is_a_cache_error_naming_it(tmp_path):
    # /proc refuses new directories: a bare FileNotFoundError named neither the
    # cache root nor SCALY_CACHE_DIR.
    code = """
    import json
    import scaly as sc
    from scaly.runtime import CacheError
    @sc.function(sc.L("x", 3), sc.L("y", ...))
    def double(x):
        return 2 * x
    try:
        double([1.0, 2.0, 3.0])
        print(json.dumps({"error": None}))
    except CacheError as e:
        print(json.dumps({"error": str(e)}))
    """
    out = run_snippet(code, "/proc/scaly-nope/cache")
    assert out["error"] is not None
    assert "/proc/scaly-nope/cache" in out["error"] and "SCALY_CACHE_DIR" in out["error"]
