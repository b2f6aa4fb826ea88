"""Warm the in-process compiler and the JIT in a background thread.

The first compile in a process spends about half its time resolving library
symbols and building the target machine, and the first render builds the MLIR
context. `import scaly` starts this thread as soon as the compiled core is
loaded, so that work overlaps the rest of the import (NumPy's included) and
the user's tracing instead of delaying the first numerical call.

Off with SCALY_JIT_WARMUP=0, and when SCALY_CC selects an external compiler.
A fork waits for the thread first, so a child never inherits a half-built
compiler; so does interpreter exit.
"""

import os
import threading

from .. import _scaly

# Flags that turn off vector gather and scatter instructions (slow on CPUs
# with the Downfall mitigation); used with Clang where it accepts them.
GATHER_OFF = ["-mno-gather", "-mno-scatter"]

_thread = None


def optimization():
    """The JIT's optimization flag: SCALY_CC_OPT, else -O2."""
    return os.environ.get("SCALY_CC_OPT", "-O2")


def x86():
    """Whether this is an x86-64 machine."""
    return os.uname().machine in ("x86_64", "amd64")


def start():
    """Start the warm-up thread once per process (see the module docstring)."""
    global _thread
    if _thread is not None or os.environ.get("SCALY_JIT_WARMUP", "1") == "0" \
            or os.environ.get("SCALY_CC"):
        return
    flags = [optimization(), "-march=native", "-fno-math-errno", *(GATHER_OFF if x86() else []),
             "-fPIC"]
    _thread = threading.Thread(target=_scaly.jit_warmup, args=(flags,), daemon=True,
                               name="scaly-jit-warmup")
    _thread.start()
    os.register_at_fork(before=_thread.join)
    import atexit
    atexit.register(_thread.join)


start()
