import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# Renders verify the module after every pass of the lowering pipeline, not
# only after it (docs/jit.md, SCALY_VERIFY_EACH): a pass that breaks the IR
# fails its test by name.
os.environ.setdefault("SCALY_VERIFY_EACH", "1")


@pytest.fixture
def workdir(tmp_path):
    return str(tmp_path)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private JIT cache (and the in-process compiler): tests never touch the user's cache."""
    root = tmp_path / "cache"
    monkeypatch.setenv("SCALY_CACHE_DIR", str(root))
    monkeypatch.delenv("SCALY_CC", raising=False)
    monkeypatch.delenv("SCALY_CC_OPT", raising=False)
    return root


@pytest.fixture(scope="session", autouse=True)
def scaly_files_settled():
    """Wait until Scaly's own files are more than two seconds old.

    The JIT does not trust its index while Scaly's code changed less than
    two seconds ago (the files may not be the code that runs); right after
    a build, tests that expect index hits would otherwise see renders.
    """
    import time

    import scaly
    from scaly.runtime import jit

    newest = max(os.stat(p).st_mtime for p in jit._scaly_files())
    delay = newest + 2.2 - time.time()
    if delay > 0:
        time.sleep(delay)
    assert scaly.__version__
