"""`tvm.nd`: NDArray construction (`tvm.nd.array(np_array, device)`)."""

from .vm.ndarray import NDArray, array, empty, from_dlpack

__all__ = ["NDArray", "array", "empty", "from_dlpack"]
