"""`tvm.runtime`: tensors (`tvm.runtime.tensor`, TVM 0.27's spelling), devices, loading."""

import abc
from typing import Any

from ..vm.device import Device, cpu, cuda, device
from ..vm.executable import load_executable as load_module
from ..vm.ndarray import NDArray, array, empty, from_dlpack
from ..vm.executable import Executable
from ..vm.params import (
    load_param_dict, load_param_dict_from_file, save_param_dict, save_param_dict_to_file,
)

from ..vm.datatype import DataType, DataTypeCode  # noqa: E402
from .script_printer import Scriptable  # noqa: E402

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


class Module(abc.ABC):  # noqa: B024 (TVM's runtime.Module: what tvm.build / compile return)
    """A built module: `tvm.build`'s kernel module and the VM's executable both are."""


def _register_modules() -> None:
    from ..vm.kernel_module import KernelModule

    Module.register(KernelModule)
    Module.register(Executable)


_register_modules()


def const(value: Any, dtype: Any = None, span: Any = None) -> Any:
    """A TIR constant: int32 / float32 / bool by default, as in TVM."""
    from ..tir.expr import const as tir_const

    return tir_const(value, None if dtype is None else str(dtype))


def convert(value: Any) -> Any:
    """Python values as the IR holds them: lists (and tuples) become tuples, recursively."""
    if isinstance(value, (list, tuple)):
        return tuple(convert(v) for v in value)
    if isinstance(value, dict):
        return {k: convert(v) for k, v in value.items()}
    return value


def device_from_target(target: Any, index: Any = None) -> Device:
    """The device that code built for `target` runs on (its `index`-th, default 0)."""
    kind = str(getattr(target, "kind", target)).split()[0].lower()
    return device(kind if kind in ("cuda", "gpu") else "cpu", int(index or 0))


__all__ = ["DataType", "DataTypeCode", "Module", "Scriptable", "const", "convert",
           "device_from_target"]
__all__ += ["Device", "Executable", "NDArray", "ShapeTuple", "Tensor", "array", "cpu", "cuda",
           "device", "empty", "enabled", "from_dlpack", "load_module", "load_param_dict",
           "load_param_dict_from_file", "num_threads", "save_param_dict",
           "save_param_dict_to_file", "tensor"]
