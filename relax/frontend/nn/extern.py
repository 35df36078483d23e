"""`tvm.relax.frontend.nn.extern` (frontend/nn/extern.py)."""

from ....frontend.nn.extern import *  # noqa: F401,F403
