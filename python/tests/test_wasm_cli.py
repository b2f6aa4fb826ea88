"""python -m scaly.wasm build|manifest (issue 32), run as a user runs them: a
new process on a model file, the module it writes loaded in Node.js."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import scaly.wasm as sw

RUNTIME = Path(sw.__file__).parent / "js" / "scaly_wasm.mjs"
PYTHON_DIR = Path(sw.__file__).parents[2]

MODEL = textwrap.dedent("""
    import scaly as sc


    @sc.function(sc.arg("z", 2), sc.arg("u", ()), outputs=sc.arg("znext"))
    def euler(z, u):
        return sc.stack([z[0] + 0.1 * z[1], z[1] + 0.1 * u.sin()]).block()


    @sc.function(sc.arg("zs", 20), sc.arg("us", 10), outputs=sc.arg("zn"))
    def rollout(zs, us):
        return sc.vmap(euler, 10)(zs.reshape((10, 2)), us).vec()


    @sc.function(sc.arg("x", ()), sc.arg("y", ()), outputs=sc.arg("r"))
    def mul_add(x, y):
        return x * y + 1.0


    @sc.function(sc.arg("x", 8), outputs=sc.arg("y"))
    def twice(x):
        return 2.0 * x


    not_a_function = 3
""")


def cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(PYTHON_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]))
    return subprocess.run([sys.executable, "-m", "scaly.wasm", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True)


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    if not shutil.which("node") or not shutil.which("clang-19"):
        pytest.fail("node and clang-19 are needed (scripts/setup.sh installs them)")
    d = tmp_path_factory.mktemp("cli")
    (d / "model.py").write_text(MODEL)
    return d


def test_build_then_load_in_node(work):
    p = cli("build", "model.py", "rollout", "mul_add", "-o", "out", "--name", "model",
            "--cache-dir", "cache", cwd=work)
    assert p.returncode == 0, p.stderr
    out = work / "out"
    files = {"libmodel.a", "libscaly_alloc.a", "model.wasm", "manifest.json", "model.c", "model.h",
             "model_wasm.c", "model_wasm.h", "scaly_alloc.c"}
    assert files <= {f.name for f in out.iterdir()}
    assert "built model into out: " in p.stdout and "entry rollout: (zs: float64[20], " \
        "us: float64[10]) -> (zn: float64[20])" in p.stdout
    assert "scalar   model__mul_add__scalar (f64, f64) -> f64" in p.stdout
    manifest = sw.load_manifest(out / "manifest.json")
    assert [e["name"] for e in manifest["entries"]] == ["rollout", "mul_add"]
    # The module runs: the runtime's layout check passes and mul_add computes.
    script = work / "run.mjs"
    script.write_text(f"""
import {{ readFileSync }} from "node:fs";
import {{ instantiate }} from "{RUNTIME.as_uri()}";
const k = await instantiate(readFileSync("out/model.wasm"), JSON.parse(readFileSync("out/manifest.json", "utf8")));
console.log(k.scalar("mul_add", 1.5, 2.0), k.call("rollout", {{ zs: new Array(20).fill(1), us: new Array(10).fill(0.5) }}).zn[1]);
""")
    run = subprocess.run(["node", str(script)], cwd=work, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["4", "1.0479425538604203"]
    # Again: from the cache, -q prints nothing.
    again = cli("build", "model.py", "rollout", "mul_add", "-o", "out", "--name", "model",
                "--cache-dir", "cache", "-q", cwd=work)
    assert again.returncode == 0 and again.stdout == "", again.stderr


def test_manifest_prints_and_checks_the_binary(work):
    p = cli("build", "model.py", "twice", "-o", "t2", "--lanes", "2", "--cache-dir", "cache", "-q",
            cwd=work)
    assert p.returncode == 0, p.stderr
    for target in ("t2", "t2/manifest.json", "t2/twice.wasm"):
        m = cli("manifest", target, cwd=work)
        assert m.returncode == 0, m.stderr
        assert m.stdout.startswith("module twice (wasm32-wasi): twice.wasm, libtwice.a; compiled "
                                   "with --target=wasm32-wasi")
        assert "-msimd128" in m.stdout and "lanes=2," in m.stdout
        assert "entry twice: (x: float64[8]) -> (y: float64[8])" in m.stdout
        assert "scalar   none: input 'x' has shape (8,), not a scalar" in m.stdout
        assert "every export's signature agrees with twice.wasm" in m.stdout
    j = cli("manifest", "t2", "--json", "--entry", "twice", cwd=work)
    assert j.returncode == 0, j.stderr
    entry = json.loads(j.stdout)
    assert entry["exports"]["struct"] == {"name": "twice__twice__struct",
                                          "c_result": "void",
                                          "c_params": ["twice_out* out", "const twice_in* in"],
                                          "params": ["i32", "i32"], "result": None}
    whole = json.loads(cli("manifest", "t2/manifest.json", "--json", cwd=work).stdout)
    assert whole == json.loads((work / "t2" / "manifest.json").read_text())


def test_manifest_refuses_a_binary_it_does_not_describe(work):
    assert cli("build", "model.py", "mul_add", "-o", "a", "--cache-dir", "cache", "-q",
               cwd=work).returncode == 0
    assert cli("build", "model.py", "twice", "-o", "b", "--name", "mul_add", "--cache-dir",
               "cache", "-q", cwd=work).returncode == 0
    # b's binary (module mul_add, entry twice) next to a's manifest (entry mul_add).
    shutil.copy(work / "b" / "mul_add.wasm", work / "a" / "mul_add.wasm")
    m = cli("manifest", "a", cwd=work)
    assert m.returncode == 1
    assert "scaly.wasm: mul_add__mul_add: not exported by mul_add.wasm" in m.stderr
    assert "does not describe" in m.stderr and "export(s) differ" in m.stderr


@pytest.mark.parametrize("args, message", [
    (["build", "model.py", "nope", "-o", "x"],
     "model.py has no 'nope'; its scaly Functions: euler, mul_add, rollout, twice"),
    (["build", "model.py", "not_a_function", "-o", "x"],
     "model.py: not_a_function is a int, not a scaly Function"),
    (["build", "missing.py", "f", "-o", "x"], "missing.py: no such file"),
    (["build", "model.py", "twice", "-o", "x", "--name", "bad__name"], "module name"),
    (["manifest", "nowhere"], "nowhere: no manifest.json there"),
    (["manifest", "model.py"], "cannot read the manifest model.py"),
])
def test_errors_exit_1_with_one_line(work, args, message):
    p = cli(*args, "--cache-dir", "cache", cwd=work) if args[0] == "build" else cli(*args, cwd=work)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert message in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_usage_errors_exit_2(work):
    assert cli(cwd=work).returncode == 2
    p = cli("build", "model.py", "twice", "-o", "x", "--lanes", "3", cwd=work)
    assert p.returncode == 2 and "invalid choice: 3" in p.stderr
    h = cli("build", "--help", cwd=work)
    assert h.returncode == 0 and "FUNCTION" in h.stdout and "--lanes" in h.stdout
