"""Maros-Meszaros benchmark of scaly.solvers.solve_qp, judged as qpbenchmark judges, next to PIQP.

    PYTHONPATH=python /usr/bin/python3 bench/qp.py [NAME_OR_REGEX ...] [-t SECONDS]
        [--settings default|high_accuracy|both] [--backend sparse|dense] [--jobs N]
        [--max-iter N] [--csv PATH]

Each (problem, setting) is solved in its own process (so a hang or a crash costs one problem,
killed at the time limit -t), after a warm-up solve of a tiny QP. The time is the wall time of
the solve_qp call (conversion to the library's CSC, setup and solve; loading the .mat file and
splitting its rows are not timed), as qpbenchmark times the solver call; a problem is solved up
to --repeat times (5) while the runs total under 1 s, and the median counts (qpbenchmark times
one run; the repeats only damp noise on sub-millisecond problems).

"found" is decided by tests/qpdata.py from the returned x and multipliers alone: the solver says
'solved' and qpbenchmark's primal residual, dual residual and duality gap are each within the
setting's tolerance (default: 1; high_accuracy: 1e-9). PIQP's rows come from
piqp-reference.csv (qpbenchmark 2024, PIQP 0.4.1, i7-6500U), judged by the same rule.
"""

import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.normpath(os.path.join(HERE, "..", "python"))
TESTS_DIR = os.path.join(PYTHON_DIR, "tests")
sys.path.insert(0, TESTS_DIR)

import qpdata  # noqa: E402

SHIFT = 10.0              # qpbenchmark: runtime shifted geometric mean with sh = 10 s
QPBENCH_TIME_LIMIT = 1000.0  # qpbenchmark's Maros-Meszaros time limit: a failure's runtime
IMPORT_RETRIES, IMPORT_RETRY_WAIT = 5, 20.0  # a child that cannot import scaly is rerun
REPEAT_BUDGET = 1.0       # repeat a solve (up to --repeat times) while the runs total under this
SETTINGS = ("default", "high_accuracy")


# --------------------------------------------------------------------------- child process ---

def child(name, setting, backend, max_iter, repeat):
    """Solves one problem at one setting and prints one JSON line."""
    import numpy as np

    sys.path.insert(0, PYTHON_DIR)
    from scaly.solvers import solve_qp

    options = qpdata.SOLVER_OPTIONS[setting]
    if max_iter:
        options = dict(options or {}, max_iter=max_iter)
    # Warm-up: the first call of the library pays one-time costs a long-running process would not.
    solve_qp(np.eye(1), np.ones(1), x_l=np.zeros(1), x_u=np.ones(1), backend=backend)
    prob = qpdata.load_maros_meszaros(name)
    kwargs = prob.to_scaly()
    times = []
    while True:
        start = time.perf_counter()
        res = solve_qp(**kwargs, backend=backend, options=options)
        times.append(time.perf_counter() - start)
        if len(times) >= repeat or sum(times) >= REPEAT_BUDGET:
            break
    runtime = statistics.median(times)
    y_orig = prob.multipliers_from_result(res)
    r = qpdata.check_solution(prob, res.x, y_orig)
    rd = qpdata.check_solution(prob, res.x, y_orig, precision="double")
    out = {
        "problem": name, "setting": setting, "n": prob.n, "m": prob.m,
        "status": res.status, "native_status": int(res.native_status), "iter": int(res.iter),
        "runtime": runtime, "runs": len(times),
        "t_setup": float(res.t_setup), "t_solve": float(res.t_solve),
        "obj": float(prob.objective(res.x)),
        "primal_residual": r.primal, "dual_residual": r.dual, "duality_gap": r.gap,
        "solver_primal_res": float(res.primal_res), "solver_dual_res": float(res.dual_res),
        "solver_duality_gap": float(res.duality_gap),
        "found": bool(qpdata.is_success(setting, res.status, r)),
        "double_duality_gap": rd.gap,
        "found_double": bool(qpdata.is_success(setting, res.status, rd)),
    }
    print("RESULT " + json.dumps(out), flush=True)


