"""`relax.BasePyModule`: an IRModule whose prim_funcs and Relax functions are compiled and
callable from Python, beside plain Python functions (`@I.pyfunc`) that may call them
(`self.call_tir(...)`, `self.call_dps_packed(...)`) and that Relax code may call back
(`R.call_py_func("name", ...)`).

Tensors cross in both directions: arguments may be torch tensors, numpy arrays or our
NDArrays; results come back as torch tensors when torch is installed (through DLPack, no
copy), as NDArrays otherwise. torch is never required.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

import numpy as np

from ..ir.expr import ExternFunc, Function
from ..ir.module import IRModule
from ..tir.expr import IntImm
from ..tir.function import PrimFunc
from ..vm.device import Device, cpu
from ..vm.ndarray import NDArray, from_dlpack
from ..vm.ndarray import array as _ndarray
from ..vm.registry import get_global_func


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def from_torch(value: Any) -> Any:
    """A torch tensor as an NDArray sharing its memory (DLPack); anything else as it is."""
    torch = _torch()
    if torch is not None and isinstance(value, torch.Tensor):
        return from_dlpack(value.detach().contiguous())
    return value


def to_torch(value: Any) -> Any:
    """An NDArray as a torch tensor sharing its memory, when torch is installed; anything else
    as it is."""
    torch = _torch()
    if torch is not None and isinstance(value, NDArray):
        return torch.from_dlpack(value)
    return value


class BasePyModule:
    """An IRModule made callable: its prim_funcs and Relax functions compiled for `target`
    (the device's default when None), its Python functions bound to this instance."""

    def __init__(self, ir_mod: IRModule, device: Device | None = None,
                 target: Any = None) -> None:
        self.ir_mod = ir_mod
        self.device = device if device is not None else cpu(0)
        self.target = target if target is not None else _default_target(self.device)
        self.functions = ir_mod.functions
        self.attrs = ir_mod.attrs
        self.global_infos = ir_mod.global_infos
        self.pyfuncs: dict[str, Callable[..., Any]] = {}
        self.extern_funcs: dict[str, Callable[..., Any]] = {}
        self.compiled_tir_funcs: dict[str, Any] = {}
        self.tir_func_names = [gv.name_hint for gv, f in ir_mod.functions.items()
                               if isinstance(f, PrimFunc)]
        self.relax_func_names = [gv.name_hint for gv, f in ir_mod.functions.items()
                                 if isinstance(f, Function)]
        self.relax_vm: Any = None
        self._compile()
        for name, func in getattr(ir_mod, "pyfuncs", {}).items():
            self.add_python_function(name, func)

    # -- compiling and calling -----------------------------------------------------------------

    def _compile(self) -> None:
        from .. import compile as tvm_compile
        from ..vm.vm import VirtualMachine

        prims = {gv: f for gv, f in self.ir_mod.functions.items() if isinstance(f, PrimFunc)}
        if prims:
            kernels = tvm_compile(IRModule(prims), target=self.target)
            self.compiled_tir_funcs = {name: kernels[name] for name in self.tir_func_names}
        if self.relax_func_names:
            graph = IRModule({gv: f for gv, f in self.ir_mod.functions.items()
                              if not isinstance(f, ExternFunc)}, self.ir_mod.attrs,
                             self.ir_mod.global_infos)
            self.relax_vm = VirtualMachine(tvm_compile(graph, target=self.target), self.device)

    def __getattr__(self, name: str) -> Any:
        # called only for names not set on the instance: the module's functions by name,
        # then the IRModule's own attributes (script, get_global_var, ...)
        if name.startswith("__") or name in ("ir_mod", "pyfuncs", "compiled_tir_funcs"):
            raise AttributeError(name)
        if name in self.pyfuncs:
            return self.pyfuncs[name]
        if name in self.compiled_tir_funcs:
            return self.compiled_tir_funcs[name]
        if name in self.relax_func_names:
            return self._relax_function(name)
        return getattr(self.ir_mod, name)

    def _relax_function(self, name: str) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            result = self.relax_vm[name](*(self._to_tvm(a) for a in args))
            return self._from_tvm(result)

        call.__name__ = name
        return call

    def call_tir(self, tir_func: Any, args: Any, out_ty: Any) -> Any:
        """Run the prim_func `tir_func` (its name, or the compiled kernel) in destination-
        passing style: outputs shaped by `out_ty` (struct info, or a tuple of ints; symbolic
        dims taken from the arguments) are allocated, written and returned."""
        name = self._tir_name(tir_func)
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        outs = self._outputs(out_ty, args)
        self.compiled_tir_funcs[name](*(self._to_tvm(a) for a in args), *outs)
        results = [self._from_tvm(o) for o in outs]
        return results[0] if len(results) == 1 else results

    def _tir_name(self, tir_func: Any) -> str:
        if isinstance(tir_func, str):
            name = tir_func
        else:
            found = [n for n, k in self.compiled_tir_funcs.items() if k is tir_func]
            name = found[0] if found else getattr(tir_func, "__name__", None) or \
                getattr(tir_func, "name", "")
        if name not in self.compiled_tir_funcs:
            raise ValueError(f"Could not resolve or find compiled TIR function: {tir_func!r}. "
                             f"Available functions: {list(self.compiled_tir_funcs)}")
        return name

    def call_dps_packed(self, func_name: str, args: Any, out_ty: Any) -> Any:
        """Call a method of this module by name, or else the registered global function
        `func_name` in destination-passing style (outputs allocated from `out_ty`)."""
        method = self.pyfuncs.get(func_name)
        if method is not None:
            return getattr(self, func_name)(*args)
        if func_name not in self.extern_funcs:
            func = get_global_func(func_name, allow_missing=True)
            if func is None:
                raise ValueError(f"Function '{func_name}' not found as a global function. "
                                 f"Please implement it as a method or register it.")
            self.extern_funcs[func_name] = func
        args = list(args) if isinstance(args, (list, tuple)) else [args]
        outs = self._outputs(out_ty, args)
        self.extern_funcs[func_name](*(self._to_tvm(a) for a in args), *outs)
        results = [self._from_tvm(o) for o in outs]
        return results[0] if len(results) == 1 else results

    def call_py_func(self, func_name: str, args: Any) -> Any:
        """Call the module's Python function `func_name` on `args`."""
        if func_name not in self.pyfuncs:
            raise ValueError(f"Python function '{func_name}' not found in module pyfuncs")
        return getattr(self, func_name)(*args)

    def add_python_function(self, name: str, func: Callable[..., Any]) -> None:
        """Bind `func` to this instance (as a method when its first parameter is `self`) and
        register it for `R.call_py_func(name, ...)` from the module's Relax code."""
        self.pyfuncs[name] = func
        params = list(inspect.signature(func).parameters)
        bound = functools.partial(func, self) if params[:1] == ["self"] else func
        setattr(self, name, functools.wraps(func)(lambda *a, **k: bound(*a, **k)))

        def from_vm(*args: Any) -> Any:  # what R.call_py_func runs: torch in, NDArray out
            result = bound(*(self._from_tvm(a) for a in args))
            return self._to_tvm(result)

        get_global_func("vm.builtin.register_py_func")(name, from_vm)

    def get_function(self, name: str) -> Any:
        """The compiled function `name` (a kernel, a wrapped Relax function, an extern)."""
        if name in self.compiled_tir_funcs:
            return self.compiled_tir_funcs[name]
        if name in self.extern_funcs:
            return self.extern_funcs[name]
        if name in self.relax_func_names:
            return self._relax_function(name)
        return None

    def list_functions(self) -> dict[str, list[str]]:
        return {"tirx": list(self.tir_func_names), "relax": list(self.relax_func_names),
                "extern": list(self.extern_funcs)}

    # -- tensors across the boundary ------------------------------------------------------------

    def _to_tvm(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [self._to_tvm(v) for v in value]
        value = from_torch(value)
        if isinstance(value, NDArray):
            return value
        if isinstance(value, np.ndarray):
            return _ndarray(value, self.device)
        try:
            return _ndarray(np.asarray(value, dtype="float32"), self.device)
        except (TypeError, ValueError) as err:
            raise TypeError(f"Unsupported type for conversion to a tensor: "
                            f"{type(value).__name__}") from err

    def _from_tvm(self, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [self._from_tvm(v) for v in value]
        return to_torch(value)

    def _outputs(self, out_ty: Any, args: list[Any]) -> list[NDArray]:
        types = out_ty if isinstance(out_ty, list) else [out_ty]
        outs = []
        for ty in types:
            if isinstance(ty, (tuple, list)) and all(isinstance(d, (int, np.integer)) for d in ty):
                shape, dtype = [int(d) for d in ty], "float32"
            elif hasattr(ty, "shape") and hasattr(ty, "dtype"):
                shape = self._infer_concrete_shape_from_args(ty.shape, args)
                dtype = str(ty.dtype) or "float32"
            else:
                shape, dtype = [1], "float32"
            outs.append(_ndarray(np.zeros(shape, dtype), self.device))
        return outs

    def _infer_concrete_shape_from_args(self, shape: Any, in_args: Any) -> list[int]:
        """`shape` with each symbolic dim read off the first argument of the same rank."""
        dims = [int(d) if isinstance(d, (int, np.integer)) else
                int(d.value) if isinstance(d, IntImm) else None for d in shape]
        if all(d is not None for d in dims):
            return dims  # type: ignore[return-value]
        args = in_args if isinstance(in_args, (list, tuple)) else [in_args]
        for arg in args or ():
            arg_shape = tuple(getattr(arg, "shape", None) or ())
            if len(arg_shape) == len(dims):
                return [int(a) if d is None else d for d, a in zip(dims, arg_shape)]
        raise ValueError("Cannot infer concrete output shape from symbolic shape and inputs. "
                         "Please provide a concrete `out_ty` (e.g., a tuple/list of ints) or "
                         "ensure input tensors carry shapes that determine output extents.")

    # -- printing -------------------------------------------------------------------------------

    def script(self, **kwargs: Any) -> str:
        """The module's TVMScript; each `@I.pyfunc` appears as its Python source."""
        return self.ir_mod.script(**kwargs)

    def show(self, style: str | None = None, black_format: bool | None = None,
             **kwargs: Any) -> None:
        """Print `script()` highlighted (`black_format` is accepted; the text is ours)."""
        from ..script.highlight import cprint

        cprint(self.script(**kwargs), style=style)


def _default_target(device: Device) -> str:
    return "cuda" if getattr(device, "device_type", 1) == 2 else "llvm"


class ModuleFactory:
    """What `@I.ir_module` makes of a class deriving from BasePyModule: the parsed module
    (its attributes are the IRModule's), called with a device to give a BasePyModule."""

    def __init__(self, ir_module: IRModule, pyfunc_methods: list[str], original: type) -> None:
        self.ir_module = ir_module
        self.pyfunc_methods = pyfunc_methods
        self.original_class = original
        self.__name__ = original.__name__

    def __call__(self, device: Device | None = None, target: Any = None) -> BasePyModule:
        return BasePyModule(self.ir_module, device, target)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.ir_module, name)
