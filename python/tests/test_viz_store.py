"""scaly.viz: the recordings file shared by processes and threads (nothing lost,
damaged or earlier-layout files), its directory, and the recordings browser's
server and command."""

import http.client
import inspect
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections import Counter

import pytest

from scaly import viz
from scaly.codegen import render_c_module
from scaly.viz import recording as viz_recording
from scaly.viz.serve import VizServer

from jitutil import PYTHON
from vizutil import (  # noqa: F401  (isolated: an autouse fixture)
    isolated, make_energy, make_model, subprocess_env)


CONCURRENT = """
import os, sys, time
import scaly as sc
from scaly.codegen import render_c_module
from scaly import viz
i, ready, go = int(sys.argv[1]), sys.argv[2], sys.argv[3]
@sc.function(sc.L("x", 3), sc.L("energy", ...))
def energy(x):
    return sc.sumsqr(x)
viz.visualize(energy, label=f"proc {i}")
open(os.path.join(ready, str(i)), "w").close()
deadline = time.time() + 60
while not os.path.exists(go) and time.time() < deadline:
    time.sleep(0.005)
for _ in range(3):
    render_c_module(energy)
"""


def test_concurrent_processes_lose_no_recording(tmp_path):
    """8 processes each recording 3 renders at once leave exactly 24 recordings in valid JSON."""
    ready, go = tmp_path / "ready", tmp_path / "go"
    ready.mkdir()
    env = subprocess_env(tmp_path)
    procs = [subprocess.Popen([PYTHON, "-c", CONCURRENT, str(i), str(ready), str(go)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(8)]
    try:
        deadline = time.time() + 60
        while len(os.listdir(ready)) < 8 and time.time() < deadline:
            if any(p.poll() not in (None, 0) for p in procs):
                break
            time.sleep(0.01)
        go.touch()  # all start rendering together
        results = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err
    path = viz.recording_path()
    index = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(index) == 24 and len({e["id"] for e in index}) == 24
    recs = viz.load_recordings()
    assert [r["id"] for r in recs] == [e["id"] for e in index]
    assert sorted(os.listdir(path.parent / "recordings")) == sorted(f"{e['id']}.json" for e in index)
    assert Counter(r["name"] for r in recs) == {f"proc {i}": 3 for i in range(8)}
    assert Counter(r["pid"] for r in recs) == {p.pid: 3 for p in procs}
    assert all(r["error"] is None and r["steps"][-1]["kind"] == "c" for r in recs)
    assert sorted(os.listdir(path.parent)) == ["index.jsonl", "recordings", "recordings.lock"]


THREADS = """
import json, threading
import scaly as sc
from scaly.codegen import render_c_module
from scaly import viz
def make(i):
    def energy(x):
        return sc.sumsqr(x)
    energy.__name__ = f"energy_{i}"
    return viz.visualize(sc.function(sc.L("x", 3), sc.L("energy", ...))(energy), label=f"thread {i}")
fns = [make(i) for i in range(6)]
barrier = threading.Barrier(len(fns))
errors = []
def work(fn):
    try:
        barrier.wait()
        for _ in range(3):
            render_c_module(fn)
    except Exception as e:
        errors.append(repr(e))
threads = [threading.Thread(target=work, args=(fn,)) for fn in fns]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps({"errors": errors, "names": [r["name"] for r in viz.recordings()]}))
"""


def test_concurrent_threads_lose_no_recording(tmp_path):
    """Threads of one process rendering watched functions at once lose no recording."""
    # In a child process with a timeout: a deadlock must fail the test, not hang the suite.
    try:
        proc = subprocess.run([PYTHON, "-c", THREADS], env=subprocess_env(tmp_path),
                              capture_output=True, text=True, timeout=15)
    except subprocess.TimeoutExpired:
        proc = None  # killed by subprocess.run
    assert proc is not None, ("6 threads rendering watched functions did not finish in 15 s "
                              "(deadlock: _scaly.expr_graph waits for the MLIR context lock "
                              "holding the GIL, while a render holds the lock waiting for the GIL)")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    assert Counter(out["names"]) == {f"thread {i}": 3 for i in range(6)}
    on_disk = viz.load_recordings()
    assert Counter(r["name"] for r in on_disk) == Counter(out["names"])
    assert sorted(os.listdir(viz.recording_dir())) == ["index.jsonl", "recordings", "recordings.lock"]


def test_concurrent_records_in_threads_lose_nothing():
    """Threads appending recordings at once (no concurrent render) lose none in memory or on disk."""
    fns = [viz.visualize(make_energy(f"energy_{i}"), label=f"thread {i}") for i in range(6)]
    module = render_c_module(fns[0], record_stages=True)
    viz.clear_recordings(disk=True)
    barrier = threading.Barrier(len(fns))
    errors = []

    def work(fn):
        try:
            barrier.wait()
            for _ in range(5):
                viz_recording.record(fn, "aot", module=module)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(fn,)) for fn in fns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors and not any(t.is_alive() for t in threads)
    expected = {f"thread {i}": 5 for i in range(6)}
    assert Counter(r["name"] for r in viz.recordings()) == expected
    assert Counter(r["name"] for r in viz.load_recordings()) == expected
    assert sorted(os.listdir(viz.recording_dir())) == ["index.jsonl", "recordings", "recordings.lock"]


def test_load_recordings_missing_and_corrupt_files(tmp_path):
    """load_recordings: [] without a file; ValueError naming a corrupt or non-list file."""
    assert viz.load_recordings() == []
    assert viz.load_recordings(tmp_path / "nowhere.json") == []
    for content in (b"{not json", b'{"a": 1}', b"\xff\xfe\x00garbage", b""):
        (tmp_path / "bad.json").write_bytes(content)
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / "bad.json"))):
            viz.load_recordings(tmp_path / "bad.json")
        with pytest.raises(ValueError, match=re.escape(str(tmp_path / "bad.json"))):
            viz.load_recordings(str(tmp_path / "bad.json"))


