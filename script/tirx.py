"""`tvm.script.tirx` (TVM 0.27's name for `tvm.script.tir`): the same `T` namespace.

Every name is the very object `script.tir` defines, so `T.Buffer` from either path is one
marker to the parser.
"""

from .tir import *  # noqa: F401,F403
from .tir import __all__  # noqa: F401
