"""`tvm.runtime`: tensors (`tvm.runtime.tensor`, TVM 0.27's spelling), devices, loading."""

from .vm.device import Device, cpu, cuda, device
from .vm.executable import load_executable as load_module
from .vm.ndarray import NDArray, array, empty, from_dlpack

Tensor = NDArray
tensor = array

__all__ = ["Device", "NDArray", "Tensor", "array", "cpu", "cuda", "device", "empty",
           "from_dlpack", "load_module", "tensor"]
