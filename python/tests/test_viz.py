"""scaly.viz: opt-in recordings of renders (graph, IR per pass, C), the recordings file
shared by processes, and the recordings browser's server."""

import datetime
import http.client
import inspect
import json
import os
import re
import signal
import subprocess
import textwrap
import threading
import time
from collections import Counter

import numpy as np
import pytest

import scaly as sc
from scaly import viz
from scaly.codegen import render_c_module, render_native
from scaly.runtime import jit
from scaly.viz import recording as viz_recording
from scaly.viz.serve import VizServer

from jitutil import ENERGY, PACKAGE_DIR, PYTHON, run_snippet

THIS_FILE = os.path.abspath(__file__)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """A private recordings directory and JIT cache; no recordings or marks leak between tests."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    monkeypatch.setenv("SCALY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("SCALY_CC", raising=False)
    monkeypatch.delenv("SCALY_CC_OPT", raising=False)
    viz.clear_recordings()
    yield tmp_path
    viz.clear_recordings()
    with viz_recording._RECORDING_LOCK:
        viz_recording._VIZ_TARGETS.clear()


def subprocess_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCALY_")}
    env.update({"PYTHONPATH": PACKAGE_DIR, "SCALY_BUILD_DIR": os.path.join(PACKAGE_DIR, "..", "build"),
                "SCALY_VIZ_DIR": str(tmp_path / "viz"), "SCALY_CACHE_DIR": str(tmp_path / "cache")})
    env.update(extra)
    return env


def traced_body(x, y):
    a = sc.sin(x) * y  # line: sin
    b = a + 1.0  # line: add
    return sc.sumsqr(b)  # line: sumsqr


def line_of(marker):
    """The line number in this file of the line of `traced_body` carrying `marker`."""
    lines, start = inspect.getsourcelines(traced_body)
    (k,) = [i for i, text in enumerate(lines) if f"# line: {marker}" in text]
    return start + k


def make_model(name="model"):
    def body(x, y):
        return traced_body(x, y)
    body.__name__ = name
    return sc.function(sc.L("x", 3), sc.L("y", 3), outputs=sc.L("e", ...))(body)


def make_energy(name="energy"):
    def energy(x):
        return sc.sumsqr(x)
    energy.__name__ = name
    return sc.function(sc.L("x", 3), sc.L("energy", ...))(energy)


OP_LINE = re.compile(r"^\s*(?:(%\w+) = )?(expr\.\w+)\b(.*)$")


def entry_ops(text, entry):
    """(result, op, operands, location) of each op of `entry`'s body in an expr module's text."""
    ops, inside, args = [], False, []
    for line in text.splitlines():
        if f"expr.func @{entry}(" in line:
            inside = True
            args = re.findall(r"%arg\d+", line.split(")", 1)[0])
            continue
        if inside and line.strip().startswith("}"):
            break
        m = OP_LINE.match(line) if inside else None
        if m:
            rest = m.group(3)
            loc = re.search(r"(\S+):(\d+):\d+$", rest.strip())
            operands = re.findall(r"%\w+", rest)
            ops.append((m.group(1), m.group(2), operands,
                        (loc.group(1), int(loc.group(2))) if loc else None))
    return args, ops


def test_importing_scaly_or_rendering_does_not_import_viz(tmp_path):
    """`import scaly`, an AOT render and a JIT call leave scaly.viz unimported."""
    code = textwrap.dedent("""
        import json, sys
        import numpy as np
        import scaly as sc
        from scaly.codegen import render_c_module
        seen = {"import": sorted(m for m in sys.modules if m.startswith("scaly.viz"))}
        @sc.function(sc.L("x", 3), sc.L("energy", ...))
        def energy(x):
            return sc.sumsqr(x)
        render_c_module(energy)
        seen["render"] = sorted(m for m in sys.modules if m.startswith("scaly.viz"))
        value = float(energy(np.array([1.0, 2.0, 3.0])))
        seen["jit"] = sorted(m for m in sys.modules if m.startswith("scaly.viz"))
        seen["value"] = value
        print(json.dumps(seen))
    """)
    proc = subprocess.run([PYTHON, "-c", code], env=subprocess_env(tmp_path), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen == {"import": [], "render": [], "jit": [], "value": 14.0}
    assert not (tmp_path / "viz").exists()


def test_only_the_marked_object_is_recorded():
    """Of two Functions with the same body and name, only the marked one records."""
    marked, twin = make_model("model"), make_model("model")
    assert marked.mlir() == twin.mlir() and marked is not twin
    assert viz.visualize(marked, label="marked") is marked
    render_c_module(twin)
    assert viz.recordings() == [] and viz.load_recordings() == []
    render_c_module(marked)
    assert [(r["name"], r["function"]) for r in viz.recordings()] == [("marked", "model")]
    viz.unvisualize_function(twin)  # not marked: does nothing, and leaves `marked` marked
    render_c_module(marked)
    assert len(viz.recordings()) == 2
    viz.unvisualize_function(marked)
    render_c_module(marked)
    render_c_module(twin)
    assert len(viz.recordings()) == 2 and len(viz.load_recordings()) == 2
    viz.unvisualize_function(marked)  # a second time: still nothing


def test_visualize_is_visualize_function_and_the_default_label_is_the_name():
    """`visualize` is `visualize_function`; without a label the recording is named after the function."""
    assert viz.visualize is viz.visualize_function
    fn = make_model("plain_model")
    viz.visualize(fn)
    render_c_module(fn)
    (rec,) = viz.recordings()
    assert rec["name"] == "plain_model" and rec["function"] == "plain_model"


def test_capture_records_only_inside_the_block():
    """`capture` yields the function and records only the renders inside its block."""
    fn = make_model()
    render_c_module(fn)
    with viz.capture(fn, label="inside") as got:
        assert got is fn
        render_c_module(fn)
        render_c_module(fn)
    render_c_module(fn)
    assert [r["name"] for r in viz.recordings()] == ["inside", "inside"]
    with pytest.raises(RuntimeError, match="boom"):
        with viz.capture(fn):
            raise RuntimeError("boom")
    render_c_module(fn)  # the mark is dropped when the block raises too
    assert len(viz.recordings()) == 2


@pytest.mark.parametrize("bad", [42, "model", None, lambda x: x, sc.sumsqr])
def test_non_functions_are_refused(bad):
    """visualize and capture refuse anything but a scaly Function with TypeError."""
    with pytest.raises(TypeError, match="expected a scaly Function"):
        viz.visualize(bad)
    with pytest.raises(TypeError, match="expected a scaly Function"):
        with viz.capture(bad):
            pass


@pytest.mark.parametrize("label", [3, b"label", ["label"], 1.5])
def test_non_str_labels_are_refused(label):
    """A label that is neither a str nor None raises TypeError, and the function stays unmarked."""
    fn = make_model()
    with pytest.raises(TypeError, match="label must be a str or None"):
        viz.visualize(fn, label=label)
    render_c_module(fn)
    assert viz.recordings() == []


def test_recording_contents():
    """A recording holds the graph, the IR of every stage in pipeline order and the exact C."""
    fn = make_model("model")
    viz.visualize(fn, label="My model")
    module = render_c_module(fn)
    assert module.stages == ()  # recording does not change what the caller asked for
    (rec,) = viz.recordings()
    assert rec["name"] == "My model" and rec["function"] == "model"
    assert rec["mode"] == "aot" and rec["error"] is None and rec["pid"] == os.getpid()
    assert abs(time.time() - datetime.datetime.fromisoformat(rec["time"]).timestamp()) < 60
    steps = rec["steps"]
    kinds = [s["kind"] for s in steps]
    assert kinds[0] == "graph" and kinds[-1] == "c" and set(kinds[1:-1]) == {"ir"}

    # The graph: the entry's nodes are its inputs then its ops, as the expression module lists them.
    (graph,) = steps[0]["functions"]
    assert graph["function"] == "model"
    nodes, edges = graph["nodes"], graph["edges"]
    args, ops = entry_ops(fn.mlir(), "model")
    assert len(args) == 2 and len(nodes) == len(args) + len(ops)
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    assert [(n["op"], n["name"], n["shape"], n["dtype"]) for n in nodes[:2]] == [
        ("input", "x", [3], "f64"), ("input", "y", [3], "f64")]
    assert [n["op"] for n in nodes[2:]] == [op for _, op, _, _ in ops]

    # Locations: the op lines of the 'input' stage, and the lines of traced_body in this file.
    ir = [s for s in steps if s["kind"] == "ir"]
    assert ir[0]["name"] == "input"
    _, located = entry_ops(ir[0]["text"], "model")
    assert [op for _, op, _, _ in located] == [n["op"] for n in nodes[2:]]
    for node, (_, op, _, loc) in zip(nodes[2:], located):
        if loc is not None:
            assert (node["file"], node["line"]) == loc
    body_nodes = [n for n in nodes[2:] if n["op"] != "expr.return"]
    assert sum(loc is not None for *_, loc in located) == len(body_nodes)
    assert body_nodes and all(n["file"] == THIS_FILE for n in body_nodes)
    lines = {line_of("sin"), line_of("add"), line_of("sumsqr")}
    assert {n["line"] for n in body_nodes} == lines
    by_op = {}
    for n in body_nodes:
        by_op.setdefault(n["op"], set()).add(n["line"])
    assert by_op["expr.math"] == {line_of("sin")}
    assert by_op["expr.add"] == {line_of("add")}
    assert by_op["expr.reduce"] == {line_of("sumsqr")}

    # Edges: exactly the operand -> user pairs of the module's text, in operand order.
    ids = {a: k for k, a in enumerate(args)}
    expected = []
    for k, (result, _, operands, _) in enumerate(ops, start=len(args)):
        expected += [[ids[v], k] for v in operands]
        if result:
            ids[result] = k
    assert [list(e) for e in edges] == expected
    assert all(0 <= a < len(nodes) and 0 <= b < len(nodes) and a < b for a, b in edges)
    targets = {b for _, b in edges}
    for k, (_, _, operands, _) in enumerate(ops, start=len(args)):
        assert bool(operands) == (k in targets)

    # The stages: "input" then every pass of the pipeline, as record_stages gives them.
    viz.unvisualize_function(fn)
    staged = render_c_module(fn, record_stages=True)
    assert [s["name"] for s in ir] == [name for name, _ in staged.stages]
    assert [s["text"] for s in ir] == [text for _, text in staged.stages]
    assert len(ir) > 3 and "scaly-lower-to-program" in [s["name"] for s in ir]

    # The C: exactly what render_c_module gives.
    c = steps[-1]
    assert c["source"] == module.source and c["header"] == module.header
    assert c["recipe"] == module.recipe
    assert len(viz.recordings()) == 1

    # The file holds the same recording, as JSON.
    assert viz.load_recordings() == json.loads(json.dumps(viz.recordings()))


def test_graph_lists_the_entry_then_its_callees():
    """A function calling another has one graph per function, the entry first, with the call's callee."""
    def inner(x):
        return sc.sin(x) * 2.0
    inner = sc.function(sc.L("x", 3), sc.L("y", 3))(inner)

    def outer(x):
        return sc.sum(inner(x))
    outer = sc.function(sc.L("x", 3), sc.L("e", ...))(outer)
    viz.visualize(outer)
    render_c_module(outer)
    (rec,) = viz.recordings()
    graphs = rec["steps"][0]["functions"]
    assert [g["function"] for g in graphs] == ["outer", "inner"]
    calls = [n for n in graphs[0]["nodes"] if n["op"] == "expr.call"]
    assert [n["callee"] for n in calls] == ["inner"]


