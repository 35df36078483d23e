"""Test-suite settings.

- Every parsed module and every pass result is checked for well-formedness (TVMLITE_VERIFY),
  so a pass that breaks the IR fails where it broke it.
- hypothesis runs derandomized (the same examples every run) so CI is reproducible;
  `HYPOTHESIS_PROFILE=explore` searches fresh examples, for hunting bugs locally.
- The kernel cache (tir/kernel_cache.py) lives in a fresh temporary directory for the session,
  never in the user's home; it stays on, so the suite runs kernels loaded from the cache too.
"""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

os.environ.setdefault("TVMLITE_VERIFY", "1")
os.environ["TVMLITE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tvmlite-test-cache-")
atexit.register(shutil.rmtree, os.environ["TVMLITE_CACHE_DIR"], ignore_errors=True)

settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
