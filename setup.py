"""The native half of `pip install .`: Scaly's C++ is built by CMake, not by setuptools.

The extension scaly._scaly is declared to setuptools without sources; building it configures
(once) and builds the CMake tree (SCALY_BUILD_DIR, else build/ next to this file, the folder
scripts/setup.sh uses, so an install after set-up rebuilds nothing), then installs CMake's
`python` component into the wheel's folder: scaly/_scaly*.so, scaly/lib/*.so (found through
$ORIGIN), scaly/include/*.h (the solver headers the JIT compiles wrappers against) and
scaly/solvers/_native.json naming them relatively. setuptools' own scratch goes to
build/python, away from CMake's build/lib.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REPO = Path(__file__).resolve().parent


def cmake_build_dir() -> Path:
    return Path(os.environ.get("SCALY_BUILD_DIR") or REPO / "build").resolve()


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        for tool in ("cmake", "ninja"):
            if shutil.which(tool) is None:
                sys.exit(f"scaly: building needs {tool}; run scripts/setup.sh first (it installs "
                         "the Debian packages Scaly needs)")
        build = cmake_build_dir()
        if not (build / "build.ninja").exists():
            subprocess.run(["cmake", "-S", str(REPO), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release", "-DPython_EXECUTABLE=/usr/bin/python3"],
                           check=True)
        subprocess.run(["cmake", "--build", str(build)], check=True)
        # The folder the package is assembled in (build/python/lib.*, or the source tree for
        # an editable install): scaly/_scaly*.so lands where setuptools expects the extension.
        package_root = Path(self.get_ext_fullpath(ext.name)).resolve().parent.parent
        subprocess.run(["cmake", "--install", str(build), "--component", "python",
                        "--prefix", str(package_root)], check=True)


SCRATCH = REPO / "build" / "python"
SCRATCH.mkdir(parents=True, exist_ok=True)

setup(
    ext_modules=[Extension("scaly._scaly", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SCRATCH)}, "egg_info": {"egg_base": str(SCRATCH)}},
)