def test_a_failing_render_is_recorded_with_its_error():
    """A render that fails (a reserved C entry name) records its error, then still raises."""
    def gamma(x):
        return 2.0 * x + 1.0
    fn = sc.function(sc.arg("x", 3), outputs=sc.arg("y"))(gamma)
    viz.visualize(fn, label="bad name")
    with pytest.raises(ValueError, match="cannot export 'gamma'") as aot:
        render_c_module(fn)
    with pytest.raises(ValueError, match="cannot export 'gamma'") as jitted:
        fn(np.zeros(3))
    recs = viz.recordings()
    assert [(r["name"], r["mode"]) for r in recs] == [("bad name", "aot"), ("bad name", "jit")]
    assert recs[0]["error"] == str(aot.value) and recs[1]["error"] == str(jitted.value)
    for r in recs:
        assert [s["kind"] for s in r["steps"]] == ["graph"]  # no stages, no C
        assert r["steps"][0]["functions"][0]["function"] == "gamma"
    assert viz.load_recordings() == json.loads(json.dumps(recs))


def test_jit_first_call_records_mode_jit():
    """A watched function's first JIT call records once (mode "jit"); later calls reuse the kernel."""
    fn = make_energy()
    viz.visualize(fn, label="jit energy")
    assert fn(np.array([1.0, 2.0, 3.0])) == 14.0
    fn(np.ones(3))
    fn.compile()
    (rec,) = viz.recordings()
    assert rec["mode"] == "jit" and rec["name"] == "jit energy" and rec["error"] is None
    viz.unvisualize_function(fn)
    cc = jit._compiler()
    native = render_native(fn, cc.fp_contract, cc.lanes, cc.vector_libm)
    assert rec["steps"][-1]["source"] == native.source
    fn.recompile()
    viz.visualize(fn)
    fn.compile()  # a recompile renders again: a second recording
    assert [r["mode"] for r in viz.recordings()] == ["jit", "jit"]


