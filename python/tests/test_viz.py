"""scaly.viz: opt-in recordings of renders (graph, IR per pass, C, pass timings) and
what they hold. The recordings file shared by processes and the browser's server:
test_viz_store.py."""

import datetime
import json
import os
import re
import subprocess
import textwrap
import time

import numpy as np
import pytest

import scaly as sc
from scaly import viz
from scaly.codegen import render_c_module, render_native
from scaly.runtime import jit
from scaly.viz import recording as viz_recording

from jitutil import ENERGY, PYTHON, run_snippet
from vizutil import (  # noqa: F401  (isolated: an autouse fixture)
    MODEL_FILE, isolated, line_of, make_energy, make_model, subprocess_env)


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
    assert body_nodes and all(n["file"] == MODEL_FILE for n in body_nodes)
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




def test_capture_restores_an_earlier_mark_and_its_label():
    """A function marked before a capture block stays marked, with its label, after it."""
    f = make_energy("kept")
    viz.visualize(f, label="outer")
    with viz.capture(f, label="inner"):
        render_c_module(f)
    render_c_module(f)
    assert [r["name"] for r in viz.recordings()] == ["inner", "outer"]




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
    assert src["file"] == MODEL_FILE
    lines = {line_of("sin"), line_of("add"), line_of("sumsqr")}
    assert src["first"] == min(lines) - 3 and len(src["lines"]) == max(lines) - min(lines) + 7
    for marker in ("sin", "add", "sumsqr"):
        assert f"# line: {marker}" in src["lines"][line_of(marker) - src["first"]]
    assert viz_recording._sources([{"nodes": [{"file": "<string>", "line": 3}]}]) == []
