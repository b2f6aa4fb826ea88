"""scaly.wasm: building Scaly functions for wasm32 (docs/wasm.md).

Everything the build states is checked against an independent reader: the
manifest's C view against the generated headers (parsed with regexes), its
export signatures against wabt's wasm-objdump, the archive's symbols against
llvm-nm-19, calc_layout against clang-19's own sizeof/offsetof on wasm32
(static assertions), and the standalone module's behaviour by running it in
Node.js (scalar, struct and error paths, the layout table).

Each module is built once per test module (module-scoped fixtures) into a
private cache under tmp: the user's ~/.cache is never touched.
"""

import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

import scaly as sc
import scaly.wasm as sw
from test_wasm_rules import compile_wasm32

CLANG = "clang-19"
WASM_LD = "wasm-ld-19"
LLVM_NM = "llvm-nm-19"
OBJDUMP = "wasm-objdump"
WASI_LIBC = "/usr/lib/wasm32-wasi/libc.a"
BUILTINS = "/usr/lib/llvm-19/lib/clang/19/lib/wasi/libclang_rt.builtins-wasm32.a"

HAVE_TOOLCHAIN = (all(shutil.which(t) for t in (CLANG, WASM_LD, LLVM_NM, "llvm-ar-19", OBJDUMP))
                  and os.path.isfile(WASI_LIBC) and os.path.isfile(BUILTINS))


def require_toolchain():
    """Tests that build or read binaries need the wasm32 toolchain (the
    marshalling and bad-input tests do not)."""
    if not HAVE_TOOLCHAIN:
        pytest.skip("the wasm32 toolchain (clang-19, lld-19, llvm-19, wabt, wasi-libc) is not "
                    "installed")

# Independent references: the C type and the WebAssembly value type of each dtype.
C_TYPE = {"float64": "double", "float32": "float", "int32": "int32_t", "int64": "int64_t",
          "bool": "uint8_t"}
WASM_OF_DTYPE = {"float64": "f64", "float32": "f32", "int32": "i32", "int64": "i64", "bool": "i32"}


# ---------------------------------------------------------------------------
# The functions under test


from models import rollout, spilling  # noqa: E402


@sc.function(sc.arg("x", ()), sc.arg("k", (), dtype="int32"), outputs=sc.arg("y"))
def scal(x, k):
    return x * k.astype("float64") + 1.0


@sc.function(sc.arg("n", 3, dtype="int64"), sc.arg("f", (), dtype="bool"),
             sc.arg("g", 2, dtype="float32"),
             outputs=(sc.arg("m", dtype="int64"), sc.arg("h", dtype="float32")))
def mixed(n, f, g):
    return sc.sum(n), g * 2


@sc.function(sc.arg("x", ()), sc.arg("c", (), dtype="int64"),
             outputs=(sc.arg("pos", dtype="bool"), sc.arg("twice", dtype="int64")))
def flags(x, c):
    return x > 0.0, c * 2




def outer_reference(x):
    return ((np.sin((np.asarray(x) + 0.5) * 3.0) * 2.0) + 1.0) * 2.0


@sc.function(sc.arg("x", 4), outputs=sc.arg("g"))
def chain(x):
    return x[:-1] * x[1:]


def chain_jacobian_reference(x):
    """d(x[:-1] * x[1:])/dx in compressed-column order (docs/guide.md)."""
    return [x[1], x[0], x[2], x[1], x[3], x[2]]


outer = spilling("outer")
# A sparse output (index tables exported) as the last entry.
chain_jacobian = sc.jacobian(chain, layout="csc")
MODULE = [rollout, scal, mixed, flags, outer, chain_jacobian]


