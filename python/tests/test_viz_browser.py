"""The recordings page in a real browser: Debian's chromium driven by playwright-core
(python/scaly/viz/web, installed by scripts/setup.sh), against a served recording."""

from __future__ import annotations

import json
import shutil
import subprocess
import re
import threading
from collections import Counter
from pathlib import Path

import pytest

import scaly as sc
from scaly.codegen import render_c_module

from models import rollout_model

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "python" / "scaly" / "viz" / "web"
DRIVER = WEB / "browser_test.mjs"


def _browser_ready():
    return (Path("/usr/bin/chromium").exists() and shutil.which("node")
            and (WEB / "node_modules" / "playwright-core").is_dir()
            and (ROOT / "python" / "scaly" / "viz" / "static" / "elk.js").exists())


def drive(script, *args):
    """Serve the recordings file, run a browser script against the page's URL,
    and return what it printed (JSON); the in-memory recordings are cleared."""
    from scaly.viz import clear_recordings, recording_path
    from scaly.viz.serve import VizServer
    server = VizServer(("127.0.0.1", 0), recording_path())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        proc = subprocess.run(["node", str(script), url, *map(str, args)],
                              capture_output=True, text=True, timeout=180)
    finally:
        server.shutdown()
        server.server_close()
        clear_recordings()
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


pytestmark = pytest.mark.skipif(not _browser_ready(),
                                reason="chromium, node or the page's npm packages are missing: "
                                       "run scripts/setup.sh")


