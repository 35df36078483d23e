"""`tvm.relax.testing.nn`: TVM's small layer API for building test graphs inside
`with bb.function(...)`: inputs (`Placeholder`), weights (`Parameter`), layers as `Module`s
whose `forward` emits into the current BlockBuilder, and `init_params` (zeros for every
parameter of `main` whose name does not start with "data")."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ... import topi
from ...ir import expr as rx
from ...ir import struct_info as si
from ...ir.ops.base import as_expr
from ...runtime import tensor
from ...tir.expr import IntImm
from ...transforms.block_builder import BlockBuilder


def _builder() -> BlockBuilder:
    bb = BlockBuilder.current()
    if bb is None:
        raise RuntimeError("relax.testing.nn emits into a BlockBuilder: call it inside "
                           "`with bb.function(...)`")
    return bb


def emit(expr: Any, name_hint: str = "") -> rx.Var:
    return _builder().emit(as_expr(expr), name_hint or None)


def emit_te(func: Callable[..., Any], *args: Any, **kwargs: Any) -> rx.Var:
    return _builder().emit_te(func, *args, **kwargs)


def _tensor_var(shape: Any, dtype: str, name: str) -> si.TensorStructInfo:
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"the shape of {name!r} must be a list or a tuple, got "
                        f"{type(shape).__name__}")
    return si.TensorStructInfo(tuple(shape), dtype)


class Placeholder(rx.Var):
    """An input of the function being built."""

    __slots__ = ()

    def __init__(self, shape: Any, dtype: str = "float32", name: str = "data") -> None:
        super().__init__(name, _tensor_var(shape, dtype, name))


class Parameter(rx.Var):
    """A weight of a Module; `Module.parameters()` collects them."""

    __slots__ = ()

    def __init__(self, shape: Any, dtype: str = "float32", name: str = "param") -> None:
        super().__init__(name, _tensor_var(shape, dtype, name))


class Module:
    """A layer: `forward` emits its computation; calling the module calls `forward`."""

    def parameters(self) -> list[Parameter]:
        return _parameters_in(self.__dict__)

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)


def _parameters_in(value: Any) -> list[Parameter]:
    if isinstance(value, Parameter):
        return [value]
    if isinstance(value, Module):
        return value.parameters()
    items = value.values() if isinstance(value, dict) else value if isinstance(
        value, (list, tuple)) else ()
    return [p for item in items for p in _parameters_in(item)]


class Sequential(Module):
    def __init__(self, *modules: Module) -> None:
        self.modules = modules

    def forward(self, x: Any) -> Any:
        for module in self.modules:
            x = module(x)
        return x


class ReLU(Module):
    def forward(self, x: Any) -> rx.Var:
        return emit_te(topi.nn.relu, x)


class LogSoftmax(Module):
    def forward(self, x: Any) -> rx.Var:
        return emit_te(topi.nn.log_softmax, x)


class Linear(Module):
    """y = x @ weight (+ bias), weight of shape (in_features, out_features)."""

    def __init__(self, in_features: int, out_features: int, dtype: str = "float32",
                 bias: bool = True) -> None:
        self.in_features, self.out_features = in_features, out_features
        self.weight = Parameter((in_features, out_features), dtype, name="linear_weight")
        self.bias = Parameter((out_features,), dtype, name="linear_bias") if bias else None

    def forward(self, x: Any) -> rx.Var:
        y = emit_te(topi.matmul, x, self.weight)
        return y if self.bias is None else emit_te(topi.add, y, self.bias)


def init_params(mod: Any) -> list[Any]:
    """Zeros for each parameter of `mod["main"]` not named "data...", in order."""
    params = []
    for p in mod["main"].params:
        if p.name_hint.startswith("data"):
            continue
        dims = getattr(p.struct_info, "shape", None)
        if dims is None or not all(isinstance(d, IntImm) for d in dims):
            raise TypeError(f"cannot initialize {p.name_hint!r}: its shape is not static")
        params.append(tensor(np.zeros([d.value for d in dims], "float32")))
    return params


from .checkpoint import checkpoint, emit_checkpoint, emit_checkpoint_sequential  # noqa: E402,F401
