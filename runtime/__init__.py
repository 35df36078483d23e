"""`tvm.runtime`: tensors (`tvm.runtime.tensor`, TVM 0.27's spelling), devices, loading."""

from typing import Any

from ..vm.device import Device, cpu, cuda, device
from ..vm.executable import load_executable as load_module
from ..vm.ndarray import NDArray, array, empty, from_dlpack

Tensor = NDArray
tensor = array


class ShapeTuple(tuple):
    """`tvm.runtime.ShapeTuple([n, m])`: a shape passed to a function's `R.Shape` parameter."""

    def __new__(cls, shape: Any) -> "ShapeTuple":
        return super().__new__(cls, (int(d) for d in shape))

__all__ = ["Device", "NDArray", "ShapeTuple", "Tensor", "array", "cpu", "cuda", "device", "empty",
           "from_dlpack", "load_module", "tensor"]
