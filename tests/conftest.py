"""Test-suite settings.

- Every parsed module and every pass result is checked for well-formedness (TVMLITE_VERIFY),
  so a pass that breaks the IR fails where it broke it.
- hypothesis runs derandomized (the same examples every run) so CI is reproducible;
  `HYPOTHESIS_PROFILE=explore` searches fresh examples, for hunting bugs locally.
"""

import os

os.environ.setdefault("TVMLITE_VERIFY", "1")

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
