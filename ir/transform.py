"""`tvm.ir.transform`: the pass infrastructure under TVM's path (the passes live above ir/, in
transforms/; this facade is imported only by that path)."""

from ..transform import *  # noqa: F401,F403
from ..transform import __all__  # noqa: F401