# ---------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module", autouse=True)
def private_caches(tmp_path_factory):
    """Any JIT or wasm cache the tests reach lives under tmp."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCALY_CACHE_DIR", str(tmp_path_factory.mktemp("scaly-cache")))
        for var in ("SCALY_WASM_CLANG", "SCALY_WASM_WASM_LD", "SCALY_WASM_LLVM_AR"):
            mp.delenv(var, raising=False)
        yield


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory):
    return tmp_path_factory.mktemp("wasm-cache")


@pytest.fixture(scope="module")
def mod(tmp_path_factory, cache_root):
    require_toolchain()
    return sw.build(MODULE, tmp_path_factory.mktemp("mod"), name="mod", cache_dir=cache_root)


# ---------------------------------------------------------------------------
# Independent readers


def objdump_signatures(wasm):
    """{"imports": [(module, name, (params, results))], "exports": {name: (kind, sig)}}
    as wabt's wasm-objdump -x prints them."""
    text = subprocess.run([OBJDUMP, "-x", str(wasm)], check=True, capture_output=True,
                          text=True).stdout
    types, funcs, imports, exports = {}, {}, [], {}
    section = None
    for line in text.splitlines():
        head = re.match(r"^(\w+)\[\d+\]:$", line)
        if head:
            section = head.group(1)
            continue
        if section == "Type":
            m = re.match(r"^ - type\[(\d+)\] \((.*)\) -> (.*)$", line)
            if m:
                params = tuple(t.strip() for t in m.group(2).split(",") if t.strip())
                res = m.group(3).strip()
                results = () if res == "nil" else \
                    tuple(t.strip() for t in res.strip("()").split(","))
                types[int(m.group(1))] = (params, results)
        elif section == "Import":
            m = re.match(r"^ - func\[(\d+)\] sig=(\d+) <[^>]*> <- ([\w$]+)\.(\S+)$", line)
            if m:
                funcs[int(m.group(1))] = types[int(m.group(2))]
                imports.append((m.group(3), m.group(4), types[int(m.group(2))]))
            elif line.startswith(" - "):
                imports.append(("?", line, None))  # a non-function import
        elif section == "Function":
            m = re.match(r"^ - func\[(\d+)\] sig=(\d+)", line)
            if m:
                funcs[int(m.group(1))] = types[int(m.group(2))]
        elif section == "Export":
            m = re.match(r'^ - (\w+)\[(\d+)\] .*-> "(.*)"$', line)
            if m:
                kind, index = m.group(1), int(m.group(2))
                exports[m.group(3)] = (kind, funcs[index] if kind == "func" else None)
    return {"imports": imports, "exports": exports}


def c_declaration(text, name):
    """(restype, [param types]) of function `name` declared in C `text`."""
    m = re.search(r"^\s*((?:static\s+|inline\s+)*)([\w ]+?\**)\s*\b" + re.escape(name)
                  + r"\(([^)]*)\)\s*[;{]", text, re.M)
    assert m, f"no declaration of {name} in the C text"
    params = [p.strip() for p in m.group(3).split(",") if p.strip() not in ("", "void")]
    return m.group(2).strip(), [re.sub(r"\s*\b\w+$", "", p) for p in params], m.group(1).strip()


def c_param_decls(text, name):
    """The parameter declarations (type and name) of `name` in C `text`."""
    m = re.search(r"\b" + re.escape(name) + r"\(([^)]*)\);", text)
    assert m, f"no declaration of {name}"
    return [p.strip() for p in m.group(1).split(",") if p.strip() not in ("", "void")]


def header_structs(text):
    """{struct name: [(field, c_type, count)]} of the typedef'd structs in a header."""
    out = {}
    pattern = r"typedef struct __attribute__\(\(aligned\(16\)\)\) \{(.*?)\} (\w+);"
    for body, name in re.findall(pattern, text, re.S):
        fields = []
        for c_type, field, dims in re.findall(r"(\w+) (\w+)((?:\[\d+\])*);", body):
            count = 1
            for d in re.findall(r"\d+", dims):
                count *= int(d)
            fields.append((field, c_type, count))
        out[name] = fields
    return out


def defined_globals(archive):
    text = subprocess.run([LLVM_NM, "--defined-only", "--extern-only", str(archive)], check=True,
                          capture_output=True, text=True).stdout
    return {line.split()[-1] for line in text.splitlines()
            if len(line.split()) == 3}


# ---------------------------------------------------------------------------
# 1. The manifest


def test_manifest_scaly_view(mod):
    m = mod.manifest
    assert m["format"] == "scaly-wasm-manifest-1"
    assert m["module"] == "mod" and m["target"] == "wasm32-wasi"
    assert [e["name"] for e in m["entries"]] == [f.name for f in MODULE]
    for fn, e in zip(MODULE, m["entries"]):
        for ports, mine in ((fn.inputs, e["inputs"]), (fn.outputs, e["outputs"])):
            assert [(p["name"], tuple(p["shape"]), p["dtype"]) for p in mine] == \
                [(n, tuple(s), d) for n, s, d in ports]
            for p in mine:
                assert p["c_type"] == C_TYPE[p["dtype"]]
                assert p["wasm"] == WASM_OF_DTYPE[p["dtype"]]
    # The files it names are the build's.
    named = {m["archive"], m["wasm"], m["header"], m["exports_header"], m["shim"]}
    assert named <= set(mod.files())
    for path in mod.files().values():
        assert path.is_file() and path.parent == mod.out_dir
    assert sw.load_manifest(mod.manifest_path) == m


