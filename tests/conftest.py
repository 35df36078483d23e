"""Test-suite settings: hypothesis runs derandomized (the same examples every run) so CI is
reproducible; `HYPOTHESIS_PROFILE=explore` searches fresh examples, for hunting bugs locally."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
