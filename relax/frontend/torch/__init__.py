"""`tvm.relax.frontend.torch` (frontend/torch/): the names, re-exported."""

from ....frontend.torch import *  # noqa: F401,F403
from ....frontend.torch import __all__  # noqa: F401