def test_clear_recordings_memory_and_disk():
    """clear_recordings forgets this process's recordings; with disk=True it deletes the file."""
    fn = viz.visualize(make_model())
    render_c_module(fn)
    path = viz.recording_path()
    assert path.exists() and len(viz.recordings()) == 1
    viz.clear_recordings()
    assert viz.recordings() == [] and len(viz.load_recordings()) == 1
    viz.clear_recordings(disk=True)
    assert not path.exists() and viz.load_recordings() == []
    assert not (path.parent / "recordings").exists()
    viz.clear_recordings(disk=True)  # no file: fine
    render_c_module(fn)
    assert len(viz.load_recordings()) == 1 and len(viz.recordings()) == 1


def test_recording_dir_precedence(tmp_path, monkeypatch):
    """recording_dir: SCALY_VIZ_DIR, else $XDG_CACHE_HOME/scaly/viz, else ~/.cache/scaly/viz."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "explicit"))
    assert viz.recording_dir() == tmp_path / "explicit"
    assert viz.recording_path() == tmp_path / "explicit" / "index.jsonl"
    monkeypatch.delenv("SCALY_VIZ_DIR")
    assert viz.recording_dir() == tmp_path / "xdg" / "scaly" / "viz"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert viz.recording_dir() == tmp_path / "home" / ".cache" / "scaly" / "viz"
    assert viz.recording_path() == tmp_path / "home" / ".cache" / "scaly" / "viz" / "index.jsonl"


@pytest.fixture
def server(tmp_path):
    """A VizServer on a free port of 127.0.0.1 serving the recordings directory
    tmp_path/served, in a thread."""
    path = tmp_path / "served"
    srv = VizServer(("127.0.0.1", 0), path)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv, path
    srv.shutdown()
    srv.server_close()
    thread.join(10)


def get(srv, path, method="GET"):
    """(status, content type, body) of a request whose raw path is sent as is."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    try:
        conn.request(method, path)
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type"), resp.read()
    finally:
        conn.close()


def test_server_serves_the_page_and_its_assets(server):
    """/, /index.html, /viz.js and /viz.css are served from the static folder."""
    srv, _ = server
    static = os.path.join(os.path.dirname(viz_recording.__file__), "static")
    for path, name, kind in [("/", "index.html", "text/html"), ("/index.html", "index.html", "text/html"),
                             ("/viz.js", "viz.js", "javascript"), ("/viz.css", "viz.css", "text/css"),
                             ("/diff.js", "diff.js", "javascript")]:
        status, content_type, body = get(srv, path)
        assert status == 200 and kind in content_type
        with open(os.path.join(static, name), "rb") as f:
            assert body == f.read()
    assert get(srv, "/index.html?x=1")[0] == 200
    status, _, body = get(srv, "/viz.js", method="HEAD")
    assert status == 200 and body == b""