def test_manifest_c_view_matches_header(mod):
    header = mod.header.read_text()
    for e in mod.manifest["entries"]:
        restype, params, _ = c_declaration(header, e["c_name"])
        assert e["c_name"] == e["name"]
        assert e["header"] == "mod.h"
        assert (e["c_restype"], e["c_params"]) == (restype, params)
        # The pointer type is what the five-argument ABI's w points to.
        assert params[3] == e["pointer_type"] + "*"
        # SZ_W counts elements of w's type (bytes for void*).
        sz_w = int(re.search(rf"#define {e['name']}_SZ_W (\d+)", header).group(1))
        element = {"void": 1, "double": 8, "float": 4}[e["pointer_type"]]
        assert e["workspace_bytes"] == sz_w * element
    assert [e["workspace_bytes"] > 0 for e in mod.manifest["entries"]] == \
        [False, False, False, False, True, True]


def test_manifest_structs_match_header(mod):
    structs = header_structs(mod.header.read_text())
    for e in mod.manifest["entries"]:
        for suffix, ports in (("in", e["inputs"]), ("out", e["outputs"])):
            s = e["structs"][suffix]
            assert s["c_name"] == f"{e['name']}_{suffix}"
            declared = structs[s["c_name"]]
            assert [(f["field"], f["c_type"], f["count"]) for f in s["fields"]] == declared
            # A field per port, named and typed as the port says.
            assert [(p["field"], p["c_type"], int(np.prod(p["shape"]))) for p in ports] == declared
            assert s["align"] == 16 and s["size"] % 16 == 0


def test_manifest_exports_match_exports_header(mod):
    """Every export's C declaration is the one <name>_wasm.h declares."""
    text = mod.exports_header.read_text()
    assert '#include "mod.h"' in text
    for e in mod.manifest["entries"]:
        for x in [x for x in e["exports"].values() if x] + e["tables"]:
            restype, _, _ = c_declaration(text, x["name"])
            assert x["c_result"] == restype
            assert x["c_params"] == c_param_decls(text, x["name"])
    layout = mod.manifest["layout"]
    assert layout["name"] == "mod__scaly_layout"
    assert c_declaration(text, "mod__scaly_layout")[0] == layout["c_result"] == "const uint32_t*"


def test_manifest_export_names_and_scalar(mod):
    by_name = {e["name"]: e for e in mod.manifest["entries"]}
    for name, e in by_name.items():
        x = e["exports"]
        assert x["pointers"]["name"] == f"mod__{name}"
        assert x["struct"]["name"] == f"mod__{name}__struct"
        assert x["pointers"]["c_params"][:2] == [f"const {e['pointer_type']}** arg",
                                                 f"{e['pointer_type']}** res"]
        assert x["struct"]["c_params"] == [f"{name}_out* out", f"const {name}_in* in"]
    # The scalar export exists exactly for the all-scalar entries.
    for fn in MODULE:
        all_scalar = all(tuple(shape) == () for _, shape, _ in fn.inputs + fn.outputs)
        assert (by_name[fn.name]["exports"]["scalar"] is not None) == all_scalar
        assert (by_name[fn.name]["no_scalar_export"] is None) == all_scalar
    for name in ("rollout", "mixed", "outer"):
        assert by_name[name]["exports"]["scalar"] is None
    assert by_name["outer"]["no_scalar_export"] == "input 'x' has shape (5,), not a scalar"
    assert by_name["rollout"]["no_scalar_export"] == "input 'zs' has shape (20,), not a scalar"
    assert by_name["mixed"]["no_scalar_export"] == "input 'n' has shape (3,), not a scalar"
    s = by_name["scal"]["exports"]["scalar"]
    assert by_name["scal"]["no_scalar_export"] is None
    assert s["name"] == "mod__scal__scalar"
    assert (s["c_result"], s["c_params"]) == ("double", ["double a0", "int32_t a1"])
    assert (s["params"], s["result"]) == (["f64", "i32"], "f64")
    # Two results: written through a pointer to the typed output struct.
    s = by_name["flags"]["exports"]["scalar"]
    assert by_name["flags"]["no_scalar_export"] is None
    assert s["name"] == "mod__flags__scalar"
    assert (s["c_result"], s["c_params"]) == ("void", ["flags_out* out", "double a0", "int64_t a1"])
    assert (s["params"], s["result"]) == (["i32", "f64", "i64"], None)


