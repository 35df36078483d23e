"""`tvm.relax.frontend.nn.core` (frontend/nn/core.py)."""

from ....frontend.nn.core import *  # noqa: F401,F403