def test_watched_functions_bypass_the_jit_index(tmp_path):
    """Across processes sharing a cache, an unwatched function hits the index; a watched one renders."""
    # conftest's session fixture (scaly_files_settled) waits until Scaly's files are more than
    # two seconds old, so these fresh processes trust the index.
    cache = tmp_path / "cache"
    extra = {"SCALY_VIZ_DIR": str(tmp_path / "viz")}
    report = "import json, os\nfrom scaly.runtime import counters\n"
    first = run_snippet(ENERGY + report + "energy.compile()\nprint(json.dumps(counters()))",
                        cache, extra)
    assert first["render"] == 1 and first["index_hit"] == 0
    assert (cache / "index").is_dir() and os.listdir(cache / "index")

    second = run_snippet(ENERGY + report + textwrap.dedent("""
        import scaly as sc
        from scaly import viz
        energy.compile()
        unwatched = counters()
        @sc.function(sc.L("x", 3), sc.L("energy", ...))
        def energy(x):
            return sc.sumsqr(x)
        viz.visualize(energy, label="watched twin")
        energy.compile()
        print(json.dumps({"unwatched": unwatched, "after": counters(), "pid": os.getpid(),
                          "value": float(energy([1.0, 2.0, 2.0]))}))
    """), cache, extra)
    assert second["unwatched"]["index_hit"] == 1 and second["unwatched"]["render"] == 0
    assert second["unwatched"]["rendered"] == 0
    assert second["after"]["render"] == 1 and second["after"]["index_hit"] == 1
    assert second["value"] == 9.0

    third = run_snippet(ENERGY + report + textwrap.dedent("""
        from scaly import viz
        viz.visualize(energy)
        energy.compile()
        print(json.dumps({**counters(), "pid": os.getpid()}))
    """), cache, extra)
    assert third["render"] == 1 and third["index_hit"] == 0 and third["memory_hit"] == 0

    recs = viz.load_recordings()
    assert [(r["name"], r["mode"], r["pid"]) for r in recs] == [
        ("watched twin", "jit", second["pid"]), ("energy", "jit", third["pid"])]
    assert all(r["error"] is None and r["steps"][-1]["kind"] == "c" for r in recs)


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