def header_tables(header, entry, port):
    """{table suffix (lower case): values} of a sparse output's index macros."""
    found = re.findall(rf"#define {entry}_{port}_([A-Z]+) \{{ \\\n([^}}]*)\}}", header)
    return {t.lower(): [int(v) for v in body.replace("\\", "").split(",")] for t, body in found}


def test_manifest_tables(mod):
    """A sparse output's index tables: one export each, named after the output
    and the table; the others have none."""
    header = mod.header.read_text()
    for e in mod.manifest["entries"]:
        expected = []
        for p in e["outputs"]:
            expected += [f"{p['field']}_{t}" for t in header_tables(header, e["name"], p["field"])]
        assert sorted(x["output_table"] for x in e["tables"]) == sorted(expected)
        lengths = {f"{p['field']}_{t}": len(v) for p in e["outputs"]
                   for t, v in header_tables(header, e["name"], p["field"]).items()}
        for x in e["tables"]:
            assert x["name"] == f"mod__{e['name']}__{x['output_table']}"
            assert x["length"] == lengths[x["output_table"]]
            assert (x["c_result"], x["c_params"], x["params"], x["result"]) == \
                ("const int32_t*", [], [], "i32")
    jac = mod.manifest["entries"][-1]
    assert sorted(x["output_table"] for x in jac["tables"]) == ["jac_g_x_colind", "jac_g_x_row"]


def test_manifest_left_out_internal_procedures(mod):
    source = (mod.out_dir / "mod.c").read_text()
    left = {x["c_name"]: x for x in mod.manifest["left_out"]}
    # The block()ed callees are kept as their own procedures, and only they.
    assert set(left) == {"euler_raw", "inner_raw", "middle_raw"}
    exports = objdump_signatures(mod.wasm)["exports"]
    for name, x in left.items():
        restype, params, specifiers = c_declaration(source, name)
        assert specifiers.startswith("static")
        assert (x["c_restype"], x["c_params"]) == (restype, params)
        assert "internal procedure" in x["reason"] and "never exported" in x["reason"]
        assert f"({specifiers})" in x["reason"]
        # Indeed not exported by the linked module.
        assert not [n for n in exports if name.removesuffix("_raw") in n]


def test_manifest_signatures_match_binary(mod):
    """The export signatures the manifest states are those wasm-objdump reads."""
    dump = objdump_signatures(mod.wasm)
    exports = dump["exports"]
    stated = [x for e in mod.manifest["entries"] for x in e["exports"].values() if x]
    stated += [x for e in mod.manifest["entries"] for x in e["tables"]]
    stated.append(mod.manifest["layout"])
    for x in stated:
        results = (x["result"],) if x["result"] else ()
        assert exports[x["name"]] == ("func", (tuple(x["params"]), results)), x["name"]
    # The params also follow from the C types of the exports' declarations.
    c_wasm = {"double": "f64", "float": "f32", "int64_t": "i64", "int32_t": "i32", "int": "i32",
              "uint8_t": "i32"}
    for x in stated:
        for decl, wasm in zip(x["c_params"], x["params"]):
            t = re.sub(r"\s*\b\w+$", "", decl).replace("const ", "")
            assert wasm == ("i32" if t.endswith("*") else c_wasm[t])
    # Nothing else: the stated exports, the allocation pair, _initialize, memory.
    expected = {x["name"] for x in stated} | {"scaly_alloc", "scaly_free", "_initialize", "memory"}
    assert set(exports) == expected
    assert exports["memory"] == ("memory", None)
    assert exports["scaly_alloc"] == ("func", (("i32",), ("i32",)))
    assert exports["scaly_free"] == ("func", (("i32",), ()))
    assert exports["_initialize"] == ("func", ((), ()))
    # And scaly.wasm's own binary reader agrees with wabt on every export.
    assert sw.read_signatures(mod.wasm.read_bytes())["exports"] == exports


def test_manifest_status_codes_are_the_headers(mod):
    """The manifest's status codes are the header's #defines, in order."""
    defines = re.findall(r"^#define (SCALY_\w+) (\d+)$", mod.header.read_text(), re.M)
    assert [(c["name"], str(c["value"])) for c in mod.manifest["status_codes"]] == defines
    assert all(c["meaning"] for c in mod.manifest["status_codes"])


