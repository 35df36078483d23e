"""`tvm.relax.frontend.torch.exported_program` (frontend/torch/exported_program.py)."""

from ....frontend.torch.exported_program import *  # noqa: F401,F403
