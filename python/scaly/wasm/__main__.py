"""The command line of scaly.wasm (docs/wasm.md, "From the command line").

    python -m scaly.wasm build model.py rollout mul_add -o out/ [--name model] [--lanes 2]
    python -m scaly.wasm manifest out/ [--json] [--entry rollout]

`build` imports a Python file, takes the named scaly Functions from it and
builds them into one module (scaly.wasm.build); `manifest` prints what a built
module exports, and checks each export's signature against the .wasm next to
the manifest. Exit status: 0 on success, 1 on an error (printed on stderr),
2 on a usage error.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import traceback
from pathlib import Path

from .._function import Function
from .archive import build
from .binary import read_signatures
from .manifest import load_manifest
from .toolchain import WasmToolchainError


class CommandError(Exception):
    """An error the command reports on stderr (exit status 1)."""


def _load_file(path):
    """Import the Python file `path` as a module (its folder first on sys.path,
    so that it can import its neighbours)."""
    path = Path(path)
    if not path.is_file():
        raise CommandError(f"{path}: no such file")
    name = "_scaly_wasm_cli_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CommandError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 -- the user's file: its traceback, then one line
        traceback.print_exc()
        raise CommandError(f"{path}: importing it raised {type(e).__name__}: {e}") from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def _functions(module, path, names):
    """The scaly Functions `names` of `module` (attribute paths such as `f` or `ns.f`)."""
    found = []
    for name in names:
        value = module
        for part in name.split("."):
            if not hasattr(value, part):
                available = sorted(k for k, v in vars(module).items() if isinstance(v, Function))
                raise CommandError(f"{path} has no {name!r}; its scaly Functions: "
                                   f"{', '.join(available) or 'none'}")
            value = getattr(value, part)
        if not isinstance(value, Function):
            raise CommandError(f"{path}: {name} is a {type(value).__name__}, not a scaly Function "
                               "(define it with @sc.function)")
        found.append(value)
    return found


def _ports(ports):
    return ", ".join(f"{p['name']}: {p['dtype']}{p['shape']}" for p in ports)


def _signature(x):
    return f"({', '.join(x['params'])}) -> {x['result'] or '()'}"


def _recipe(text):
    """The recipe's CPU baseline and lanes line, from its text (docs/recipe.md)."""
    lines = [line.strip(" *") for line in text.splitlines()]
    cpu = next((line.split(":", 1)[1].strip() for line in lines
                if line.startswith("CPU baseline:")), None)
    lanes = next((line for line in lines if line.startswith("lanes=")), None)
    if cpu is None or lanes is None:
        return " ".join(lines)
    return f"cpu={cpu}, {lanes}"


def describe(manifest, entry=None):
    """The manifest as text: the module, then per entry its signature and exports."""
    lines = [f"module {manifest['module']} ({manifest['target']}): {manifest['wasm']}, "
             f"{manifest['archive']}; compiled with {' '.join(manifest['compile_flags'])}",
             f"  recipe: {_recipe(manifest['recipe'])}",
             f"  layout table: {manifest['layout']['name']} {_signature(manifest['layout'])}",
             f"  imports: " + ", ".join(f"{i['module']}.{i['name']}" for i in manifest["imports"])]
    entries = manifest["entries"]
    if entry is not None:
        entries = [e for e in entries if e["name"] == entry]
        if not entries:
            raise CommandError(f"module {manifest['module']} has no entry {entry!r} (it has "
                               f"{', '.join(e['name'] for e in manifest['entries'])})")
    for e in entries:
        lines.append(f"entry {e['name']}: ({_ports(e['inputs'])}) -> ({_ports(e['outputs'])})")
        for kind in ("pointers", "struct", "scalar"):
            x = e["exports"][kind]
            if x is None:
                lines.append(f"  {kind:<8} none: {e['no_scalar_export']}")
            else:
                lines.append(f"  {kind:<8} {x['name']} {_signature(x)}")
        for t in e["tables"]:
            lines.append(f"  table    {t['name']} {_signature(t)}: {t['output_table']}, "
                         f"{t['length']} int32")
        for side in ("in", "out"):
            s = e["structs"][side]
            fields = ", ".join(f"{f['field']}@{f['offset']}" for f in s["fields"])
            lines.append(f"  struct   {s['c_name']}: {s['size']} bytes, align {s['align']}"
                         f"{': ' + fields if fields else ''}")
        lines.append(f"  workspace {e['workspace_bytes']} bytes (held by the shim)")
    if entry is None:
        for f in manifest["left_out"]:
            lines.append(f"left out {f['c_name']}: {f['reason']}")
    return "\n".join(lines)


def _all_exports(manifest):
    yield manifest["layout"]
    for e in manifest["entries"]:
        yield from (x for x in e["exports"].values() if x is not None)
        yield from e["tables"]


