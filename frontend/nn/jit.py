"""`Module.jit`: export, build and load a model in one call, as TVM's `nn.Module.jit` does.

    model = MyModel().jit(spec={"forward": {"x": nn.spec.Tensor((10, 5), "float32")}})
    y = model["forward"](torch_tensor)        # torch in, torch out

The returned `TorchModule` converts each input by its spec (tensors through numpy, ints to
shapes, tuples and lists item by item), appends the effect state (debug=True) and the
module's bound weights, runs the VM, and converts the results back. torch is imported only
here, when a jitted method is called with `out_format="torch"`.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from . import spec as _spec


class TorchModule:
    """The compiled methods of a module; `mod["forward"](*torch_tensors)`."""

    def __init__(self, spec: dict[str, Any], vm: Any, weights: list[Any], effects: bool
                 ) -> None:
        self._spec, self._vm, self._weights = spec, vm, weights
        self._state = list(vm["_initialize_effect"]()) if effects else []

    def __getitem__(self, method: str) -> Callable[..., Any]:
        if method not in self._spec:
            raise KeyError(f"jit: no method {method!r}; compiled: {sorted(self._spec)}")
        arg_specs = [_spec._as_arg_spec(f"jit {method}", s)
                     for s in self._spec[method].values()]
        func = self._vm[method]

        def call(*args: Any) -> Any:
            if len(args) != len(arg_specs):
                raise TypeError(f"jit {method}: takes {len(arg_specs)} inputs, got {len(args)}")
            inputs = [_to_vm(a, s) for a, s in zip(args, arg_specs)]
            out = func(*inputs, *self._state, *self._weights)
            if self._state:
                out, state = out
                self._state = list(state)
            return _to_torch(out)
        return call


def jit(module: Any, spec: dict[str, Any], device: str = "cpu", pipeline: Any = "default_build",
        out_format: str = "torch", debug: bool = False) -> TorchModule:
    import tvmlite as tvm
    from ...vm.vm import VirtualMachine

    if out_format != "torch":
        raise ValueError(f"Module.jit: out_format {out_format!r} is not supported; tvmlite "
                         "returns a TorchModule (out_format='torch')")
    if str(device) not in ("cpu", "llvm"):
        raise ValueError(f"Module.jit: device {device!r}: tvmlite's jit runs on the cpu")
    spec = {name: dict(inputs) for name, inputs in spec.items()}
    mod, params = module.export_tvm(spec, debug=debug)
    unbound = [name for name, p in params if p.data is None]
    if unbound:
        raise ValueError(f"Module.jit: parameters {unbound} have no data; set .data or "
                         f"load_state_dict first")
    ex = tvm.compile(mod, target="llvm", relax_pipeline=pipeline)
    effects = any(gv.name_hint == "_initialize_effect" for gv in mod.functions)
    return TorchModule(spec, VirtualMachine(ex, tvm.cpu()), [p.data for _, p in params], effects)


def _to_vm(value: Any, arg_spec: Any) -> Any:
    from ...runtime import ShapeTuple
    from ...vm.ndarray import array

    if isinstance(arg_spec, _spec.Int):
        return ShapeTuple([int(value)])
    if isinstance(arg_spec, (tuple, list)):
        return tuple(_to_vm(v, s) for v, s in zip(value, arg_spec))
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    return array(np.ascontiguousarray(value))


def _to_torch(value: Any) -> Any:
    import torch

    if isinstance(value, (tuple, list)):
        return tuple(_to_torch(v) for v in value)
    if hasattr(value, "numpy"):
        return torch.from_numpy(np.array(value.numpy()))
    return value