def test_manifest_imports_only_scaly_error(mod):
    assert mod.manifest["imports"] == [
        {"module": "scaly", "name": "error", "params": ["i32", "i32", "i32"], "result": None}]
    assert objdump_signatures(mod.wasm)["imports"] == [
        ("scaly", "error", (("i32", "i32", "i32"), ()))]


def test_read_signatures_rejects_non_wasm():
    with pytest.raises(ValueError, match="not a WebAssembly module"):
        sw.read_signatures(b"\x7fELF\x02\x01\x01\x00")


# ---------------------------------------------------------------------------
# Running the standalone module (Node.js): what the manifest states works.

NODE_DRIVER = Path(__file__).parent / "wasm_host" / "plan_driver.mjs"


def run_node(tmp_path, wasm, plan):
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    p = subprocess.run(["node", str(NODE_DRIVER), str(wasm), "plan.json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _fields(struct, values):
    return [[f["offset"], f["c_type"], values[f["field"]]] for f in struct["fields"]]


def _outs(struct):
    return [[f["offset"], f["c_type"], f["count"]] for f in struct["fields"]]


@pytest.mark.skipif(not shutil.which("node"), reason="Node.js is not installed")
def test_standalone_module_runs(mod, tmp_path):
    entries = {e["name"]: e for e in mod.manifest["entries"]}
    scal_x = entries["scal"]["exports"]["scalar"]
    # Marshalled by the documented rules (to_wasm), the extreme int32 included.
    scalar_args = [(2.5, 3), (-0.75, -2**31)]
    plan = {"module": "mod", "failing": "mod__scal",
            "scalar": [[scal_x["name"], [sw.to_wasm(x, "float64"), sw.to_wasm(k, "int32")],
                        scal_x["params"]] for x, k in scalar_args]}
    mixed_e, flags_e = entries["mixed"], entries["flags"]
    n, g = [1, -2**40, 7], [1.5, -0.25]
    plan["struct"] = [
        {"name": mixed_e["exports"]["struct"]["name"],
         "inSize": mixed_e["structs"]["in"]["size"], "outSize": mixed_e["structs"]["out"]["size"],
         "inputs": _fields(mixed_e["structs"]["in"], {"n": n, "f": [1], "g": g}),
         "outputs": _outs(mixed_e["structs"]["out"])},
        {"name": flags_e["exports"]["scalar"]["name"], "inSize": 0,
         "outSize": flags_e["structs"]["out"]["size"], "inputs": [],
         "outputs": _outs(flags_e["structs"]["out"]),
         "args": [sw.to_wasm(-3.0, "float64"), str(sw.to_wasm(2**61, "int64"))],
         "types": flags_e["exports"]["scalar"]["params"][1:]},
    ]
    outer_e = entries["outer"]
    xs = [0.1, -0.4, 1.5, 2.25, -3.0]
    plan["struct"].append(
        {"name": outer_e["exports"]["struct"]["name"], "inSize": outer_e["structs"]["in"]["size"],
         "outSize": outer_e["structs"]["out"]["size"],
         "inputs": _fields(outer_e["structs"]["in"], {"x": xs}),
         "outputs": _outs(outer_e["structs"]["out"])})
    plan["pointers"] = [{"name": outer_e["exports"]["pointers"]["name"],
                         "inputs": [["double", xs[::-1]]], "outputs": [["double", 5]]}]
    jac_e = entries["chain_jacobian"]
    xj = [1.5, -2.0, 0.25, 4.0]
    plan["struct"].append(
        {"name": jac_e["exports"]["struct"]["name"], "inSize": jac_e["structs"]["in"]["size"],
         "outSize": jac_e["structs"]["out"]["size"],
         "inputs": _fields(jac_e["structs"]["in"], {"x": xj}),
         "outputs": _outs(jac_e["structs"]["out"])})
    tables = header_tables(mod.header.read_text(), "chain_jacobian", "jac_g_x")
    plan["tables"] = [[f"mod__chain_jacobian__jac_g_x_{t}", len(v)]
                      for t, v in sorted(tables.items())]
    got = run_node(tmp_path, mod.wasm, plan)

    # The layout table: calc_layout's numbers are the compiler's.
    expected = []
    for e in mod.manifest["entries"]:
        for s in (e["structs"]["in"], e["structs"]["out"]):
            bytes_ = {"double": 8, "float": 4, "int32_t": 4, "int64_t": 8, "uint8_t": 1}
            expected.append([s["size"], s["align"], [f["offset"] for f in s["fields"]],
                             [f["count"] * bytes_[f["c_type"]] for f in s["fields"]]])
            offsets, size, align = sw.typed_struct_layout(
                e["inputs"] if s is e["structs"]["in"] else e["outputs"])
            assert (size, align, [offsets[f["field"]] for f in s["fields"]]) == \
                (s["size"], s["align"], [f["offset"] for f in s["fields"]])
    assert got["layout"] == expected

    # Scalars: x * k + 1 (NumPy as the reference).
    assert [sw.from_wasm(r, "float64") for r in got["scalar"]] == \
        [float(np.float64(x) * np.float64(k) + 1.0) for x, k in scalar_args]
    m_out, h_out = got["struct"][0]
    assert [int(v) for v in m_out] == [sum(n)]
    assert h_out == (np.array(g, dtype=np.float32) * 2).tolist()
    pos, twice = got["struct"][1]
    assert [sw.from_wasm(v, "bool") for v in pos] == [False]
    assert [sw.from_wasm(int(v), "int64") for v in twice] == [2**62]

    # outer, with the shim's workspace: from the struct and from the pointers
    # export given no w (sin from wasi-libc: within a few ulps of NumPy's).
    np.testing.assert_allclose(got["struct"][2][0], outer_reference(xs), rtol=1e-14)
    np.testing.assert_allclose(got["pointers"][0][0], outer_reference(xs[::-1]), rtol=1e-14)

    # The sparse Jacobian's values, and its index tables as the header states them.
    assert got["struct"][3][0] == chain_jacobian_reference(xj)
    assert got["tables"] == [v for _, v in sorted(tables.items())]
    assert tables == {"colind": [0, 1, 3, 5, 6], "row": [0, 0, 1, 1, 2, 2]}

    # The error path: the import got "<entry>: <status>", then a trap.
    assert got["trap"] == "RuntimeError"
    assert got["errors"] == [[1, "scal: SCALY_ERR_NULL_ABI (arg or res is null)"]]
    assert got["after"] == got["scalar"][0]


# ---------------------------------------------------------------------------
# 2. The archive


def test_archive_symbols_are_prefixed(mod):
    symbols = defined_globals(mod.archive)
    assert symbols, "llvm-nm found no defined global symbol"
    assert all(s.startswith("mod__") for s in symbols), sorted(symbols)
    # The entries themselves are internal; every export is defined.
    assert not symbols & {f.name for f in MODULE} and "euler_raw" not in symbols
    exports = {x["name"] for e in mod.manifest["entries"] for x in e["exports"].values() if x}
    assert exports | {"mod__scaly_layout"} <= symbols


@sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
def step(x):
    return x + 1.0


def _step_b():
    @sc.function(sc.arg("x", ()), outputs=sc.arg("y"))
    def step(x):
        return x * 2.0
    return step


@pytest.fixture(scope="module")
def two_modules(tmp_path_factory, cache_root):
    require_toolchain()
    a = sw.build(step, tmp_path_factory.mktemp("ma"), name="ma", cache_dir=cache_root)
    b = sw.build([_step_b(), scal], tmp_path_factory.mktemp("mb"), name="mb", cache_dir=cache_root)
    return a, b


def test_two_modules_link_into_one_instance(two_modules, tmp_path):
    a, b = two_modules
    sa, sb = defined_globals(a.archive), defined_globals(b.archive)
    assert sa and sb and not sa & sb
    assert all(s.startswith("ma__") for s in sa) and all(s.startswith("mb__") for s in sb)
    out = tmp_path / "both.wasm"
    p = subprocess.run([WASM_LD, "--no-entry", "--whole-archive", str(a.archive), str(b.archive),
                        "--no-whole-archive", WASI_LIBC, BUILTINS, "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "duplicate symbol" not in p.stderr
    exports = objdump_signatures(out)["exports"]
    for x in ("ma__step__scalar", "mb__step__scalar", "mb__scal__scalar"):
        assert exports[x][0] == "func"
    assert exports["ma__step__scalar"] == exports["mb__step__scalar"] == \
        ("func", (("f64",), ("f64",)))
    if shutil.which("node"):  # each module calls its own `step`
        script = tmp_path / "both.mjs"
        script.write_text(textwrap.dedent("""
            import fs from "fs";
            const {instance} = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]),
                {scaly: {error: () => {}}});
            const ex = instance.exports;
            console.log(JSON.stringify([ex.ma__step__scalar(3.5), ex.mb__step__scalar(3.5)]));
        """))
        r = subprocess.run(["node", str(script), str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == [4.5, 7.0]


def test_alloc_archive_serves_a_host_without_malloc(mod, tmp_path):
    """A host with no malloc of its own links libscaly_alloc.a next to the
    archive: scaly_alloc/scaly_free are then exported (wasi-libc's malloc
    behind them), and a struct call on buffers they allocated is right."""
    require_toolchain()
    alloc = mod.out_dir / "libscaly_alloc.a"
    assert defined_globals(alloc) == {"scaly_alloc", "scaly_free"}
    out = tmp_path / "host.wasm"
    p = subprocess.run([WASM_LD, "--no-entry", "--whole-archive", str(mod.archive), str(alloc),
                        "--no-whole-archive", WASI_LIBC, BUILTINS, "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert {"scaly_alloc", "scaly_free", "mod__scal__struct"} <= set(objdump_signatures(out)["exports"])
    entry = next(e for e in mod.manifest["entries"] if e["name"] == "scal")
    s_in, s_out = entry["structs"]["in"], entry["structs"]["out"]
    off = {f["field"]: f["offset"] for f in s_in["fields"]}
    script = tmp_path / "host.mjs"
    script.write_text(textwrap.dedent(f"""
        import fs from "fs";
        const {{instance}} = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]),
            {{scaly: {{error: () => {{}}}}}});
        const ex = instance.exports;
        const pin = ex.scaly_alloc({s_in["size"]}), pout = ex.scaly_alloc({s_out["size"]});
        const mem = () => new DataView(ex.memory.buffer);
        mem().setFloat64(pin + {off["x"]}, 2.5, true);
        mem().setInt32(pin + {off["k"]}, -3, true);
        ex.mod__scal__struct(pout, pin);
        const y = mem().getFloat64(pout + {s_out["fields"][0]["offset"]}, true);
        ex.scaly_free(pin); ex.scaly_free(pout);
        console.log(JSON.stringify([pin % 64, pout % 64, y]));
    """))
    r = subprocess.run(["node", str(script), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [0, 0, 2.5 * -3 + 1.0]


def test_standalone_allocation_exports(mod, tmp_path):
    """scaly_alloc (printed from EmitC, scaly_alloc.c) in a real engine: 64-byte
    aligned blocks of the size rounded up to 64 that do not overlap, 0 for a
    request within 63 bytes of 4 GiB (rounding up would wrap), and scaly_free."""
    require_toolchain()
    source = (mod.out_dir / "scaly_alloc.c").read_text()
    assert "export_name(\"scaly_alloc\")" in source and "aligned_alloc" in source
    script = tmp_path / "alloc.mjs"
    script.write_text(textwrap.dedent("""
        import fs from "fs";
        const {instance} = await WebAssembly.instantiate(fs.readFileSync(process.argv[2]),
            {scaly: {error: () => {}}, wasi_snapshot_preview1: new Proxy({}, {get: () => () => 0})});
        const ex = instance.exports;
        ex._initialize();
        const a = ex.scaly_alloc(1) >>> 0, b = ex.scaly_alloc(100) >>> 0;
        const big = ex.scaly_alloc(0xFFFFFFFF - 62) >>> 0;
        ex.scaly_free(a); ex.scaly_free(b);
        console.log(JSON.stringify([a % 64, b % 64, a !== 0 && b !== 0, Math.abs(b - a) >= 64, big]));
    """))
    r = subprocess.run(["node", str(script), str(mod.wasm)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == [0, 0, True, True, 0]


def _named(name, constant=1.0):
    """A one-scalar function called `name`."""
    def body(x):
        return x + constant

    body.__name__ = body.__qualname__ = name
    return sc.function(sc.arg("x", ()), outputs=sc.arg("y"))(body)


# Entry names that could meet the shim's own names (its statics are
# scaly_shim_e<k>_*, the layout export <module>__scaly_layout) or each other's
# exports: either the build succeeds with distinct exports, or it is refused
# with a ValueError naming the entry (a "__" inside an entry name).
@pytest.mark.parametrize("first, second", [
    ("a", "a_struct"), ("a", "a__struct"), ("f", "layout"), ("f", "message"), ("f", "fail"),
    ("f", "f_result"),
])
def test_entry_names_colliding_with_shim_names(first, second, tmp_path, cache_root):
    require_toolchain()
    fns = [_named(first, 1.0), _named(second, 2.0)]
    try:
        b = sw.build(fns, tmp_path, name="m", cache_dir=cache_root)
    except ValueError as e:  # a clear refusal is acceptable
        assert re.search(rf"\b{second}\b", str(e))
        return
    names = [x["name"] for e in b.manifest["entries"] for x in e["exports"].values() if x]
    names.append(b.manifest["layout"]["name"])
    assert len(names) == len(set(names))
    exports = objdump_signatures(b.wasm)["exports"]
    assert set(names) <= set(exports)


def test_module_names_with_double_underscores(tmp_path, cache_root):
    """Module m__a's entry x and module m's entry a__x would both export m__a__x:
    names with "__" are refused (or, if built, the two archives must link)."""
    try:
        ma = sw.build(_named("x"), tmp_path / "ma", name="m__a", cache_dir=cache_root)
        mb = sw.build(_named("a__x"), tmp_path / "mb", name="m", cache_dir=cache_root)
    except ValueError as e:
        assert "__" in str(e)
        return
    p = subprocess.run([WASM_LD, "--no-entry", "--whole-archive", str(ma.archive), str(mb.archive),
                        "--no-whole-archive", WASI_LIBC, BUILTINS, "-o", str(tmp_path / "o.wasm")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


# ---------------------------------------------------------------------------
# 3. The typed structs of a build (calc_layout against clang: test_wasm_rules.py)


def test_typed_struct_layout(mod, tmp_path):
    """typed_struct_layout of the manifest's ports is clang's layout of the
    generated header's structs; a struct without values holds `char unused_`."""
    lines = ["#include <stddef.h>", '#include "mod.h"']
    for e in mod.manifest["entries"]:
        for suffix, ports in (("in", e["inputs"]), ("out", e["outputs"])):
            t = f"{e['name']}_{suffix}"
            offsets, size, align = sw.typed_struct_layout(ports)
            lines.append(f"_Static_assert(sizeof({t}) == {size}, \"{t}\");")
            lines.append(f"_Static_assert(_Alignof({t}) == {align}, \"{t}\");")
            lines += [f"_Static_assert(offsetof({t}, {f}) == {o}, \"{t}.{f}\");"
                      for f, o in offsets.items()]
    shutil.copy(mod.header, tmp_path / "mod.h")
    p = compile_wasm32(tmp_path, "\n".join(lines) + "\n", "typed.c")
    assert p.returncode == 0, p.stderr
    empty = [{"field": "e", "c_type": "double", "shape": [0, 3]}]
    assert sw.typed_struct_layout(empty) == ({"unused_": 0}, 16, 16)
    assert sw.typed_struct_layout([]) == ({"unused_": 0}, 16, 16)


# ---------------------------------------------------------------------------
# 5. The signature check (bad input: test_wasm_rules.py)


def _rollout_like(name="rollout", zs_shape=20, zs_dtype="float64", zs_name="zs", out_name="zn"):
    """A function with rollout's ports but for the one changed."""
    def body(zs, us):
        return zs.astype("float64") * us.sum()

    body.__name__ = body.__qualname__ = name
    return sc.function(sc.arg(zs_name, zs_shape, dtype=zs_dtype), sc.arg("us", 10),
                       outputs=sc.arg(out_name))(body)


def test_check_signature_accepts_the_same_function(mod):
    entry = sw.check_signature(mod.manifest, rollout)
    assert entry is mod.manifest["entries"][0]
    assert sw.check_signature(mod.manifest, mixed)["name"] == "mixed"
    # A function traced anew with the same ports passes too.
    assert sw.check_signature(mod.manifest, _rollout_like())["name"] == "rollout"


@pytest.mark.parametrize("kwargs, ours", [
    ({"zs_shape": 21}, "zs: float64[21]"),
    ({"zs_dtype": "float32"}, "zs: float32[20]"),
    ({"zs_name": "z0"}, "z0: float64[20]"),
    ({"out_name": "zout"}, "zout: float64[20]"),
])
def test_check_signature_mismatch(mod, kwargs, ours):
    fn = _rollout_like(**kwargs)
    with pytest.raises(sw.SignatureError) as info:
        sw.check_signature(mod.manifest, fn)
    message = str(info.value)
    assert ours in message
    assert "(zs: float64[20], us: float64[10]) -> (zn: float64[20])" in message
    assert "rollout" in message


def test_check_signature_unknown_entry(mod):
    fn = _rollout_like(name="elsewhere")
    with pytest.raises(sw.SignatureError, match="no entry 'elsewhere'") as info:
        sw.check_signature(mod.manifest, fn)
    assert "rollout, scal, mixed, flags, outer, chain_jacobian" in str(info.value)
