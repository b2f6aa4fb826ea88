import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


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