def test_capture_restores_an_earlier_mark_and_its_label():
    """A function marked before a capture block stays marked, with its label, after it."""
    f = make_energy("kept")
    viz.visualize(f, label="outer")
    with viz.capture(f, label="inner"):
        render_c_module(f)
    render_c_module(f)
    assert [r["name"] for r in viz.recordings()] == ["inner", "outer"]


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


def test_graph_nodes_carry_their_attributes():
    """A math node names its function and a reduction its kind and axes, as the IR prints them."""
    @sc.function(sc.arg("x", (2, 3)), outputs=sc.arg("y"))
    def attributed(x):
        return sc.sum(x.sin(), axis=1)

    viz.visualize(attributed)
    render_c_module(attributed)
    nodes = viz.recordings()[0]["steps"][0]["functions"][0]["nodes"]
    text = viz.recordings()[0]["steps"][1]["text"]
    (math,) = [n for n in nodes if n["op"] == "expr.math"]
    (reduce,) = [n for n in nodes if n["op"] == "expr.reduce"]
    assert math["attrs"] == {"fn": "#expr<math_fn sin>"} and " sin " in text
    assert reduce["attrs"]["axes"] == "array<i64: 1>"
    assert reduce["attrs"]["kind"] == "#expr<reduce_kind sum>"


