"""`tvm.relax.training`: training with relax functions (the Gradient pass's companions)."""

from . import utils  # noqa: F401
from .utils import register_te_gradient  # noqa: F401
