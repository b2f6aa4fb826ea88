#!/usr/bin/env bash
# The main job: build, then run the rollout example (author, export C, compile, call).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
PYTHONPATH="$here/python" /usr/bin/python3 "$here/examples/rollout.py"
