"""Numerical calls: the JIT, the on-disk cache and the in-memory tables."""

from . import warmup  # noqa: F401
from .jit import (CACHE_VERSION, CacheError, CompileError, cache_root, call_numeric,
                  compile_function, counters, recompile_function)

__all__ = ["CACHE_VERSION", "CacheError", "CompileError", "cache_root", "call_numeric",
           "compile_function", "counters", "recompile_function"]
