"""`tvm.transform` / `tvm.ir.transform`: the pass infrastructure."""

from .transforms.pass_infra import Pass, PassContext, Sequential, module_pass

__all__ = ["Pass", "PassContext", "Sequential", "module_pass"]
