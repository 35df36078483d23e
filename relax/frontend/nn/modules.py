"""`tvm.relax.frontend.nn.modules` (frontend/nn/modules.py)."""

from ....frontend.nn.modules import *  # noqa: F401,F403
