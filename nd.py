"""`tvm.nd`: NDArray construction (`tvm.nd.array(np_array, device)`)."""

from .vm.ndarray import NDArray, array, empty

__all__ = ["NDArray", "array", "empty"]
