"""The VM's shape builtins of TVM's VMShapeLower that tvmlite's own lowering does not use:
`vm.builtin.alloc_shape_heap`, `match_shape`, `make_shape` and `check_func_info` (the
`check_*_info` ones are vm/builtins.py's); they let modules lowered by hand (or printed after
TVM's lowering) run. The codes are `relax.testing.runtime_builtin`'s."""

from __future__ import annotations

from typing import Any

import numpy as np

from .ndarray import NDArray
from .registry import register_func

_ASSERT_EQUAL_TO_IMM, _STORE_TO_HEAP, _NO_OP, _ASSERT_EQUAL_TO_LOAD = range(4)
_USE_IMM, _LOAD_SHAPE = range(2)


class ShapeCheckError(ValueError, RuntimeError):
    """A value whose shape is not what the function declares (TVM raises RuntimeError from
    match_shape, ValueError from the check_*_info builtins)."""


def _context(err_ctx: Any) -> str:
    return f"in {err_ctx} : " if err_ctx else ""


def _slots(heap: Any) -> np.ndarray:
    """The heap's int64 slots, writable in place (an NDArray's own memory)."""
    return heap._arr if isinstance(heap, NDArray) else heap


def _shape_of(value: Any, err_ctx: Any) -> tuple[int, ...]:
    shape = getattr(value, "shape", None)
    if shape is None and isinstance(value, tuple):
        shape = value
    if shape is None:
        raise TypeError(f"{_context(err_ctx)}expected a tensor or a shape, got "
                        f"{type(value).__name__}")
    return tuple(int(d) for d in shape)


@register_func("vm.builtin.alloc_shape_heap", override=True)
def alloc_shape_heap(size: Any) -> np.ndarray:
    """The slots symbolic dims are stored in while a function runs."""
    return np.zeros(int(size), "int64")


@register_func("vm.builtin.check_func_info", override=True)
def check_func_info(value: Any, err_ctx: Any = "") -> None:
    if not callable(value) or isinstance(value, NDArray):
        raise TypeError(f"{_context(err_ctx)}expected a function, got {type(value).__name__}")


@register_func("vm.builtin.match_shape", override=True)
def match_shape(value: Any, heap: Any, ndim: Any, *codes: Any) -> None:
    """Per dim a (code, value) pair, then the error context: check a dim against a constant
    or a stored dim, or store it in the heap."""
    *pairs, err_ctx = codes
    shape = _shape_of(value, err_ctx)
    if len(shape) != int(ndim):
        raise ShapeCheckError(f"{_context(err_ctx)}expected {int(ndim)} dims, got shape "
                              f"{shape}")
    slots = _slots(heap)
    for i, (code, payload) in enumerate(zip(pairs[0::2], pairs[1::2])):
        code, payload = int(code), int(payload)
        if code == _ASSERT_EQUAL_TO_IMM and shape[i] != payload:
            raise ShapeCheckError(f"{_context(err_ctx)}dim {i} must be {payload}, got "
                                  f"{shape[i]}")
        if code == _STORE_TO_HEAP:
            slots[payload] = shape[i]
        if code == _ASSERT_EQUAL_TO_LOAD and shape[i] != int(slots[payload]):
            raise ShapeCheckError(f"{_context(err_ctx)}dim {i} must be {int(slots[payload])}, "
                                  f"got {shape[i]}")


@register_func("vm.builtin.make_shape", override=True)
def make_shape(heap: Any, ndim: Any, *codes: Any) -> tuple[int, ...]:
    """A shape of `ndim` dims, each a constant or a stored dim."""
    slots = _slots(heap)
    dims = [int(payload) if int(code) == _USE_IMM else int(slots[int(payload)])
            for code, payload in zip(codes[0::2], codes[1::2])]
    return tuple(dims[:int(ndim)])  # NOTE: the VM's shape values are tuples of ints
