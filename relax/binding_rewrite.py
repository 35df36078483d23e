"""`tvm.relax.binding_rewrite`: DataflowBlockRewrite (transforms/binding_rewrite.py)."""

from ..transforms.binding_rewrite import DataflowBlockRewrite

__all__ = ["DataflowBlockRewrite"]
