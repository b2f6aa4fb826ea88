"""Size limits of derivatives, refused before anything that size is allocated (issue 33).

A pattern holds at most 2^31 - 1 entries and a dense Jacobian or Hessian is one array of at
most 2^31 - 1 elements (docs/derivatives.md). Each case past a limit runs in a subprocess with
its address space capped at a few GB: refused there with an error naming the limit, within
seconds. Before the check moved ahead of the allocations, `x * x.sum()` at n = 50,000 built
10 GB of dependency sets and died with `MemoryError: std::bad_alloc` after 39 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import scaly as sc

PYTHON = os.path.join(os.path.dirname(__file__), "..")

# The address space a refusal may use: the analysis of a 50,000-element model
# needs a few hundred MB, the refused patterns 10 to 20 GB.
LIMIT_BYTES = 4 << 30


def refused(body):
    """Run `body` (defining f and calling one derivative of it) capped at LIMIT_BYTES;
    (the ValueError's message, seconds it took)."""
    code = textwrap.dedent("""
        import resource, time
        resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
        import numpy as np
        import scaly as sc
        t = time.perf_counter()
        try:
        {body}
            print("NOT REFUSED")
        except ValueError as e:
            print("SECONDS", time.perf_counter() - t)
            print(e)
    """).format(limit=LIMIT_BYTES, body=textwrap.indent(textwrap.dedent(body), "    "))
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHON))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout
    assert "NOT REFUSED" not in out and "SECONDS" in out, out + r.stderr[-2000:]
    first, _, message = out.partition("\n")
    return message, float(first.split()[1])


@pytest.mark.parametrize("layout", ["csc", "coo"])
def test_broadcast_of_a_sum_refused_before_allocating(layout):
    # Every one of 50,000 outputs depends on every input: 2.5e9 entries.
    message, seconds = refused(f"""
        n = 50_000
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def f(x):
            return x * x.sum()
        sc.jacobian(f, layout={layout!r})
    """)
    assert "2500000000 entries" in message and "at most 2^31 - 1" in message, message
    assert "expr.broadcast" in message, message  # the op whose result is too large
    assert seconds < 5, seconds


def test_matmul_refused_before_its_sets_are_made():
    # 1000 x 1000 outputs, each depending on all 5,000 inputs: 5e9 entries.
    message, seconds = refused("""
        m, n = 1000, 5000
        C = np.ones((n, m))
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def f(x):
            return ((x.reshape(1, n) * np.ones((m, 1))) @ C).vec()
        sc.jacobian_sparsity(f)
    """)
    assert "5000000000 entries" in message and "expr.matmul" in message, message
    assert seconds < 10, seconds


def test_hessian_of_a_broadcast_sum_refused():
    # The gradient 2 * x * sum(x)**2-like terms: every entry of the Hessian stored.
    message, seconds = refused("""
        n = 50_000
        @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
        def f(x):
            return (x * x.sum() * x).sum()
        sc.hessian(f, layout="csc")
    """)
    assert "at most 2^31 - 1" in message, message
    assert seconds < 10, seconds


@pytest.mark.parametrize("which", ["jacobian", "hessian"])
def test_dense_matrix_past_the_array_limit_refused_at_once(which):
    # A diagonal of 50,000 entries, but dense it is 2.5e9 elements: past the array limit.
    message, seconds = refused(f"""
        n = 50_000
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def f(x):
            return sc.sin(x)
        @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
        def g(x):
            return (x * x).sum()
        sc.jacobian(f) if {which!r} == "jacobian" else sc.hessian(g)
    """)
    assert ("50000 x 50000 = 2500000000 elements; an array holds at most 2**31 - 1"
            in message), message
    assert "layout='csc'" in message, message
    assert seconds < 0.5, seconds


@pytest.mark.parametrize("which", ["jacobian", "hessian"])
def test_same_derivative_sparse_is_built(which, cache):
    n = 50_000

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def f(x):
        return sc.sin(x)

    @sc.function(sc.arg("x", n), outputs=sc.arg("s"))
    def g(x):
        return (x * x).sum()

    J = sc.jacobian(f, layout="csc") if which == "jacobian" else sc.hessian(g, layout="csc")
    shape, colind, row = J.sparsity()
    assert shape == (n, n) and len(row) == n
    x = np.linspace(0.1, 1.0, n)
    values = J(x).diagonal()
    assert np.allclose(values, np.cos(x) if which == "jacobian" else 2.0)


