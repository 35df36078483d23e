"""The VM builtins of docs/internals.md section 3 (all "packed" function-table entries).

Check builtins raise `ValueError` naming the parameter, what was expected and what was given.
`make_builtins(device)` binds the ones that allocate to the VM's device.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .device import Device
from .ndarray import NDArray, as_ndarray, data_ptr

Builtin = Callable[..., Any]


def _tensor(t: Any, param: str) -> NDArray:
    if type(t) is NDArray:
        return t
    if isinstance(t, np.ndarray):
        return as_ndarray(t)
    raise ValueError(f"parameter {param!r}: expected a tensor, got {type(t).__name__}")


def check_tensor_info(t: Any, ndim: int, dtype: str, param: str) -> None:
    x = _tensor(t, param)
    if ndim >= 0 and len(x.shape) != ndim:
        raise ValueError(f"parameter {param!r}: expected a rank-{ndim} tensor, got rank "
                         f"{len(x.shape)} (shape {x.shape})")
    if dtype and x.dtype != dtype:
        raise ValueError(f"parameter {param!r}: expected dtype {dtype}, got {x.dtype}")


def check_dim(t: Any, axis: int, expected: int, param: str) -> None:
    got = _tensor(t, param).shape[axis]
    if got != expected:
        raise ValueError(f"parameter {param!r}: expected shape[{axis}] == {expected}, "
                         f"got {got} (shape {t.shape})")


def tensor_dim(t: Any, axis: int) -> int:
    return t.shape[axis]


def check_dim_equal(t: Any, axis: int, value: int, param: str, var: str) -> None:
    got = _tensor(t, param).shape[axis]
    if got != value:
        raise ValueError(f"parameter {param!r}: shape[{axis}] is {var}, which is {value} from "
                         f"an earlier argument, but got {got} (shape {t.shape})")


def make_tuple(*args: Any) -> tuple[Any, ...]:
    return args


def tuple_getitem(t: Any, index: int) -> Any:
    return t[index]


def alloc_on(device: Device) -> Builtin:
    dev = device

    # NOTE: parsing a dtype string, and numpy's `dtype.name`, each cost more than the alloc
    dtypes: dict[str, tuple[np.dtype, str]] = {}

    def alloc_tensor(dtype: str, *dims: int) -> NDArray:
        shape = tuple(int(d) for d in dims)
        if any(d < 0 for d in shape):
            raise ValueError(f"alloc_tensor: negative dimension in shape {shape}")
        dt = dtypes.get(dtype)
        if dt is None:
            dt = dtypes[dtype] = (np.dtype(dtype), np.dtype(dtype).name)
        arr = np.empty(shape, dt[0])
        return NDArray._wrap(arr, (shape, dt[1], dev), data_ptr(arr))

    return alloc_tensor


_PURE: dict[str, Builtin] = {
    "vm.builtin.check_tensor_info": check_tensor_info,
    "vm.builtin.check_dim": check_dim,
    "vm.builtin.tensor_dim": tensor_dim,
    "vm.builtin.check_dim_equal": check_dim_equal,
    "vm.builtin.make_tuple": make_tuple,
    "vm.builtin.tuple_getitem": tuple_getitem,
}


def make_builtins(device: Device) -> dict[str, Builtin]:
    """All builtins, with allocation bound to `device`."""
    return {**_PURE, "vm.builtin.alloc_tensor": alloc_on(device)}


BUILTIN_NAMES = frozenset(_PURE) | {"vm.builtin.alloc_tensor"}
