"""`tvm.relax.frontend.nn.visitor` (frontend/nn/visitor.py)."""

from ....frontend.nn.visitor import *  # noqa: F401,F403
from ....frontend.nn.visitor import Mutator  # noqa: F401
