"""`tvm.s_tir.schedule.transform`: schedule transformations built from primitives (tiling a
block for a tensor intrinsic; tir/schedule/tensorize_mapping.py)."""

from ...tir.schedule.tensorize_mapping import tile_with_tensor_intrin  # noqa: F401

__all__ = ["tile_with_tensor_intrin"]
