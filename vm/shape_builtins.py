"""The VM's shape builtins, as TVM's VMShapeLower emits them: `vm.builtin.alloc_shape_heap`,
`check_tensor_info`, `check_shape_info`, `match_shape` and `make_shape`. tvmlite's own lowering
checks shapes itself; these let modules lowered by hand (or printed after TVM's lowering) run.
The codes are `relax.testing.runtime_builtin`'s."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime import ShapeTuple
from .registry import register_func

_ASSERT_EQUAL_TO_IMM, _STORE_TO_HEAP, _NO_OP, _ASSERT_EQUAL_TO_LOAD = range(4)
_USE_IMM, _LOAD_SHAPE = range(2)


def _context(err_ctx: Any) -> str:
    return f"{err_ctx}: " if err_ctx else ""


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


@register_func("vm.builtin.check_tensor_info", override=True)
def check_tensor_info(value: Any, *args: Any) -> None:
    """`(x, ndim, dtype, err_ctx)` or `(x, dtype, err_ctx)`: x is a tensor of that rank
    (-1: any) and dtype ("" or void: any)."""
    ndim, dtype, err_ctx = (args if len(args) == 3 else (-1, *args))
    if not hasattr(value, "shape") or not hasattr(value, "dtype") or isinstance(value, tuple):
        raise TypeError(f"{_context(err_ctx)}expected a Tensor, got {type(value).__name__}")
    if int(ndim) >= 0 and len(value.shape) != int(ndim):
        raise ValueError(f"{_context(err_ctx)}expected a rank-{int(ndim)} tensor, got rank "
                         f"{len(value.shape)}")
    want = str(dtype or "")
    if want and want != "void" and str(value.dtype) != want:
        raise ValueError(f"{_context(err_ctx)}expected dtype {want}, got {value.dtype}")


@register_func("vm.builtin.check_shape_info", override=True)
def check_shape_info(value: Any, ndim: Any, err_ctx: Any = "") -> None:
    if not isinstance(value, tuple):
        raise TypeError(f"{_context(err_ctx)}expected a Shape, got {type(value).__name__}")
    if int(ndim) >= 0 and len(value) != int(ndim):
        raise ValueError(f"{_context(err_ctx)}expected a shape of {int(ndim)} dims, got "
                         f"{len(value)}")


@register_func("vm.builtin.match_shape", override=True)
def match_shape(value: Any, heap: Any, ndim: Any, *codes: Any) -> None:
    """Per dim a (code, value) pair, then the error context: check a dim against a constant
    or a stored dim, or store it in the heap."""
    *pairs, err_ctx = codes
    shape = _shape_of(value, err_ctx)
    if len(shape) != int(ndim):
        raise ValueError(f"{_context(err_ctx)}expected {int(ndim)} dims, got shape {shape}")
    for i, (code, payload) in enumerate(zip(pairs[0::2], pairs[1::2])):
        code, payload = int(code), int(payload)
        if code == _ASSERT_EQUAL_TO_IMM and shape[i] != payload:
            raise ValueError(f"{_context(err_ctx)}dim {i} must be {payload}, got {shape[i]}")
        if code == _STORE_TO_HEAP:
            heap[payload] = shape[i]
        if code == _ASSERT_EQUAL_TO_LOAD and shape[i] != int(heap[payload]):
            raise ValueError(f"{_context(err_ctx)}dim {i} must be {int(heap[payload])}, got "
                             f"{shape[i]}")


@register_func("vm.builtin.make_shape", override=True)
def make_shape(heap: Any, ndim: Any, *codes: Any) -> ShapeTuple:
    """A shape of `ndim` dims, each a constant or a stored dim."""
    dims = [int(payload) if int(code) == _USE_IMM else int(heap[int(payload)])
            for code, payload in zip(codes[0::2], codes[1::2])]
    return ShapeTuple(dims[:int(ndim)])
