"""scaly.viz: recordings of what the compiler does to chosen functions.

Opt-in and exact-object: mark a Function with `visualize` (the same object as
`visualize_function`) or `capture`, and every later render of it, ahead of time
(`render_c_module`) or through the JIT, appends one recording: the expression
graph, the IR after every pass of the pipeline with its wall time, and the
generated C, saved one file per recording with a small index. Importing
scaly does not import this package; nothing is recorded for unmarked functions.
"""

from .recording import (capture, clear_recordings, load_index, load_recording, load_recordings,
                        recording_dir, recording_path, recordings, unvisualize_function,
                        visualize_function)
from .serve import serve

visualize = visualize_function

__all__ = ["visualize", "visualize_function", "unvisualize_function", "capture", "recordings",
           "load_recordings", "load_index", "load_recording", "clear_recordings", "recording_dir", "recording_path", "serve"]
