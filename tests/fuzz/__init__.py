"""Differential fuzzing of staged functions against eager Python + NumPy."""

import atexit
import os
import shutil
import tempfile


def _private_hypothesis_home():
    """Hypothesis caches things under ./.hypothesis; keep them out of the working tree (unless
    HYPOTHESIS_STORAGE_DIRECTORY says where they go)."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        return
    try:
        from hypothesis.configuration import set_hypothesis_home_dir
    except ImportError:  # hypothesis is a test dependency; without it the tests are skipped
        return
    home = tempfile.mkdtemp(prefix="hypothesis_home_")
    atexit.register(shutil.rmtree, home, True)
    set_hypothesis_home_dir(home)


_private_hypothesis_home()
