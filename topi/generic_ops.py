"""Arithmetic on te tensors: `A + 1`, `A * B`, `-A` build topi's broadcasting computes, as
TVM's topi makes them when imported (its generic operator overloads). Defined here, not in
te/, because te sits below topi; importing tvmlite.topi installs them."""

from __future__ import annotations

from typing import Any, Callable

from ..te.tensor import Tensor
from . import transform as _t


def _install(name: str, op: Callable[[Any, Any], Any], reflected: bool = False) -> None:
    def method(self: Tensor, other: Any) -> Any:
        return op(other, self) if reflected else op(self, other)
    method.__name__ = name
    setattr(Tensor, name, method)


for _name, _op in (("add", _t.add), ("sub", _t.subtract), ("mul", _t.multiply),
                   ("truediv", _t.divide), ("floordiv", _t.floor_divide),
                   ("mod", _t.floor_mod)):
    _install(f"__{_name}__", _op)
    _install(f"__r{_name}__", _op, reflected=True)
Tensor.__neg__ = lambda self: _t.negative(self)  # type: ignore[attr-defined]
