"""VirtualMachine: `relax.VirtualMachine(ex, tvm.cpu())`, `vm["main"](*inputs)`.

Per function it picks the fastest path that applies: the native fast path (fastpath.py) for
static regions and those whose only unknowns are symbolic dims, else prebuilt closures
(closures.py) for branch-free code, else the reference interpreter. `mode="interpreter"`
(or env `TVMLITE_VM_MODE=interpreter`) forces the reference; `mode="closure"` skips the
native path. Unlike TVM's VM, one VirtualMachine may be called from several threads at once:
a native host that runs holding the GIL keeps one arena per VM (it runs alone), one that
releases the GIL uses the VM's arena under a non-blocking lock, or an arena from a pool when
another call holds it (fastpath.py); the closure and interpreter paths keep registers per call.
"""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Sequence

import numpy as np

from . import (  # noqa: F401 (registers relax.run.*, the KV cache, relax.inspect.*)
    bounds_runtime, debug_builtins, inspect_builtins, interpreter, kv_cache_builtins,
    py_func_builtins,
)
from . import set_builtins  # noqa: F401 (registers relax.run.nonzero, unique, ...)
from . import vision_builtins  # noqa: F401 (relax.run.vision.get_valid_counts)
from . import shape_builtins  # noqa: F401 (vm.builtin.match_shape, make_shape, ...)
from . import ndarray_view, tensor_cache  # noqa: F401 (vm.builtin.tensor_cache.*, param_array_from_cache)
from .closures import compile_closures
from .device import Device, cpu, intern
from .executable import Executable, VMFunction
from .fastpath import compile_static
from .kernel_module import ArgumentCountError, ProfileResult, time_evaluator
from .kernel_signature import shape_text
from .ndarray import NDArray

MODES = ("auto", "closure", "interpreter")


class VMFunctionError(ArgumentCountError):
    """A bad call of a VM function (a ValueError, and a RuntimeError as TVM raises)."""


def _describe(name: str, sinfo: tuple[Any, ...]) -> str:
    if sinfo and sinfo[0] == "tensor":
        shape = "?" if sinfo[1] is None else shape_text(sinfo[1])
        return f"{name}: R.Tensor({shape}, {sinfo[2] or '?'!r})"
    return name