def run_one(name, setting, args):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", name, setting,
           "--backend", args.backend]
    if args.max_iter:
        cmd += ["--max-iter", str(args.max_iter)]
    cmd += ["--repeat", str(args.repeat)]
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + os.pathsep + env.get("PYTHONPATH", "")
    base = {"problem": name, "setting": setting, "found": False, "found_double": False,
            "runtime": args.timeout,
            "iter": -1, "primal_residual": math.inf, "dual_residual": math.inf,
            "duality_gap": math.inf}
    for attempt in range(IMPORT_RETRIES + 1):
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                  env=env)
        except subprocess.TimeoutExpired:
            return dict(base, status="timeout", **sizes(name))
        for line in proc.stdout.splitlines():
            if line.startswith("RESULT "):
                return json.loads(line[len("RESULT "):])
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        # A library being rebuilt while the bench runs ("file too short"): wait and retry.
        if not tail.startswith(("ImportError", "OSError")) or attempt == IMPORT_RETRIES:
            break
        print(f"  ({name}: {tail[:120]}; retrying in {IMPORT_RETRY_WAIT:g} s)", file=sys.stderr,
              flush=True)
        time.sleep(IMPORT_RETRY_WAIT)
    base.update(sizes(name))
    status = f"crash({proc.returncode})" if proc.returncode < 0 else "exception"
    return dict(base, status=status, runtime=math.nan, error=tail[:200])


def library_stamp():
    """The QP library's path, size and modification time (a rebuild during a run is reported)."""
    sys.path.insert(0, PYTHON_DIR)
    try:
        from scaly.solvers import native_paths

        path = native_paths()["scaly_qp"]
        st = os.stat(path)
        return f"{path} ({st.st_size} bytes, modified {time.ctime(st.st_mtime)})"
    except Exception as e:  # noqa: BLE001 - reported, the children will fail the same way
        return f"unavailable: {e}"


def sizes(name):
    import scipy.io

    mat = scipy.io.loadmat(os.path.join(qpdata.DATA_DIR, name + ".mat"), variable_names=["n", "m"])
    return {"n": int(mat["n"].ravel()[0]), "m": int(mat["m"].ravel()[0])}


# --------------------------------------------------------------------------- statistics -------

def shgeom(values, shift=SHIFT):
    """qpbenchmark's shifted geometric mean: exp(mean(log(v + sh))) - sh."""
    if not values:
        return math.nan
    return math.exp(sum(math.log(v + shift) for v in values) / len(values)) - shift


def load_piqp():
    path = os.path.join(qpdata.DATA_DIR, "piqp-reference.csv")
    ref = {}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            setting = row["settings"]
            if setting not in qpdata.TOLERANCES:
                continue
            tol = qpdata.TOLERANCES[setting]
            residuals = [float(row[k]) for k in ("primal_residual", "dual_residual",
                                                 "duality_gap")]
            reported = row["found"] == "True"
            ref[row["problem"], setting] = {
                "runtime": float(row["runtime"]), "reported": reported,
                "found": reported and all(r <= tol for r in residuals)}
    return ref


def fmt_time(t):
    if t is None or math.isnan(t):
        return "-"
    return f"{t:.4f}" if t < 10 else f"{t:.1f}"


