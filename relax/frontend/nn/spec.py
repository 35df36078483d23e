"""`tvm.relax.frontend.nn.spec` (frontend/nn/spec.py)."""

from ....frontend.nn.spec import *  # noqa: F401,F403
