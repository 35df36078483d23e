"""Converters of indexing, padding, windows and random ATen ops, in TVM 0.27's forms.

Random ops cannot be reproduced (torch's generator is not ours): as TVM does, `randn` becomes
a constant of numpy random values of the right shape and dtype, and the in-place
`exponential_` becomes zeros.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir import expr as rx
from ...ir.ops.base import const
from ...tir.dtype import is_int, is_uint
from .ops_tensor import _OVERLOADS, _binary, first_arg, make, out_dtype
from .registry import converts


def _index(value: int) -> rx.Constant:
    return const(np.array(value, dtype="int64"))


_power = _binary("power")


@converts(*(f"pow.{o}" for o in _OVERLOADS))
def _pow(node: Any, imp: Any) -> Any:
    """An integer tensor to a constant power n >= 0: n - 1 multiplications, as TVM does (its
    power kernel computes in floats)."""
    base, exponent = imp.retrieve_args(node)[:2]
    dtype = getattr(getattr(base, "struct_info", None), "dtype", "")
    if not (is_int(dtype) or is_uint(dtype)) or type(exponent) is not int or exponent < 0:
        return _power(node, imp)
    if exponent == 0:
        return make("ones_like", base)
    result = base
    for _ in range(exponent - 1):
        result = imp.emit(make("multiply", result, base))
    return result


@converts("select.int")
def _select(node: Any, imp: Any) -> rx.Call:
    x, axis, index = imp.retrieve_args(node)
    size = x.struct_info.shape[axis] if x.struct_info.shape is not None else None
    if index < 0 and getattr(size, "value", None) is not None:  # take does not wrap around
        index += size.value
    return make("take", x, _index(index), axis=axis)


@converts("_local_scalar_dense.default", "item.default")
def _item(node: Any, imp: Any) -> rx.Call:
    """x.item(): the first element, as a 0-d tensor."""
    return make("take", first_arg(node, imp), _index(0), axis=0)


@converts("narrow.default")
def _narrow(node: Any, imp: Any) -> rx.Call:
    x, axis, start, length = imp.retrieve_args(node)
    return make("strided_slice", x, [axis], [start], [start + length])


@converts("constant_pad_nd.default")
def _constant_pad_nd(node: Any, imp: Any) -> rx.Call:
    """torch lists (before, after) pairs from the last axis backwards; relax from the first."""
    a = imp.named_args(node)
    x, pad = a["self"], list(a["pad"])
    pairs = [pad[i:i + 2] for i in range(0, len(pad), 2)][::-1]
    ndim = x.struct_info.ndim
    width = [0] * (2 * (ndim - len(pairs))) + [v for pair in pairs for v in pair]
    value = a.get("value")
    return make("nn.pad", x, width, "constant", 0.0 if value is None else value)


@converts("hamming_window.periodic", "hamming_window.periodic_alpha",
          "hamming_window.periodic_alpha_beta", "hamming_window.default")
def _hamming_window(node: Any, imp: Any) -> rx.Call:
    args = list(imp.retrieve_args(node))
    size, periodic, alpha, beta = (args + [True, 0.54, 0.46][len(args) - 1:])[:4]
    return make("hamming_window", size, periodic, alpha, beta, out_dtype(node))


@converts("randn.default", "randn_like.default")
def _randn(node: Any, imp: Any) -> rx.Var:
    shape = [int(d) for d in node.meta["val"].shape]
    dtype = out_dtype(node)
    return imp.emit(const(np.random.randn(*shape).astype(dtype)))


@converts("exponential.default")
def _exponential(node: Any, imp: Any) -> rx.Call:
    return make("zeros_like", first_arg(node, imp))


class AsStridedError(NotImplementedError, AssertionError):
    """An as_strided that is not a reshape (an AssertionError too, as TVM 0.27 raises)."""


@converts("as_strided.default")
def _as_strided(node: Any, imp: Any) -> rx.Call:
    """A view with contiguous strides and no offset is a reshape (as TVM 0.27 has it); other
    strides would need a gather, which is not supported."""
    args = imp.retrieve_args(node)
    x, size, stride = args[:3]
    offset = args[3] if len(args) > 3 else node.kwargs.get("storage_offset", 0)
    dims = [int(d) for d in size] if all(isinstance(d, int) for d in size) else None
    contiguous = dims is not None and all(isinstance(s, int) for s in stride) and all(
        d == 1 or s == math.prod(dims[i + 1:]) for i, (d, s) in enumerate(zip(dims, stride)))
    if offset not in (0, None):
        raise AsStridedError(f"from_exported_program: as_strided with storage_offset {offset} "
                             "is not supported")
    if not contiguous:
        raise AsStridedError(f"from_exported_program: as_strided with non-contiguous stride "
                             f"{list(stride)} for size {list(size)} is not supported")
    return make("reshape", x, dims)


_GRID_METHODS = {0: "bilinear", 1: "nearest", 2: "bicubic"}  # torch's enum values
_GRID_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


@converts("grid_sampler_2d.default")
def _grid_sampler_2d(node: Any, imp: Any) -> rx.Call:
    """torch's grid is (N, H, W, 2), relax's (N, 2, H, W). NOTE: TVM 0.27 passes torch's
    grid unpermuted, which samples at the wrong points unless H = 2 (its test's shape)."""
    data, grid, mode, padding, align = imp.retrieve_args(node)[:5]
    grid = imp.emit(make("permute_dims", grid, [0, 3, 1, 2]))
    return make("image.grid_sample", data, grid, method=_GRID_METHODS[mode], layout="NCHW",
                padding_mode=_GRID_PADDING[padding], align_corners=bool(align))


@converts("affine_grid_generator.default")
def _affine_grid(node: Any, imp: Any) -> rx.Call:
    """relax's affine_grid is (N, 2, H, W); torch's grid is (N, H, W, 2)."""
    theta, size, align = imp.retrieve_args(node)[:3]
    grid = imp.emit(make("image.affine_grid", theta, (size[2], size[3]),
                         align_corners=bool(align)))
    return make("permute_dims", grid, [0, 2, 3, 1])