def test_server_serves_the_index_then_recordings_on_demand(server, monkeypatch):
    """/index.json lists the recordings (from the from-th on); /recording?id= serves one;
    an unknown id is 404; recordings appended later appear in the index (issue 32, item 4)."""
    srv, path = server
    status, content_type, body = get(srv, "/index.json")
    assert status == 200 and content_type == "application/json"
    empty = json.loads(body)
    assert empty["count"] == 0 and empty["recordings"] == [] and "No recordings yet" in empty["note"]

    monkeypatch.setenv("SCALY_VIZ_DIR", str(path))
    fn = viz.visualize(make_model(), label="served")
    render_c_module(fn)
    index = json.loads(get(srv, "/index.json")[2])
    assert index["count"] == 1 and "note" not in index
    (entry,) = index["recordings"]
    assert entry == viz.load_index()[0] and entry["name"] == "served"
    assert set(entry) == {"id", "name", "function", "mode", "error", "time", "pid", "passes",
                          "steps"}
    assert len(json.dumps(entry)) < 600  # small: no IR, no C
    status, _, body = get(srv, f"/recording?id={entry['id']}")
    assert status == 200 and json.loads(body) == viz.load_recordings()[0]

    render_c_module(fn)
    later = json.loads(get(srv, "/index.json?from=1")[2])
    assert later["count"] == 2 and later["from"] == 1 and len(later["recordings"]) == 1
    assert later["recordings"][0]["id"] == viz.load_index()[1]["id"]
    assert json.loads(get(srv, "/index.json?from=2")[2])["recordings"] == []
    for bad in ("nope", "../index", "%2e%2e%2findex", "", "legacy-0", entry["id"] + "x"):
        status, _, body = get(srv, f"/recording?id={bad}")
        assert status == 404 and "no recording" in json.loads(body)["error"]

    viz.clear_recordings(disk=True)  # a cleared index is read again from the start
    assert json.loads(get(srv, "/index.json")[2])["count"] == 0


def test_server_reads_a_recordings_file_of_the_earlier_layout(tmp_path):
    """A recordings.json list (the single-file layout) is served as is: its recordings
    are legacy-<k>; a corrupt one is a JSON error naming it."""
    old = tmp_path / "recordings.json"
    old.write_text(json.dumps([{"name": "old one", "function": "f", "mode": "aot",
                                "error": None, "steps": []}]))
    srv = VizServer(("127.0.0.1", 0), old)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        index = json.loads(get(srv, "/index.json")[2])
        assert [e["id"] for e in index["recordings"]] == ["legacy-0"]
        assert json.loads(get(srv, "/recording?id=legacy-0")[2])["name"] == "old one"
        old.write_text("{broken")
        error = json.loads(get(srv, "/index.json")[2])["error"]
        assert str(old) in error and "not a readable recordings file" in error
    finally:
        srv.shutdown()
        srv.server_close()


def test_a_recordings_file_of_the_earlier_layout_is_read_then_moved_in(tmp_path):
    """recordings.json of the earlier layout is read as it is, and the next append moves
    its recordings into the folder and the index, before the new one."""
    directory = viz.recording_dir()
    directory.mkdir(parents=True)
    old = [{"name": f"old {k}", "function": "f", "mode": "aot", "error": None, "steps": []}
           for k in range(3)]
    (directory / "recordings.json").write_text(json.dumps(old))
    assert viz.load_recordings() == old
    assert [e["id"] for e in viz.load_index()] == ["legacy-0", "legacy-1", "legacy-2"]
    assert viz.load_recording("legacy-2") == old[2]
    render_c_module(viz.visualize(make_energy("fresh")))
    assert not (directory / "recordings.json").exists()
    recs = viz.load_recordings()
    assert [r["name"] for r in recs] == ["old 0", "old 1", "old 2", "fresh"]
    assert recs[:3] == old and all("migrated" in e["id"] for e in viz.load_index()[:3])


def test_appending_costs_the_same_whatever_the_history():
    """The append writes the recording's own file and one index line: the bytes written
    do not grow with the history (the timing is bench/viz_append.py's)."""
    fn = viz.visualize(make_model("history"))
    render_c_module(fn)
    index = viz.recording_path()
    first = index.stat().st_size
    for _ in range(5):
        render_c_module(fn)
    sizes = [len(line) + 1 for line in index.read_bytes().splitlines()]
    assert sizes[0] == first and max(sizes) - min(sizes) < 40
    files = sorted((index.parent / "recordings").iterdir())
    assert len(files) == 6 and max(f.stat().st_size for f in files) - min(f.stat().st_size for f in files) < 100


def test_an_index_line_being_written_is_skipped():
    """A reader that meets a partial last line (an append in progress) skips it."""
    fn = viz.visualize(make_model("partial"))
    render_c_module(fn)
    index = viz.recording_path()
    with open(index, "ab") as f:
        f.write(b'{"id": "20990101T000000.000000-1-0", "name": "hal')
    assert [e["name"] for e in viz.load_index()] == ["partial"]
    assert len(viz.load_recordings()) == 1


@pytest.mark.parametrize("path", [
    "/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/static/index.html",
    "/recording.py", "/recordings.lock", "/nonexistent", "/served.json", "/..%2fserve.py",
    "/static/../serve.py", "/viz.js/", "/index.html/../serve.py", "/index.jsonl",
    "/recordings.json", "/recordings/", "/recording/../index.jsonl",
])
def test_server_refuses_every_other_path(server, path):
    """Any other path, traversal or absolute path is 404."""
    srv, recordings = server
    recordings.mkdir()
    (recordings / "index.jsonl").write_text("")
    (recordings / "recordings.lock").write_text("")
    status, _, body = get(srv, path)
    assert status == 404 and b"root:" not in body and b"import" not in body