def test_page_lists_draws_steps_and_shows_c(tmp_path, monkeypatch):
    """The list shows the recording, the graph has one node per traced op (the
    map collapsed; a click expands its callee), a pass shows its IR and its
    difference, the C view shows the entry's signature; a screenshot is saved."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, recordings, visualize

    rollout = rollout_model()  # traced afresh: the recording sees this test's trace
    clear_recordings()
    visualize(rollout, label="Rollout page")
    module = render_c_module(rollout)
    (rec,) = recordings()
    graph = rec["steps"][0]["functions"]
    shot = tmp_path / "viz.png"
    seen = drive(DRIVER, "Rollout page", "scaly-lower-to-program", shot)
    assert seen["errors"] == []
    assert seen["list"] == ["Rollout page · aot"] and seen["status"] == "1 recording"
    assert seen["graphNodes"] == len(graph[0]["nodes"])
    assert seen["collapsed"] == 1
    callee = next(f for f in graph if f["function"] == "euler")
    assert seen["expandedNodes"] == len(callee["nodes"])
    lowered = next(s for s in rec["steps"] if s["name"] == "scaly-lower-to-program")
    assert seen["ir"] == lowered["text"] and "prog.proc @rollout" in seen["ir"]
    assert seen["diffAdded"] > 0 and seen["diffRemoved"] > 0
    # Item 2: hunks with context lines and line numbers (old, new), exactly the lines
    # of the two texts.
    ir_steps = [s for s in rec["steps"] if s["kind"] == "ir"]
    before = ir_steps[[s["name"] for s in ir_steps].index("scaly-lower-to-program") - 1]["text"]
    old_lines, new_lines = before.split("\n"), lowered["text"].split("\n")
    kinds = Counter(kind for kind, _ in seen["diffRows"])
    assert kinds["hunk"] >= 1 and kinds["context"] > 0
    assert kinds["added"] == seen["diffAdded"] and kinds["removed"] == seen["diffRemoved"]
    row = re.compile(r"^\s*(\d*) +(\d*) ([-+ ]) (.*)$", re.S)
    for kind, content in seen["diffRows"]:
        if kind == "hunk":
            assert re.fullmatch(r"@@ -\d+ \+\d+ @@", content)
            continue
        i, j, sign, line = row.match(content).groups()
        assert sign == {"context": " ", "added": "+", "removed": "-"}[kind]
        if i:
            assert old_lines[int(i) - 1] == line
        if j:
            assert new_lines[int(j) - 1] == line
        assert bool(i) == (kind != "added") and bool(j) == (kind != "removed")
    assert len(seen["diffRows"]) < len(old_lines) + len(new_lines)  # unchanged lines left out
    # Item 1 of issue 32: each pass's time, the total and the slowest at a glance,
    # and the passes that changed nothing folded away (a click unfolds them).
    passes = [s for s in rec["steps"] if s["kind"] == "ir"][1:]
    timing = rec["passes"]
    assert f"slowest {timing['slowest']}" in seen["timing"] and "in all" in seen["timing"]
    assert len(seen["stepTimes"]) == len(passes)
    assert all(t.endswith(" ms") or t.endswith(" s") for t in seen["stepTimes"])
    assert seen["slowest"] == [timing["slowest"]]
    unchanged = [s["name"] for s in passes if not s["changed"]]
    assert unchanged and seen["folded"] == unchanged and seen["visibleUnchanged"] == 0
    assert seen["unfolded"] == len(unchanged)
    assert sum(int(f.split()[1]) for f in seen["folds"]) == len(unchanged)
    assert seen["c"] == module.source
    assert "int rollout(const double** arg, double** res, int* iw, double* w, int mem)" in seen["c"]
    assert seen["highlighted"] > 0
    # The reshape's Python line is the `return sc.vmap(...)` line; the EmitC
    # ops carrying it (the loop over stages) are listed.
    reshape = next(n for n in graph[0]["nodes"] if n["op"] == "expr.reshape")
    assert f"expr.reshape from {reshape['file']}:{reshape['line']}" in seen["origin"]
    assert "printed one to one" in seen["origin"] and "emitc." in seen["origin"]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_a_graph_of_ten_thousand_nodes_stays_usable(tmp_path, monkeypatch):
    """A model unrolled in Python (10^4 traced nodes) is drawn as 40 blocks of
    consecutive nodes, each opening its own nodes on click."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, recordings, visualize

    @sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
    def unrolled(x):
        for _ in range(3400):
            x = x + 0.1 * x.sin()
        return x

    clear_recordings()
    visualize(unrolled, label="unrolled")
    render_c_module(unrolled)
    nodes = recordings()[0]["steps"][0]["functions"][0]["nodes"]
    assert len(nodes) > 10_000
    seen = drive(WEB / "large_graph_test.mjs")
    size = max(100, -(-len(nodes) // 40))
    assert seen["drawn"] == -(-len(nodes) // size)
    assert f"{len(nodes)} nodes" in seen["heading"] and "blocks" in seen["heading"]
    assert seen["opened"] == size


def test_new_recordings_appear_without_a_reload(tmp_path, monkeypatch):
    """The page reads the index first and a recording only when it is opened; a recording
    appended while the page is open appears in its list by itself (issue 32, item 4)."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, load_index, recording_dir, visualize
    from scaly.viz.serve import VizServer

    first = visualize(rollout_model(), label="first")
    render_c_module(first)
    server = VizServer(("127.0.0.1", 0), recording_dir())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        proc = subprocess.Popen(["node", str(WEB / "live_test.mjs"), url], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
            second = visualize(rollout_model(), label="second")
            render_c_module(second)
            out, err = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        server.shutdown()
        server.server_close()
        clear_recordings()
    assert proc.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["before"] == ["first · aot"] and seen["requestsBeforeClick"] == 0
    assert seen["after"] == ["first · aot", "second · aot"] and seen["status"] == "2 recordings"
    assert seen["appearedMs"] < 10_000
    (entry,) = [e for e in load_index() if e["name"] == "second"]
    assert f"/recording?id={entry['id']}" in seen["requests"]
    assert any(r.startswith("/index.json?from=1") for r in seen["requests"])
    assert seen["steps"] == entry["steps"] and seen["title"].startswith("second")


def test_a_large_models_diff_shows_in_under_a_second(tmp_path, monkeypatch):
    """A model unrolled in Python to 7,000 irregular steps (IR of 21,000 lines at every
    stage): each pass's line difference (patience and Myers in a Web Worker) is shown in
    under a second from the click, with its counts exact; rows beyond the first 2,000 come
    with a button (issue 32, item 2)."""
    import random
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, recordings, visualize

    rng = random.Random(32)
    kinds = [rng.randrange(3) for _ in range(7000)]

    @sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
    def irregular(x):
        for k in kinds:  # no repeating pattern: nothing rolls the steps into a loop
            x = x + 0.1 * (x.sin() if k == 0 else x.cos() if k == 1 else x.tanh())
        return x

    clear_recordings()
    visualize(irregular, label="irregular")
    render_c_module(irregular)
    steps = [s for s in recordings()[0]["steps"] if s["kind"] == "ir"]
    assert min(s["text"].count("\n") for s in steps) > 20_000
    seen = drive(WEB / "large_diff_test.mjs")
    assert seen["errors"] == []
    passes = seen["passes"]
    assert [p["name"] for p in passes] == [s["name"] for s in steps[1:]]
    changed = [p for p, s in zip(passes, steps[1:]) if s["changed"]]
    assert len(changed) >= 3
    for p, s in zip(passes, steps[1:]):
        assert p["ms"] < 1000, (p["name"], p["ms"])
        if not s["changed"]:
            assert p["text"] == "(no change)"
            continue
        old, new = steps[steps.index(s) - 1]["text"].split("\n"), s["text"].split("\n")
        m = re.search(r": \+(\d+) −(\d+) lines", p["heading"])
        added, removed = int(m.group(1)), int(m.group(2))
        assert added - removed == len(new) - len(old) and added > 0
        # At least as many lines kept as the common prefix and suffix.
        common = 0
        while common < min(len(old), len(new)) and old[common] == new[common]:
            common += 1
        assert len(old) - removed >= common
        assert p["rows"] == min(2000, int(p["allRows"]))
    assert seen["more"]["after"] == seen["more"]["before"] + 2000
    print("diff ms by pass:", {p["name"]: p["ms"] for p in changed})


def test_a_gradients_derivative_is_drawn_from_its_vjp(tmp_path, monkeypatch):
    """For sc.gradient the function scaly-differentiate makes is drawn like any other:
    the vjp node opens it (issue 32, item 5)."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, recordings, visualize

    @sc.function(sc.arg("x", 3), outputs=sc.arg("e"))
    def energy(x):
        return sc.sumsqr(sc.sin(x))

    clear_recordings()
    grad = visualize(sc.gradient(energy), label="gradient")
    render_c_module(grad)
    functions = recordings()[0]["steps"][0]["functions"]
    (derived,) = [f for f in functions if f.get("derived")]
    seen = drive(WEB / "derivative_test.mjs")
    assert seen["errors"] == []
    assert f"@{derived['function']}" in seen["derivedNote"]
    assert seen["vjpLabel"].startswith(f"vjp @energy → @{derived['function']}")
    assert seen["derivativeHeading"].startswith(f"derivative of @energy: @{derived['function']} ")
    assert seen["derivativeNodes"] == [n["op"] for n in derived["nodes"]]
    assert "expr.math" in seen["derivativeNodes"] and len(seen["derivativeNodes"]) > 5


def test_python_source_beside_the_graph_links_lines_to_ops_and_c(tmp_path, monkeypatch):
    """The Python source is shown beside the graph; clicking a line of a loop body unrolled
    into the trace highlights that line's nodes of one iteration, lists its ops in every
    stage (one run per iteration), the EmitC ops and the C lines the printer recorded for it,
    in a panel beside the line;
    the next iteration and a clicked node move the panel and the highlight (issue 32, item 3)."""
    monkeypatch.setenv("SCALY_VIZ_DIR", str(tmp_path / "viz"))
    from scaly.viz import clear_recordings, recordings, visualize

    @sc.function(sc.arg("x", 4), outputs=sc.arg("y"))
    def looped(x):
        for _ in range(5):
            x = x + 0.5 * x.sin()  # loop body
        return sc.sum(x)

    clear_recordings()
    visualize(looped, label="looped")
    render_c_module(looped)
    step = recordings()[0]["steps"][0]
    (src,) = step["sources"]
    body_line = src["first"] + next(k for k, t in enumerate(src["lines"]) if "# loop body" in t)
    nodes = [n for n in step["functions"][0]["nodes"] if n["line"] == body_line]
    # One line, five iterations in a row: sin, mul, add each, the first with the
    # constant 0.5 and its broadcast.
    ops = [n["op"] for n in nodes]
    assert ops == ["expr.math", "expr.constant", "expr.broadcast", "expr.mul", "expr.add"] + \
        ["expr.math", "expr.mul", "expr.add"] * 4
    iterations = [nodes[:5]] + [nodes[5 + 3 * k:8 + 3 * k] for k in range(4)]
    recorded = recordings()[0]["steps"]
    ir = [s for s in recorded if s["kind"] == "ir"]
    seen = drive(WEB / "source_test.mjs", "# loop body")
    assert seen["errors"] == []
    assert seen["rowLine"] == body_line and body_line in seen["located"]
    first, second, node = seen["first"], seen["second"], seen["node"]
    assert not first["hidden"] and first["py"] == "x = x + 0.5 * x.sin()  # loop body"
    assert first["iteration"].strip() == "iteration 1 of 5"
    assert first["highlighted"] == [n["id"] for n in iterations[0]]
    assert first["sourceHl"] == [body_line]
    stages = {name: (ops, runs, text) for name, ops, runs, text in first["stages"]}
    assert [name for name, *_ in first["stages"]] == [s["name"] for s in ir]
    n_ops, runs, text = stages["input"]
    assert runs == 5 and n_ops == 5 and all(f":{body_line}:" in l for l in text.split("\n"))
    emitc = stages[ir[-1]["name"]]
    assert emitc[0] > 0 and "emitc." in emitc[2]
    # The C lines the printer recorded for the line, numbered as in the C source.
    c_step = recorded[-1]
    c_source = c_step["source"].split("\n")
    want = [n for n, frm in c_step["origins"] if [src["file"], body_line] in frm]
    assert any("sin(" in c_source[n - 1] for n in want)
    shown = [row.split(None, 1) for row in first["cLines"].split("\n")]
    assert [int(n) for n, _ in shown] == want
    assert [code for _, code in shown] == [c_source[n - 1].strip() for n in want]
    # Beside the clicked line: level with it, right of the source.
    assert abs(first["top"] - first["rowTop"]) < 30 and first["left"] >= first["sourceRight"] - 5
    assert second["iteration"].strip() == "iteration 2 of 5"
    assert second["highlighted"] == [n["id"] for n in iterations[1]]
    assert dict((n, o) for n, o, _, _ in second["stages"])["input"] == 3
    assert [r for _, _, r, _ in second["stages"]] == [r for _, _, r, _ in first["stages"]]
    # A node of the last iteration: the panel moves beside it.
    assert node["heading"].endswith(f":{body_line}") and not node["hidden"]
    assert abs(node["top"] - node["nodeTop"]) < 30
    assert node["left"] >= min(node["nodeRight"], 1400 - 460) - 20