def summarize(setting, results, piqp, args, out):
    p = lambda *a: print(*a, file=out, flush=True)  # noqa: E731
    names = [r["problem"] for r in results]
    n = len(results)
    ours_found = sum(r["found"] for r in results)
    ours_reported = sum(r["status"] == "solved" for r in results)
    ref = [piqp.get((name, setting)) for name in names]
    have_ref = [x for x in ref if x is not None]
    all_ref = [v for (prob, s), v in piqp.items() if s == setting]
    p(f"\n== {setting}: summary over {n} problems (load average now "
      f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}) ==")
    p(f"success rate (solver says solved and residuals <= {qpdata.TOLERANCES[setting]:g}, "
      f"checked from x, y):")
    p(f"  scaly            {100.0 * ours_found / n:6.1f} %  ({ours_found}/{n}; "
      f"{ours_reported} reported 'solved'; residuals of the returned doubles evaluated exactly)")
    k = sum(r.get("found_double", False) for r in results)
    p(f"  scaly, in double {100.0 * k / n:6.1f} %  ({k}/{n}; the gap summed in double precision "
      f"as qpbenchmark does, as PIQP's rows were judged)")
    if have_ref:
        k = sum(x["found"] for x in have_ref)
        p(f"  PIQP, same set   {100.0 * k / len(have_ref):6.1f} %  ({k}/{len(have_ref)})")
    k = sum(x["found"] for x in all_ref)
    p(f"  PIQP, its 138    {100.0 * k / len(all_ref):6.1f} %  ({k}/{len(all_ref)}, with EXDATA; "
      f"qpbenchmark's report: 96 default, 73 high accuracy)")

    # Shifted geometric means (qpbenchmark: sh = 10 s; a run whose solver did not report
    # success counts at the 1000 s time limit). Only over problems with a PIQP row.
    pairs = [(r, x) for r, x in zip(results, ref) if x is not None]
    if pairs:
        lim = QPBENCH_TIME_LIMIT
        ours_q = shgeom([r["runtime"] if r["status"] == "solved" else lim for r, _ in pairs])
        piqp_q = shgeom([x["runtime"] if x["reported"] else lim for _, x in pairs])
        ours_s = shgeom([r["runtime"] if r["found"] else lim for r, _ in pairs])
        piqp_s = shgeom([x["runtime"] if x["found"] else lim for _, x in pairs])
        p(f"shifted geometric mean of runtimes, sh = {SHIFT:g} s, over {len(pairs)} problems:")
        p(f"  qpbenchmark's rule (failure = solver did not report success -> {lim:g} s):")
        p(f"    scaly {ours_q:.4f} s   PIQP {piqp_q:.4f} s   ratio {ours_q / piqp_q:.3f}")
        p(f"  strict rule (failure = not found by the checker -> {lim:g} s):")
        p(f"    scaly {ours_s:.4f} s   PIQP {piqp_s:.4f} s   ratio {ours_s / piqp_s:.3f}")
        both = [(r["runtime"], x["runtime"]) for r, x in pairs if r["found"] and x["found"]]
        if both:
            ratios = [a / b for a, b in both]
            gm = math.exp(sum(math.log(q) for q in ratios) / len(ratios))
            p(f"  normalized (different hardware): over the {len(both)} problems both solve, "
              f"per-problem time ratio scaly/PIQP: median {statistics.median(ratios):.3f}, "
              f"geometric mean {gm:.3f}, best {min(ratios):.3f}, worst {max(ratios):.3f}; "
              f"SGM over those only: scaly {shgeom([a for a, _ in both]):.4f} s, "
              f"PIQP {shgeom([b for _, b in both]):.4f} s")
    fails = [r for r in results if not r["found"]]
    if fails:
        p("not found: " + ", ".join(
            f"{r['problem']} ({r['status']}"
            + ("" if r["status"] in ("timeout",) or r["status"].startswith(("crash", "exc"))
               else f", res {max(r['primal_residual'], r['dual_residual'], r['duality_gap']):.1e}")
            + ")" for r in fails))


def header(setting, args, out):
    opts = qpdata.SOLVER_OPTIONS[setting]
    if args.max_iter:
        opts = dict(opts or {}, max_iter=args.max_iter)
    print(f"\n== {setting}: backend {args.backend}, options {opts or 'None (library defaults)'}, "
          f"time limit {args.timeout:g} s per problem ==", file=out, flush=True)
    print(f"{'problem':10} {'n':>6} {'m':>7} {'status':>17} {'iter':>4} {'scaly[s]':>9} "
          f"{'PIQP[s]':>9} {'ratio':>7} {'found':>5} {'PIQP':>5} {'max res':>8}",
          file=out, flush=True)


