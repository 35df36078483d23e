"""PyTorch frontend (`relax.frontend.torch`): import a `torch.export` program as an IRModule.

    exported = torch.export.export(model.eval(), example_args)
    mod = from_exported_program(exported, keep_params_as_input=True)
    mod, params = relax.frontend.detach_params(mod)

torch is imported only by the caller: these modules read the exported program's graph and
tensors and never import torch at module level.
"""

from .exported_program import UnsupportedOperatorError, from_exported_program

__all__ = ["from_exported_program", "UnsupportedOperatorError"]
