#!/usr/bin/env bash
# Set up Scaly on Debian 12: install the Debian packages it needs (only those
# missing), configure with CMake + Ninja (ccache when present, Python pinned to
# /usr/bin/python3, shared libMLIR/libLLVM/libclang-cpp) and build.
#   scripts/setup.sh            # build into ./build
#   BUILD_DIR=/tmp/b scripts/setup.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$here/build}

packages=(
  cmake ninja-build ccache g++ binutils git
  llvm-19-dev libmlir-19-dev mlir-19-tools libclang-19-dev libclang-cpp19-dev clang-19 lld-19
  llvm-19-tools libclang-rt-19-dev
  python3 python3-dev python3-numpy python3-pytest python3-pybind11 pybind11-dev
  python3-pip python3-venv python3-setuptools python3-wheel
  python3-scipy python3-sympy
  googletest libgtest-dev
  libeigen3-dev libsuitesparse-dev coinor-libipopt-dev pkg-config
  chromium
  wasi-libc libclang-rt-19-dev-wasm32 wabt
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "scaly setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S "$here" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build "$build"

# The recordings page's layout engine: elkjs from npm (pinned in
# python/scaly/viz/web/package-lock.json), bundled into the page's assets.
web="$here/python/scaly/viz/web"
if [ ! -f "$web/node_modules/elkjs/lib/elk.bundled.js" ] || [ ! -d "$web/node_modules/playwright-core" ]; then
  (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
fi
cp "$web/node_modules/elkjs/lib/elk.bundled.js" "$here/python/scaly/viz/static/elk.js"

# The scaly_viz command (the recordings browser, scaly.viz.serve): a wrapper in
# the build's bin folder, linked onto PATH when /usr/local/bin is writable.
cat > "$build/bin/scaly_viz" <<WRAPPER
#!/bin/sh
PYTHONPATH="$here/python\${PYTHONPATH:+:\$PYTHONPATH}" exec /usr/bin/python3 -m scaly.viz "\$@"
WRAPPER
chmod +x "$build/bin/scaly_viz"
if [ -w /usr/local/bin ]; then
  ln -sf "$build/bin/scaly_viz" /usr/local/bin/scaly_viz
fi
