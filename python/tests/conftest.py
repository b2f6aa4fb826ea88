import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture
def workdir(tmp_path):
    return str(tmp_path)