def row(r, piqp, out):
    ref = piqp.get((r["problem"], r["setting"]))
    ratio = r["runtime"] / ref["runtime"] if ref else math.nan  # nan for an exception
    res = max(r["primal_residual"], r["dual_residual"], r["duality_gap"])
    print(f"{r['problem']:10} {r.get('n', ''):>6} {r.get('m', ''):>7} {r['status']:>17} "
          f"{r['iter']:>4} {fmt_time(r['runtime']):>9} "
          f"{fmt_time(ref['runtime'] if ref else None):>9} {ratio:7.2f} "
          f"{'yes' if r['found'] else 'NO':>5} "
          f"{('yes' if ref['found'] else 'no') if ref else '-':>5} {res:8.1e}",
          file=out, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="*", help="names or regexes (full match, any case)")
    parser.add_argument("-t", "--timeout", type=float, default=60.0)
    parser.add_argument("--settings", choices=("default", "high_accuracy", "both"),
                        default="both")
    parser.add_argument("--backend", choices=("sparse", "dense"), default="sparse")
    parser.add_argument("--jobs", type=int, default=1,
                        help="parallel problems (1: timings undisturbed on a 2-core machine)")
    parser.add_argument("--max-iter", type=int, default=0,
                        help="max_iter for both settings (0: the library's default, as PIQP had)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="solves per problem, while they total under 1 s; the median counts")
    parser.add_argument("--csv", help="also write every result to this CSV")
    parser.add_argument("--child", nargs=2, metavar=("NAME", "SETTING"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.backend, args.max_iter, args.repeat)
        return

    names = qpdata.names()
    if args.problems:
        pats = [re.compile(p, re.IGNORECASE) for p in args.problems]
        names = [n for n in names if any(p.fullmatch(n) for p in pats)]
    if not names:
        sys.exit("no problem matches")
    settings = SETTINGS if args.settings == "both" else (args.settings,)
    piqp = load_piqp()
    out = sys.stdout
    print(f"Maros-Meszaros: {len(names)} problems, settings {', '.join(settings)}, backend "
          f"{args.backend}, {args.jobs} job(s). Times in seconds (median of up to {args.repeat} "
          f"runs totalling < {REPEAT_BUDGET:g} s); ratio = scaly/PIQP; PIQP's from "
          f"piqp-reference.csv (i7-6500U), ours on this machine.", file=out)
    stamp = library_stamp()
    print(f"library: {stamp}", file=out, flush=True)
    all_results = []
    for setting in settings:
        header(setting, args, out)
        results = []
        if args.jobs <= 1:
            for name in names:
                r = run_one(name, setting, args)
                row(r, piqp, out)
                results.append(r)
        else:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(args.jobs) as pool:
                for r in pool.map(lambda nm: run_one(nm, setting, args), names):
                    row(r, piqp, out)
                    results.append(r)
        summarize(setting, results, piqp, args, out)
        all_results += results
    print(f"\nSGM: qpbenchmark's shgeom, exp(mean(log(t + {SHIFT:g}))) - {SHIFT:g}, a failed run "
          f"counted at qpbenchmark's {QPBENCH_TIME_LIMIT:g} s time limit (ours and PIQP's alike); "
          f"'normalized' compares per-problem time ratios where both succeed, since the "
          f"machines differ.", file=out)
    if library_stamp() != stamp:
        print(f"WARNING: the library changed during the run, now {library_stamp()}", file=out)
    if args.csv:
        keys = sorted({k for r in all_results for k in r})
        with open(args.csv, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(all_results)


if __name__ == "__main__":
    main()
