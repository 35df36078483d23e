"""`tvm.relax.transform.transform` (TVM's file of that name): the same passes as the package."""

from . import *  # noqa: F401,F403
from . import __all__  # noqa: F401
