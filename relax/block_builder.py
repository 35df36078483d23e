"""`tvm.relax.block_builder`: the BlockBuilder that emits relax bindings from Python."""

from ..transforms.block_builder import BlockBuilder

__all__ = ["BlockBuilder"]
