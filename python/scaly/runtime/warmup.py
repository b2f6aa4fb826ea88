"""The background warm-up of the in-process compiler and the JIT.

The first compile in a process spends about half its time resolving library
symbols and building the target machine, and the first render builds the MLIR
context. The compiler module (scaly._scaly, loaded by the first trace) starts
a C++ thread for both as soon as it is loaded, so the work overlaps the
user's tracing instead of delaying the first numerical call.

Off with SCALY_JIT_WARMUP=0, and when SCALY_CC selects an external compiler.
A fork waits for the thread first, so a child never inherits a half-built
compiler; so does interpreter exit (the compiler module registers that wait
itself when it loads, however it is imported).
"""

import os

# Flags that turn off vector gather and scatter instructions (slow on CPUs
# with the Downfall mitigation); used with Clang where it accepts them.
GATHER_OFF = ["-mno-gather", "-mno-scatter"]


def optimization():
    """The JIT's optimization flag: SCALY_CC_OPT, else -O2."""
    return os.environ.get("SCALY_CC_OPT", "-O2")


def x86():
    """Whether this is an x86-64 machine."""
    return os.uname().machine in ("x86_64", "amd64")

