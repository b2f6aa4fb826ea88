"""Compile a rendered module with a real C compiler and run it from a C driver.

The driver reads every input from one binary file, calls the exported entry
with the five-argument ABI, writes every output to another file and exits
with the entry's status code. Tests compare the outputs against NumPy.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np

from scaly.codegen import render_c_module

C_TYPES = {"float64": "double", "float32": "float", "int32": "int32_t", "int64": "int64_t",
           "bool": "uint8_t"}
NP_TYPES = {"float64": np.float64, "float32": np.float32, "int32": np.int32, "int64": np.int64,
            "bool": np.uint8}
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
COMPILERS = [c for c in ("gcc", "clang-19") if shutil.which(c)]


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def driver_source(fn, entry_type, misalign=False, null_workspace=False):
    """C source of a driver for `fn`. With `misalign`, every buffer starts 8
    bytes past a 64-byte boundary, so nothing may assume 16-byte alignment."""
    name = fn.name
    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
             "#include <stdint.h>", f'#include "{name}.h"', "",
             "/* Exactly `bytes` usable bytes (so sanitizers see overruns); with misalign,",
             "   8 bytes past malloc's 16-byte alignment. */",
             "static void* buffer(size_t bytes, int misalign) {",
             "  char* p = (char*)malloc(bytes + 8);",
             "  if (!p) exit(103);",
             "  return misalign ? (void*)(p + 8) : (void*)p;",
             "}", "",
             "int main(int argc, char** argv) {",
             "  if (argc != 3) return 100;",
             '  FILE* in = fopen(argv[1], "rb");',
             "  if (!in) return 101;",
             f"  int mis = {1 if misalign else 0};"]
    arg_items, res_items = [], []
    for i, (n, shape, dtype) in enumerate(fn.inputs):
        t, size = C_TYPES[dtype], _size(shape)
        lines.append(f"  {t}* in{i} = ({t}*)buffer(sizeof({t}) * {max(size, 1)}, mis);")
        lines.append(f"  if (fread(in{i}, sizeof({t}), {size}, in) != {size}) return 102;")
        arg_items.append(f"({entry_type}*)in{i}")
    for i, (n, shape, dtype) in enumerate(fn.outputs):
        t, size = C_TYPES[dtype], _size(shape)
        lines.append(f"  {t}* out{i} = ({t}*)buffer(sizeof({t}) * {max(size, 1)}, mis);")
        lines.append(f"  memset(out{i}, 0xff, sizeof({t}) * {max(size, 1)});")
        res_items.append(f"({entry_type}*)out{i}")
    lines += ["  fclose(in);",
              f"  const {entry_type}* arg[] = {{{', '.join(arg_items) or 'NULL'}}};",
              f"  {entry_type}* res[] = {{{', '.join(res_items) or 'NULL'}}};",
              f"  {entry_type}* w = ({entry_type}*)buffer(sizeof(double) * ({name}_SZ_W + 1), mis);"]
    if null_workspace:
        lines.append("  w = NULL;")
    lines += [f"  int status = {name}(arg, res, NULL, w, 0);",
              '  FILE* out = fopen(argv[2], "wb");']
    for i, (n, shape, dtype) in enumerate(fn.outputs):
        t, size = C_TYPES[dtype], _size(shape)
        lines.append(f"  fwrite(out{i}, sizeof({t}), {size}, out);")
    lines += ["  fclose(out);", "  return status;", "}", ""]
    return "\n".join(lines)


def entry_pointer_type(fn):
    dtypes = {d for _, _, d in fn.inputs + fn.outputs}
    if dtypes <= {"float64"}:
        return "double"
    if dtypes == {"float32"}:
        return "float"
    return "void"


class Built:
    """An executable built from a module and its driver."""

    def __init__(self, fn, exe, workdir):
        self.fn, self.exe, self.workdir = fn, exe, workdir

    def run(self, *inputs, expect_status=0):
        """Run with NumPy inputs; returns the list of output arrays."""
        fn = self.fn
        in_path = os.path.join(self.workdir, "in.bin")
        out_path = os.path.join(self.workdir, "out.bin")
        with open(in_path, "wb") as f:
            for (n, shape, dtype), x in zip(fn.inputs, inputs):
                f.write(np.ascontiguousarray(np.broadcast_to(x, shape), NP_TYPES[dtype]).tobytes())
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
                   UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1")
        proc = subprocess.run([self.exe, in_path, out_path], capture_output=True, text=True,
                              env=env)
        assert proc.returncode == expect_status, (proc.returncode, proc.stderr)
        raw = open(out_path, "rb").read()
        outs, pos = [], 0
        for n, shape, dtype in fn.outputs:
            t = np.dtype(NP_TYPES[dtype])
            count = _size(shape)
            arr = np.frombuffer(raw[pos:pos + count * t.itemsize], dtype=t).reshape(shape)
            pos += count * t.itemsize
            outs.append(arr.astype(bool) if dtype == "bool" else arr)
        return outs


def build(fn, workdir, compiler="gcc", flags=(), misalign=False, null_workspace=False,
          sanitize=False, **render_options):
    """Render `fn`, compile module + driver warning-free at -O3, return a `Built`."""
    os.makedirs(workdir, exist_ok=True)
    module = render_c_module(fn, **render_options)
    module.write(workdir)
    drv = os.path.join(workdir, "driver.c")
    with open(drv, "w") as f:
        f.write(driver_source(fn, entry_pointer_type(fn), misalign, null_workspace))
    exe = os.path.join(workdir, f"{fn.name}_{compiler}")
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g"] if sanitize else []
    common = ["-O3", "-fno-math-errno", *WARNINGS, *san, *flags]
    obj = os.path.join(workdir, f"{fn.name}_{compiler}.o")
    subprocess.run([compiler, *common, "-c", os.path.join(workdir, f"{fn.name}.c"), "-o", obj],
                   check=True, capture_output=True, text=True)
    subprocess.run([compiler, *common, "-Wno-unused-result", drv, obj, "-o", exe, "-lm"],
                   check=True, capture_output=True, text=True)
    return Built(fn, exe, workdir)