class VirtualMachine:
    """Runs an Executable's functions on a device."""

    def __init__(self, ex: Executable, device: Device | Sequence[Device] | None = None,
                 mode: str | None = None, memory_cfg: Any = None) -> None:
        if isinstance(device, (list, tuple)):
            device = device[0]  # TVM accepts [dev] (and [dev, host]); we run on the first
        self.device = intern(device) if device is not None else cpu()
        self.mode = mode or os.environ.get("TVMLITE_VM_MODE", "auto")
        if self.mode not in MODES:
            raise ValueError(f"VirtualMachine mode must be one of {MODES}, got {self.mode!r}")
        if self.device.device_type != 1 or getattr(ex.kernels, "device_type", 1) != 1:
            from .cuda import prepare_vm  # issue 7 hook: constants to the GPU, no native path

            ex, self.mode = prepare_vm(ex, self.device, self.mode)
        self.executable = ex
        self._callables: dict[str, Callable[..., Any]] = {}
        self._build_lock = threading.RLock()  # NOTE: reentrant: building may look up callees
        self._table = interpreter.resolve_func_table(ex, self.device, self._late_vm_call)
        self._plain_table, self._plain_mode = self._table, self.mode
        self._inputs: dict[str, tuple[Any, ...]] = {}
        self._saved: dict[str, Callable[[], Any]] = {}  # save_function's closures
        self._outputs: dict[str, Any] = {}

    def _late_vm_call(self, name: str) -> Callable[..., Any]:
        return lambda *args: self[name](*args)

    def __getitem__(self, name: str) -> Callable[..., Any]:
        f = self._callables.get(name)
        if f is None and name in self._saved:
            return self._saved[name]
        if f is None:
            fn = self.executable.functions.get(name)
            if fn is None:
                raise AttributeError(f"VM has no function {name!r}; it has "
                                     f"{sorted(self.executable.functions)}")
            with self._build_lock:  # threads' first calls build it once
                f = self._callables.get(name)
                if f is None:
                    f = self._callables[name] = self._build(fn)
        return f

    get_function = __getitem__

    def _build(self, fn: VMFunction) -> Callable[..., Any]:
        table, consts = self._table, self.executable.constants

        def reference(args: tuple[Any, ...]) -> Any:
            return interpreter.run(fn, args, table, consts)

        run = reference
        if self.mode != "interpreter":
            run = compile_closures(self.executable, fn, table) or reference
        prepare = self._preparer(fn)

        def checked(*args: Any) -> Any:
            return run(prepare(args))

        checked.executable = self.executable  # type: ignore[attr-defined]  # keeps kernels alive
        checked.fast_path = None  # type: ignore[attr-defined]  # native: "static" / "symbolic"
        if self.mode != "auto":
            return checked
        fast: Callable[..., Any] | None = None

        def slow(args: tuple[Any, ...]) -> Any:
            prepared = prepare(args)
            if fast is not None and any(p is not a for p, a in zip(prepared, args)):
                return fast(*prepared)  # numpy inputs, now wrapped: back on the fast path
            return run(prepared)  # raises the precise error, or computes the answer

        fast = compile_static(self.executable, fn, self.device, slow)
        if fast is not None and self.executable.kernels.mentions(bounds_runtime.SYMBOL):
            fast = bounds_runtime.checked(fast)  # a failed run-time bounds check raises after it
        return fast or checked

    def _preparer(self, fn: VMFunction) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
        n, dev = len(fn.params), self.device
        doc = ", ".join(_describe(p, s) for p, s in zip(fn.params, fn.param_sinfo))

        def prepare(args: tuple[Any, ...]) -> tuple[Any, ...]:
            if len(args) != n:
                raise VMFunctionError(f"{fn.name}({doc}) takes {n} argument"
                                      f"{'s' if n != 1 else ''}, got {len(args)}")
            return tuple(NDArray(a, dev) if isinstance(a, np.ndarray) else a for a in args)

        return prepare

    def set_instrument(self, instrument: Callable[..., Any] | None) -> None:
        """Call `instrument(func, name, before_run, ret_value, *args)` around every call the
        VM's functions make (vm/instrument.py); functions then run on the interpreter, whose
        calls all go through the function table. None removes the instrument."""
        from .instrument import instrumented_table

        with self._build_lock:
            if instrument is None:
                self._table, self.mode = self._plain_table, self._plain_mode
            else:
                names = [e.name for e in self.executable.func_table]
                self._table = instrumented_table(self._plain_table, names, instrument)
                self.mode = "interpreter"
            self._callables.clear()

    def save_function(self, func_name: str, saved_name: str, *args: Any,
                      include_return: bool = True, **kwargs: Any) -> None:
        """TVM's closure over fixed arguments: afterwards `vm[saved_name]()` calls
        `vm[func_name](*args)` (returning None when `include_return` is False)."""
        if kwargs:  # named arguments go to the parameters of those names
            fn = self.executable.functions.get(func_name)
            names = list(getattr(fn, "params", ()))[len(args):]
            unknown = sorted(set(kwargs) - set(names))
            if unknown:
                raise TypeError(f"save_function: {func_name} has no parameters {unknown}")
            missing = [n for n in names if n not in kwargs]
            if missing:
                raise TypeError(f"save_function: {func_name} needs {missing} too")
            args = (*args, *(kwargs[n] for n in names))
        func = self[func_name]

        def saved() -> Any:
            out = func(*args)
            return out if include_return else None

        self._saved[saved_name] = saved

    @property
    def module(self) -> "VirtualMachine":
        """`vm.module.time_evaluator(...)`, as TVM tutorials of the MLC course's era write it."""
        return self

    def time_evaluator(self, func_name: str, dev: Device | None = None, number: int = 10,
                       repeat: int = 1, min_repeat_ms: float = 0, **_: Any
                       ) -> Callable[..., ProfileResult]:
        """TVM's `vm.time_evaluator("main", dev, number=, repeat=)(*args)`; with
        "invoke_stateful" it times `vm.invoke_stateful(name)` (inputs from set_input)."""
        target = self.invoke_stateful if func_name == "invoke_stateful" else self[func_name]
        return time_evaluator(target, number, repeat, min_repeat_ms)

    def set_input(self, func_name: str, *args: Any, **kwargs: Any) -> None:
        fn = self.executable.functions[func_name]
        missing = [p for p in fn.params[len(args):] if p not in kwargs]
        if missing:
            raise VMFunctionError(f"set_input({func_name!r}): missing inputs {missing}")
        self._inputs[func_name] = tuple(args) + tuple(kwargs[p] for p in fn.params[len(args):])

    def invoke_stateful(self, func_name: str) -> None:
        if func_name not in self._inputs:
            raise VMFunctionError(f"invoke_stateful({func_name!r}): call set_input first")
        self._outputs[func_name] = self[func_name](*self._inputs[func_name])

    def get_outputs(self, func_name: str) -> Any:
        if func_name not in self._outputs:
            raise ValueError(f"no outputs of {func_name!r} yet: call vm.invoke_stateful("
                             f"{func_name!r}) after vm.set_input first")
        return self._outputs[func_name]

    def __repr__(self) -> str:
        return f"VirtualMachine({sorted(self.executable.functions)}, {self.device})"
