"""`tvm.runtime`: tensors (`tvm.runtime.tensor`, TVM 0.27's spelling), devices, loading."""

from typing import Any

from ..vm.device import Device, cpu, cuda, device
from ..vm.executable import load_executable as load_module
from ..vm.ndarray import NDArray, array, empty, from_dlpack
from ..vm.executable import Executable
from ..vm.params import (
    load_param_dict, load_param_dict_from_file, save_param_dict, save_param_dict_to_file,
)

Tensor = NDArray
tensor = array


class ShapeTuple(tuple):
    """`tvm.runtime.ShapeTuple([n, m])`: a shape passed to a function's `R.Shape` parameter."""

    def __new__(cls, shape: Any) -> "ShapeTuple":
        return super().__new__(cls, (int(d) for d in shape))


def num_threads() -> int:
    """How many threads `parallel` loops of compiled kernels run on (TVM_NUM_THREADS, ...)."""
    from ..vm.parallel_runtime import num_threads as threads  # NOTE: loads LLVM; on demand

    return threads()


def enabled(target: Any) -> bool:
    """Whether this tvmlite can run code built for `target` here (llvm always; cuda with CuPy
    and a GPU)."""
    kind = str(getattr(target, "kind", target)).split()[0].lower()
    return kind in ("llvm", "cpu", "c") or (kind in ("cuda", "gpu") and cuda().exist)


__all__ = ["Device", "Executable", "NDArray", "ShapeTuple", "Tensor", "array", "cpu", "cuda",
           "device", "empty", "enabled", "from_dlpack", "load_module", "load_param_dict",
           "load_param_dict_from_file", "num_threads", "save_param_dict",
           "save_param_dict_to_file", "tensor"]
