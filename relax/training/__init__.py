"""`tvm.relax.training`: training with relax functions (the Gradient pass's companions)."""

from . import loss, optimizer, utils  # noqa: F401
from .utils import AppendLoss, register_te_gradient  # noqa: F401
