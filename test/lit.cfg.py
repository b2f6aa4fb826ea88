# lit configuration for Scaly's MLIR and C emission tests.
import os

import lit.formats

config.name = "Scaly"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.join(config.scaly_src_dir, "test")
config.test_exec_root = os.path.join(os.path.dirname(config.scaly_tools_dir), "test")
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "CMakeLists.txt"]
config.environment["PATH"] = os.pathsep.join(
    [config.scaly_tools_dir, config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])
config.substitutions.append(("%python", config.python))
