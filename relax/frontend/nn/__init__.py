"""`tvm.relax.frontend.nn` (frontend/nn/): the names, re-exported."""

from ....frontend.nn import *  # noqa: F401,F403
from ....frontend.nn import __all__  # noqa: F401
