"""Each C statement's Python origin: RenderedModule.line_origins and the
`/* model.py:12 */` comments of render_c_module(line_comments=True).

The reference is this file's own source: the lines a model's operations are
written on are found by searching it, not written into the tests.
"""

import inspect
import os
import re

import numpy as np
import pytest

import scaly as sc
from scaly.codegen import render_c_module

import cdriver

HERE = os.path.abspath(__file__)
COMMENT = re.compile(r"^\s*/\* (.*) \*/$")


def line_of(fn, text):
    """The line of this file on which `text` occurs inside `fn`'s source (once)."""
    lines, first = inspect.getsourcelines(fn)
    hits = [first + i for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def chain(x, u):
    a = sc.sin(x) * u
    total = x.sum()
    b = sc.exp(a + total)
    return b * 2.0


def scan_step(s, u):
    s2 = s + 0.1 * sc.cos(s) * u
    return s2, s2 * s2


def make_chain(n=100):
    return sc.function(sc.arg("x", n), sc.arg("u", ()), outputs=sc.arg("y"))(chain)


def make_scan():
    step = sc.function(sc.arg("s", ()), sc.arg("u", ()), outputs=(sc.arg("s2"), sc.arg("q")))(scan_step)

    def rollout(s0, us):
        return sc.scan(step, 50)(s0, us)

    return sc.function(sc.arg("s0", ()), sc.arg("us", 50),
                       outputs=(sc.arg("sN"), sc.arg("qs")))(rollout)


def statement_lines(module, predicate):
    """The 1-based lines of module.source whose text satisfies `predicate`."""
    return [i + 1 for i, line in enumerate(module.source.splitlines()) if predicate(line)]


def origins_by_line(module):
    return {c_line: set(frm) for c_line, frm in module.line_origins}


def test_each_statement_names_the_lines_its_ops_were_written_on():
    module = render_c_module(make_chain())
    origins = origins_by_line(module)
    sin_line, sum_line = line_of(chain, "sc.sin(x)"), line_of(chain, "x.sum()")
    exp_line, ret_line = line_of(chain, "sc.exp("), line_of(chain, "b * 2.0")
    # The sum is its own statement (a helper call); the rest is one inlined loop body,
    # which reads the sum by name (so the sum's line is not among its own).
    [sum_stmt] = statement_lines(module, lambda s: "= scaly_sum_f64(" in s)
    [body] = statement_lines(module, lambda s: "sin(" in s and "exp(" in s)
    assert origins[sum_stmt] == {(HERE, sum_line)}
    assert origins[body] == {(HERE, sin_line), (HERE, exp_line), (HERE, ret_line)}
    # The loop writing the result comes from the op that made it (the last one).
    [loop] = statement_lines(module, lambda s: s.startswith("  for (long long i = 0; i < 100;"))
    assert origins[loop] == {(HERE, ret_line)}
    # Every record points at a statement of the source, and lines come sorted, once each.
    lines = module.source.splitlines()
    for c_line, frm in module.line_origins:
        assert lines[c_line - 1].strip().endswith(("{", ";")), lines[c_line - 1]
        assert list(frm) == sorted(set(frm))
    # The entry's own checks come from no Python line.
    for check in statement_lines(module, lambda s: "return SCALY_ERR" in s):
        assert check not in origins


def test_line_comments_name_the_origins_and_change_nothing_else():
    fn = make_chain()
    plain = render_c_module(fn)
    commented = render_c_module(fn, line_comments=True)
    base = os.path.basename(HERE)
    sin_line, sum_line = line_of(chain, "sc.sin(x)"), line_of(chain, "x.sum()")
    ret_line = line_of(chain, "b * 2.0")
    lines = commented.source.splitlines()
    comments = [(i, COMMENT.match(line).group(1)) for i, line in enumerate(lines)
                if COMMENT.match(line) and "Scaly" not in line]
    assert comments, commented.source
    assert f"{base}:{sum_line}" in [text for _, text in comments]
    exp_line = line_of(chain, "sc.exp(")
    assert (sin_line, exp_line) == (sum_line - 1, sum_line + 1)  # the runs below rely on it
    assert f"{base}:{sin_line}, {exp_line}-{ret_line}" in [text for _, text in comments]
    # Each comment matches the origins recorded for the statement under it.
    origins = origins_by_line(commented)
    for i, text in comments:
        stmt = next(k for k in range(i + 1, len(lines)) if not lines[k].strip().startswith(
            ("/*", "SCALY_NO_UNROLL")))
        files = {os.path.basename(f) for f, _ in origins[stmt + 1]}
        assert files == {base}
        nums = sorted(n for _, n in origins[stmt + 1])
        assert text.startswith(f"{base}:{nums[0]}")
    # Without the comment lines, the source is the plain one (same record targets shifted).
    stripped = "\n".join(line for line in lines if not (COMMENT.match(line) and "Scaly" not in line))
    assert stripped + "\n" == plain.source
    assert "/* " + base not in plain.source


def test_loop_bodies_carry_the_step_function_lines():
    module = render_c_module(make_scan(), line_comments=True)
    step_line = line_of(scan_step, "sc.cos(s)")
    cos_stmts = statement_lines(module, lambda s: "cos(" in s and not s.lstrip().startswith("/*"))
    assert cos_stmts
    origins = origins_by_line(module)
    assert all((HERE, step_line) in origins[k] for k in cos_stmts)
    assert f":{step_line}" in module.source


@pytest.mark.parametrize("compiler", cdriver.COMPILERS)
def test_commented_module_compiles_warning_free_and_computes_the_same(tmp_path, compiler):
    fn = make_chain(20)
    built = cdriver.build(fn, str(tmp_path), compiler=compiler, line_comments=True)
    x = np.linspace(-1.0, 1.0, 20)
    [y] = built.run(x, np.array(0.7))
    np.testing.assert_allclose(y, np.exp(np.sin(x) * 0.7 + x.sum()) * 2.0, rtol=1e-14)


def test_line_comments_must_be_a_bool():
    with pytest.raises(ValueError, match="line_comments must be True or False, got 'yes'"):
        render_c_module(make_chain(), line_comments="yes")


def test_origins_a_render_skipped_are_found_on_first_read():
    """render_c_module records no origins unless asked (line comments, stages, viz):
    the first read of line_origins renders again with them, once, and gets what a
    render that recorded them gets, for the same C."""
    f = make_scan()
    lazy = render_c_module(f)
    eager = render_c_module(f, record_stages=True)  # records them while printing
    assert lazy.source == eager.source
    assert "line_origins" not in vars(lazy)  # not found yet
    assert lazy.line_origins == eager.line_origins
    assert lazy.line_origins is lazy.line_origins  # found once
    step_line = line_of(scan_step, "s2 = s + 0.1")
    assert any((HERE, step_line) in frm for _, frm in lazy.line_origins)