def test_serve_defaults_and_command(tmp_path):
    """serve() binds 127.0.0.1 by default; `python3 -m scaly.viz` has --help and serves a file."""
    params = inspect.signature(viz.serve).parameters
    assert params["host"].default == "127.0.0.1" and params["path"].default is None
    assert params["open_browser"].default is False
    env = subprocess_env(tmp_path)
    proc = subprocess.run([PYTHON, "-m", "scaly.viz", "--help"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    for option in ("--browser", "--host", "--port", "--path"):
        assert option in proc.stdout

    served = tmp_path / "cmd.json"  # a recordings file of the earlier layout
    served.write_text('[{"name": "from the command"}]')
    # SIGINT at its default in the server, even when this test runs in a shell's
    # background job (which starts with SIGINT ignored, and children inherit that).
    proc = subprocess.Popen([PYTHON, "-m", "scaly.viz", "--port", "0", "--path", str(served)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        line = proc.stdout.readline()
        m = re.search(r"serving (.+) on http://127\.0\.0\.1:(\d+)", line)
        assert m and m.group(1) == str(served), line
        conn = http.client.HTTPConnection("127.0.0.1", int(m.group(2)), timeout=10)
        conn.request("GET", "/index.json")
        assert [e["name"] for e in json.loads(conn.getresponse().read())["recordings"]] == [
            "from the command"]
        conn.close()
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
        assert proc.returncode == 0 and "shutting down" in out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_damaged_recordings_file_is_moved_aside_not_lost(tmp_path):
    """Appending next to a recordings.json (earlier layout) that is not a list keeps it
    as .damaged, warns, and records into the index."""
    path = viz.recording_dir() / "recordings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    f = viz.visualize(make_energy("damaged"))
    with pytest.warns(RuntimeWarning, match="was not a recordings list; moved it to"):
        render_c_module(f)
    assert path.with_name("recordings.json.damaged").read_text() == "{not json"
    assert [r["function"] for r in viz.load_recordings()] == ["damaged"]


def test_an_unwritable_recordings_folder_warns_and_the_render_succeeds(tmp_path, monkeypatch):
    """SCALY_VIZ_DIR pointing at a file: the render returns its module, the recording
    stays in memory, and a warning names the path."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SCALY_VIZ_DIR", str(blocker))
    f = viz.visualize(make_energy("unsaved"))
    with pytest.warns(RuntimeWarning, match="could not save the recording of unsaved"):
        module = render_c_module(f)
    assert "int unsaved(" in module.source
    assert [r["function"] for r in viz.recordings()] == ["unsaved"]


def test_recordings_in_memory_equal_the_saved_ones():
    """recordings() and load_recordings() hold the same JSON values (edges as lists)."""
    f = viz.visualize(make_energy("same"))
    render_c_module(f)
    assert viz.recordings() == viz.load_recordings()


def _browser_lines(tmp_path, **env):
    """The first two lines `scaly_viz --browser --port 0` prints with `env`, then SIGINT."""
    environ = {k: v for k, v in subprocess_env(tmp_path).items()
               if k not in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER")}
    environ.update(env)
    proc = subprocess.Popen([PYTHON, "-m", "scaly.viz", "--browser", "--port", "0"], env=environ,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return lines


def test_browser_without_a_display_prints_the_url_and_why(tmp_path):
    """--browser with neither DISPLAY nor WAYLAND_DISPLAY says why no browser opened and
    names the URL to open (issue 32, item 6); with a display but no browser found, too."""
    serving, why = _browser_lines(tmp_path)
    url = re.search(r"on (http://127\.0\.0\.1:\d+)", serving).group(1)
    assert why.startswith("*** no browser opened: no display (DISPLAY and WAYLAND_DISPLAY")
    assert f"open {url} yourself" in why
    serving, why = _browser_lines(tmp_path, DISPLAY=":99", PATH=str(tmp_path))  # no browser on PATH
    url = re.search(r"on (http://127\.0\.0\.1:\d+)", serving).group(1)
    assert "no browser opened" in why and "set BROWSER" in why and url in why


def test_no_browser_reason():
    """A display is needed on Linux; macOS and Windows open their browser without one."""
    from scaly.viz.serve import no_browser_reason
    assert "no display" in no_browser_reason({}, "linux")
    assert no_browser_reason({"DISPLAY": ":0"}, "linux") is None
    assert no_browser_reason({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_browser_reason({}, "darwin") is None and no_browser_reason({}, "win32") is None
