"""The C layout of scaly_solver_stats: 136 bytes, version 3, fields in the seed's order.

A small C program includes include/scaly/Solvers/scaly_solver_stats.h and
prints sizeof and each field's offsetof; it is built by gcc and clang-19 at
-Wall -Wextra -Werror. The expected offsets are computed here from the field
list with the C rules (each field at the next multiple of its alignment, the
size rounded up to the largest alignment), so a field moved, resized or
inserted anywhere fails.
"""

import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER_DIR = os.path.join(ROOT, "include", "scaly", "Solvers")
HEADER = os.path.join(HEADER_DIR, "scaly_solver_stats.h")

# The seed's field order: (C type, name). Nothing but appends may change it.
FIELDS = [
    ("int32_t", "version"),
    ("int32_t", "status"),
    ("int32_t", "native_status"),
    ("int32_t", "iter"),
    ("double", "obj"),
    ("double", "t_total"),
    ("double", "t_fe"),
    ("double", "t_solver"),
    ("double", "t_qp"),
    ("double", "t_globalization"),
    ("double", "t_glue"),
    ("int32_t", "n_eval_f"),
    ("int32_t", "n_eval_grad_f"),
    ("int32_t", "n_eval_g"),
    ("int32_t", "n_eval_jac_g"),
    ("int32_t", "n_eval_h"),
    ("int32_t", "_pad0"),
    ("double", "primal_viol"),
    ("double", "step_inf"),
    ("double", "alpha"),
    ("double", "merit_penalty"),
    ("int32_t", "backtracks"),
    ("int32_t", "qp_iter"),
]

# Size and alignment of each type on the x86-64 / AArch64 System V ABIs.
TYPES = {"int32_t": (4, 4), "double": (8, 8)}

STATUS_MACROS = {
    "SCALY_SOLVE_OK": 0,
    "SCALY_SOLVE_ACCEPTABLE": 1,
    "SCALY_SOLVE_MAX_ITER": 2,
    "SCALY_SOLVE_PRIMAL_INFEASIBLE": 3,
    "SCALY_SOLVE_DUAL_INFEASIBLE": 4,
    "SCALY_SOLVE_NUMERICS": 5,
    "SCALY_SOLVE_USER_STOP": 6,
    "SCALY_SOLVE_ERROR": 7,
}


def c_layout(fields):
    """(offsets by name, sizeof) under the C rules for a struct of `fields`."""
    offset, align_max, offsets = 0, 1, {}
    for ctype, name in fields:
        size, align = TYPES[ctype]
        offset = (offset + align - 1) // align * align
        offsets[name] = offset
        offset += size
        align_max = max(align_max, align)
    return offsets, (offset + align_max - 1) // align_max * align_max


def test_layout_rules_on_known_cases():
    """The layout helper itself: padding before a double, tail padding."""
    offsets, size = c_layout([("int32_t", "a"), ("double", "b"), ("int32_t", "c")])
    assert offsets == {"a": 0, "b": 8, "c": 16} and size == 24
    offsets, size = c_layout([("int32_t", "a"), ("int32_t", "b")])
    assert offsets == {"a": 0, "b": 4} and size == 8


def test_expected_layout_is_136_bytes_without_padding():
    offsets, size = c_layout(FIELDS)
    assert size == 136
    # The seed pads by hand (_pad0): no implicit padding anywhere.
    assert sum(TYPES[t][0] for t, _ in FIELDS) == 136
    assert offsets["obj"] == 16 and offsets["primal_viol"] == 96 and offsets["qp_iter"] == 132


def test_header_declares_the_seed_fields_in_order():
    text = open(HEADER).read()
    body = re.search(r"typedef struct\s*\{(.*?)\}\s*scaly_solver_stats\s*;", text, re.S)
    assert body, "scaly_solver_stats typedef not found"
    decls = re.findall(r"^\s*(\w+)\s+(\w+)\s*;", body.group(1), re.M)
    assert decls == FIELDS
    assert re.search(r"#define\s+SCALY_SOLVER_STATS_VERSION\s+3\b", text)
    for name, value in STATUS_MACROS.items():
        assert re.search(rf"#define\s+{name}\s+{value}\b", text), name


def program(c11):
    prints = "\n".join(
        f'  printf("field {name} %zu %zu\\n", offsetof(scaly_solver_stats, {name}), '
        f"sizeof(((scaly_solver_stats *)0)->{name}));" for _, name in FIELDS)
    statuses = "\n".join(f'  printf("macro {m} %d\\n", {m});' for m in STATUS_MACROS)
    stdalign = "#include <stdalign.h>\n" if c11 else ""
    alignof = '  printf("alignof %zu\\n", alignof(scaly_solver_stats));\n' if c11 else ""
    return f"""#include <stddef.h>
#include <stdio.h>
{stdalign}#include "scaly_solver_stats.h"
/* Included twice, and its definitions guarded: still one definition. */
#include "scaly_solver_stats.h"

int main(void) {{
  printf("sizeof %zu\\n", sizeof(scaly_solver_stats));
{alignof}  printf("macro SCALY_SOLVER_STATS_VERSION %d\\n", SCALY_SOLVER_STATS_VERSION);
{statuses}
{prints}
  return 0;
}}
"""


@pytest.mark.parametrize("compiler", ["gcc", "clang-19"])
@pytest.mark.parametrize("std", ["c11", "c99"])
def test_compiled_layout(tmp_path, compiler, std):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    src = tmp_path / "layout.c"
    src.write_text(program(std == "c11"))
    exe = tmp_path / "layout"
    build = subprocess.run([compiler, f"-std={std}", "-pedantic", "-Wall", "-Wextra", "-Werror",
                            "-I", HEADER_DIR, "-o", str(exe), str(src)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    lines = [line.split() for line in out.splitlines()]
    got, macros, fields = {}, {}, {}
    for parts in lines:
        if parts[0] == "macro":
            macros[parts[1]] = int(parts[2])
        elif parts[0] == "field":
            fields[parts[1]] = (int(parts[2]), int(parts[3]))
        else:
            got[parts[0]] = int(parts[1])
    offsets, size = c_layout(FIELDS)
    assert got["sizeof"] == size == 136
    if std == "c11":
        assert got["alignof"] == 8
    assert macros == {"SCALY_SOLVER_STATS_VERSION": 3, **STATUS_MACROS}
    assert list(fields) == [name for _, name in FIELDS]
    for ctype, name in FIELDS:
        assert fields[name] == (offsets[name], TYPES[ctype][0]), name


def test_cpp_sees_the_same_layout(tmp_path):
    """The header is also valid C++ (g++ -Wall -Wextra -Werror) with the same sizeof."""
    if shutil.which("g++") is None:
        pytest.skip("g++ not installed")
    src = tmp_path / "layout.cpp"
    src.write_text('#include <cstddef>\n#include "scaly_solver_stats.h"\n'
                   'static_assert(sizeof(scaly_solver_stats) == 136, "size");\n'
                   'static_assert(offsetof(scaly_solver_stats, qp_iter) == 132, "qp_iter");\n'
                   "int main() { scaly_solver_stats s{}; return s.version; }\n")
    build = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-I", HEADER_DIR,
                            "-o", str(tmp_path / "layout_cpp"), str(src)],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert subprocess.run([str(tmp_path / "layout_cpp")]).returncode == 0
