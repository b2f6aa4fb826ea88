#!/usr/bin/env bash
# Run every test: ctest (GoogleTest + lit) and pytest. Builds first.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$here/build}
"$here/scripts/setup.sh"
cd "$build"
ctest --output-on-failure -j2
cd "$here"
PYTHONPATH="$here/python" SCALY_BUILD_DIR="$build" /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
