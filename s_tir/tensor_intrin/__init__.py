"""`tvm.s_tir.tensor_intrin`: where TVM registers its hardware tensor intrinsics on import
(CUDA WMMA/MMA, x86 VNNI, ARM dot products, ...). tvmlite registers none of those yet: the
package is importable, as TVM code imports it for its side effect, and user intrinsics are
registered with `tvm.s_tir.TensorIntrin.register` (tir/schedule/tensorize.py)."""

from ...tir.schedule.tensorize import TensorIntrin  # noqa: F401

__all__ = ["TensorIntrin"]
