"""`tvm.relax.frontend.nn.op` (frontend/nn/op.py)."""

from ....frontend.nn.op import *  # noqa: F401,F403
