"""`tvm.relax.training`: training with relax functions (the Gradient pass's companions)."""

from . import loss, optimizer, setup_trainer, trainer, utils  # noqa: F401
from .setup_trainer import SetupTrainer  # noqa: F401
from .trainer import Trainer  # noqa: F401
from .utils import AppendLoss, register_te_gradient  # noqa: F401