def check_binary(manifest, wasm_path):
    """Problems between the manifest's exports and the signatures in the binary."""
    exports = read_signatures(Path(wasm_path).read_bytes())["exports"]
    problems = []
    for x in _all_exports(manifest):
        kind, signature = exports.get(x["name"], (None, None))
        expected = (tuple(x["params"]), (x["result"],) if x["result"] else ())
        if kind != "func":
            problems.append(f"{x['name']}: not exported by {Path(wasm_path).name}")
        elif signature != expected:
            problems.append(f"{x['name']}: {signature} in {Path(wasm_path).name}, {expected} in "
                            "the manifest")
    return problems


def _manifest_path(target):
    """The manifest.json of `target`: the file itself, or the one in a build's
    folder, or the one next to a .wasm."""
    p = Path(target)
    if p.is_dir():
        p = p / "manifest.json"
    elif p.suffix == ".wasm":
        p = p.parent / "manifest.json"
    if not p.is_file():
        raise CommandError(f"{target}: no manifest.json there (give a build's folder, its "
                           "manifest.json or its .wasm)")
    return p


def cmd_build(args):
    module = _load_file(args.file)
    functions = _functions(module, args.file, args.functions)
    result = build(functions, args.out, name=args.name, lanes=args.lanes,
                   scalarize_limit=args.scalarize_limit, cache_dir=args.cache_dir)
    if not args.quiet:
        print(f"built {result.name} into {result.out_dir}"
              f"{' (from the cache)' if result.cached else ''}: "
              f"{', '.join(sorted(result.files()))}")
        print(describe(result.manifest))
    return 0


def cmd_manifest(args):
    path = _manifest_path(args.target)
    try:
        manifest = load_manifest(path)
    except ValueError as e:
        raise CommandError(str(e)) from None
    wasm = path.parent / manifest["wasm"]
    problems = check_binary(manifest, wasm) if wasm.is_file() else None
    if args.json:
        data = manifest if args.entry is None else next(
            (e for e in manifest["entries"] if e["name"] == args.entry), None)
        if data is None:
            describe(manifest, args.entry)  # raises, naming the entries
        print(json.dumps(data, indent=1))
    else:
        print(describe(manifest, args.entry))
        if problems is None:
            print(f"{manifest['wasm']} is not next to the manifest: exports not checked")
        elif not problems:
            print(f"every export's signature agrees with {manifest['wasm']}")
    if problems:
        for p in problems:
            print(f"scaly.wasm: {p}", file=sys.stderr)
        raise CommandError(f"{path} does not describe {wasm}: {len(problems)} export(s) differ")
    return 0


def parser():
    p = argparse.ArgumentParser(
        prog="python -m scaly.wasm",
        description="Build Scaly functions for WebAssembly (wasm32-wasi) and read what a build "
                    "exports (docs/wasm.md).")
    sub = p.add_subparsers(dest="command", required=True, metavar="{build,manifest}")
    b = sub.add_parser("build", help="build scaly Functions of a Python file into one module",
                       description="Import FILE, take the scaly Functions named FUNCTION from it "
                                   "and build them, in that order, as the entries of one module: "
                                   "lib<name>.a, <name>.wasm, manifest.json and the C sources, "
                                   "written into OUT.")
    b.add_argument("file", metavar="FILE", help="a Python file defining the functions")
    b.add_argument("functions", metavar="FUNCTION", nargs="+",
                   help="a scaly Function of FILE (a name, or a dotted attribute path)")
    b.add_argument("-o", "--out", required=True, metavar="OUT", help="the folder to write into")
    b.add_argument("--name", help="the module's name (default: the first function's)")
    b.add_argument("--lanes", type=int, choices=(1, 2, 4), default=1,
                   help="widen loops to 2 or 4 lanes of WebAssembly SIMD (-msimd128); default 1")
    b.add_argument("--scalarize-limit", type=int, metavar="N",
                   help="scalarize arrays of at most N elements (default: the renderer's)")
    b.add_argument("--cache-dir", metavar="DIR",
                   help="the build cache's root (default: SCALY_CACHE_DIR, as the JIT's)")
    b.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    b.set_defaults(run=cmd_build)
    m = sub.add_parser("manifest", help="print what a built module exports",
                       description="Print a build's manifest: its entries, their signatures and "
                                   "exports; each export's signature is checked against the .wasm "
                                   "next to the manifest (exit status 1 if one differs).")
    m.add_argument("target", metavar="PATH",
                   help="a build's folder, its manifest.json or its .wasm")
    m.add_argument("--entry", help="only this entry")
    m.add_argument("--json", action="store_true", help="print the manifest (or entry) as JSON")
    m.set_defaults(run=cmd_manifest)
    return p


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except (CommandError, WasmToolchainError, ValueError, TypeError) as e:
        print(f"python -m scaly.wasm {args.command}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