def test_below_the_limit_unchanged(cache):
    # The same model small: every entry stored, values right.
    n = 300

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def f(x):
        return x * x.sum()

    x = np.linspace(0.1, 1.0, n)
    J = sc.jacobian(f, layout="csc")(x)
    assert J.nnz == n * n
    assert np.allclose(J.toarray(), np.eye(n) * x.sum() + x[:, None])


def capped(body, limit=LIMIT_BYTES):
    """Run `body` in a subprocess capped at `limit` bytes of address space; its stdout."""
    code = (f"import resource, time\n"
            f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
            "import numpy as np\nimport scaly as sc\n" + textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=os.path.abspath(PYTHON))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


def test_dense_jacobian_near_the_array_limit_builds_without_an_n2_table(tmp_path):
    # n = 31,623: the dense Jacobian of sin(x) is 1e9 elements (8 GB), within the array
    # limit, with 31,623 stored entries. It was assembled through a table of all 1e9
    # positions (8 GB of int64 in NumPy, then in the C: MemoryError); it is one expr.scatter
    # now, whose C fills the output with zeros and writes the diagonal by one loop. Under a
    # 4 GB cap it is traced, compiled and loaded; calling it needs the 8 GB output, which
    # the cap refuses cleanly (MemoryError) before the call.
    out = capped(f"""
        import os
        os.environ["SCALY_CACHE_DIR"] = {str(tmp_path)!r}
        n = 31_623
        @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
        def f(x):
            return sc.sin(x)
        t = time.perf_counter()
        J = sc.jacobian(f)
        text = J.mlir()
        J.compile()
        print("BUILT", time.perf_counter() - t, len(text), text.count("expr.scatter"))
        try:
            J(np.linspace(0.0, 1.0, n))
            print("CALLED")
        except MemoryError as e:
            print("REFUSED", e)
    """)
    built = next(line for line in out.splitlines() if line.startswith("BUILT")).split()
    seconds, text_length, scatters = float(built[1]), int(built[2]), int(built[3])
    assert scatters == 1 and text_length < 1_000_000, out
    assert seconds < 60, out
    assert "REFUSED" in out and "CALLED" not in out, out


@pytest.mark.parametrize("shared", ["scalar", "array"])
def test_map_past_the_limit_refused_by_a_bound(shared):
    # 50,000 iterations, each depending on all 50,000 inputs through an operand passed
    # whole (a scalar sum of x, or x itself): 2.5e9 entries. The iterations were composed
    # and counted before the refusal (46 s and 52 s); a lower bound from the sets' sizes
    # (the whole operands' union, counted once) refuses it at once.
    message, seconds = refused(f"""
        n = 50_000
        if {shared!r} == "scalar":
            @sc.function(sc.arg("xi", ()), sc.arg("s", ()), outputs=sc.arg("y"))
            def step(xi, s):
                return xi * s
            @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
            def f(x):
                return sc.vmap(step, n, in_axes=(0, None))(x, x.sum())
        else:
            @sc.function(sc.arg("xi", ()), sc.arg("xs", n), outputs=sc.arg("y"))
            def step(xi, xs):
                return xi * xs.sum()
            @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
            def f(x):
                return sc.vmap(step, n, in_axes=(0, None))(x, x)
        sc.jacobian(f, layout="csc")
    """)
    assert "expr.map" in message and "at most 2^31 - 1" in message, message
    assert seconds < 2, seconds


def test_map_with_a_large_first_iteration_is_counted_and_built(cache):
    # The first iteration depends on all 50,000 inputs, the others on one each: the first
    # iteration's estimate (times 50,000) passes the limit, the bound does not, and the
    # exact count (about 1e5 entries) lets it be built.
    n = 50_000

    @sc.function(sc.arg("zi", ()), outputs=sc.arg("y"))
    def step(zi):
        return sc.sin(zi)

    @sc.function(sc.arg("x", n), outputs=sc.arg("y"))
    def f(x):
        return sc.vmap(step, n)(sc.concat([x.sum().reshape(1), x[1:]]))

    shape, colind, row = sc.jacobian(f, layout="csc").sparsity()
    assert shape == (n, n) and len(row) == 2 * n - 1
