"""What saving one scaly.viz recording costs as the history grows (issue 32, item 4).

    PYTHONPATH=python /usr/bin/python3 bench/viz_append.py [--history 0,1000,10000] [--repeat 20]

In a fresh SCALY_VIZ_DIR, the recording of one render of the tests' rollout model (graph,
IR after every pass, C) is appended until the history holds each given number of
recordings; at each, `repeat` more appends are timed one by one (the recording's own file
written and renamed, the index line appended under the lock) and the median and the
maximum are printed, with the index's and the folder's size. The earlier layout rewrote one
JSON list on every append (0.68 s once it held 14 MB).
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "tests"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", default="0,1000,10000")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    os.environ["SCALY_VIZ_DIR"] = tempfile.mkdtemp(prefix="scaly-viz-bench-")
    try:
        run(args)
    finally:
        shutil.rmtree(os.environ["SCALY_VIZ_DIR"], ignore_errors=True)


def run(args):
    from scaly import viz
    from scaly.codegen import render_c_module
    from scaly.viz import recording
    from models import rollout_model

    fn = viz.visualize(rollout_model(), label="bench")
    render_c_module(fn)
    rec = viz.recordings()[-1]
    viz.clear_recordings()
    size = len(recording.json.dumps(rec))
    print(f"one recording: {size / 1e3:.0f} kB, {len(rec['steps'])} steps")
    count = 0
    for target in sorted(int(h) for h in args.history.split(",")):
        while count < target:
            recording._append(dict(rec, id=recording._new_id()))
            count += 1
        times = []
        for _ in range(args.repeat):
            one = dict(rec, id=recording._new_id())
            start = time.perf_counter()
            recording._append(one)
            times.append(time.perf_counter() - start)
            count += 1
        folder = viz.recording_dir() / "recordings"
        total = sum(f.stat().st_size for f in folder.iterdir())
        print(f"history {target:6d}: append median {1e3 * statistics.median(times):6.2f} ms, "
              f"max {1e3 * max(times):6.2f} ms; index {viz.recording_path().stat().st_size / 1e6:.2f}"
              f" MB, recordings {total / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