def test_each_pass_is_timed_and_marked_changed_or_not():
    """Every pass stage has its wall time (the pass instrumentation's, > 0) and whether it
    changed the IR; the recording sums them and names the slowest pass."""
    fn = viz.visualize(make_model("timed"))
    module = render_c_module(fn, record_stages=True)
    assert len(module.stage_seconds) == len(module.stages) and module.stage_seconds[0] == 0.0
    assert all(t > 0 for t in module.stage_seconds[1:])
    assert render_c_module(make_model("plain")).stage_seconds == ()
    (rec,) = viz.recordings()
    ir = [s for s in rec["steps"] if s["kind"] == "ir"]
    assert ir[0]["name"] == "input" and "changed" not in ir[0]
    passes = ir[1:]
    assert all(isinstance(s["seconds"], float) and 0 < s["seconds"] < 60 for s in passes)
    texts = [s["text"] for s in ir]
    assert [s["changed"] for s in passes] == [b != a for a, b in zip(texts, texts[1:])]
    assert any(s["changed"] for s in passes) and not all(s["changed"] for s in passes)
    timing = rec["passes"]
    assert timing["total"] == pytest.approx(sum(s["seconds"] for s in passes))
    slowest = max(passes, key=lambda s: s["seconds"])
    assert (timing["slowest"], timing["slowest_seconds"]) == (slowest["name"], slowest["seconds"])
    assert timing["unchanged"] == sum(not s["changed"] for s in passes)


def test_a_failing_render_has_no_pass_timing():
    """A render that fails before its stages records no timing."""
    def gamma(x):
        return 2.0 * x
    fn = viz.visualize(sc.function(sc.arg("x", 3), outputs=sc.arg("y"))(gamma))
    with pytest.raises(ValueError):
        render_c_module(fn)
    assert viz.recordings()[0]["passes"] is None


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


def test_derivative_functions_are_in_the_graph():
    """sc.gradient's vjp node names the function scaly-differentiate made for it, and that
    function's graph follows the traced ones, marked derived (issue 32, item 5)."""
    @sc.function(sc.arg("x", 3), outputs=sc.arg("e"))
    def energy(x):
        return sc.sumsqr(sc.sin(x))

    grad = viz.visualize(sc.gradient(energy))
    render_c_module(grad)
    functions = viz.recordings()[0]["steps"][0]["functions"]
    traced = [f["function"] for f in functions if not f.get("derived")]
    assert traced == ["energy_gradient", "energy_vjp", "energy"]
    (vjp,) = [n for f in functions for n in f["nodes"] if n["op"] == "expr.vjp"]
    assert vjp["callee"] == "energy"
    (derived,) = [f for f in functions if f.get("derived")]
    assert vjp["derivative"] == derived["function"]
    ops = [n["op"] for n in derived["nodes"]]
    assert ops[:2] == ["input", "input"] and "expr.math" in ops and ops[-1] == "expr.return"
    # The derivative exists in the lowered module under that name.
    differentiated = next(s["text"] for s in viz.recordings()[0]["steps"]
                          if s.get("name") == "scaly-differentiate")
    assert f"expr.func @{derived['function']}(" in differentiated
    # Without derivative ops nothing is added.
    fn = viz.visualize(make_model("plain"))
    render_c_module(fn)
    assert not any(f.get("derived") for f in viz.recordings()[1]["steps"][0]["functions"])


def test_the_graph_carries_the_python_source_of_its_lines():
    """The graph step holds the span of Python source its nodes came from (with a few
    lines around), for the page to show beside the graph (issue 32, item 3)."""
    fn = viz.visualize(make_model("sourced"))
    render_c_module(fn)
    (src,) = viz.recordings()[0]["steps"][0]["sources"]
    assert src["file"] == THIS_FILE
    lines = {line_of("sin"), line_of("add"), line_of("sumsqr")}
    assert src["first"] == min(lines) - 3 and len(src["lines"]) == max(lines) - min(lines) + 7
    for marker in ("sin", "add", "sumsqr"):
        assert f"# line: {marker}" in src["lines"][line_of(marker) - src["first"]]
    assert viz_recording._sources([{"nodes": [{"file": "<string>", "line": 3}]}]) == []
