"""Converters of the 1-, 2- and 3-d pooling ATen ops, in TVM 0.27's forms.

An input without a batch axis (C, L) / (C, H, W) / (C, D, H, W) gets one for the pool and loses
it after. `max_poolNd_with_indices` gives (out, zeros_like(out)) as TVM does: the indices are
not computed, so a model that uses them is not supported.
"""

from __future__ import annotations

import math
from typing import Any

from ...ir.ops.base import as_expr
from .ops_tensor import make, ndim
from .registry import converts

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _ints(v: Any, n: int) -> list[int]:
    return [v] * n if isinstance(v, int) else list(v) * (n if len(v) == 1 else 1)


def _pooled(imp: Any, x: Any, n: int, pool: Any) -> Any:
    """`pool(x)` with a batch axis added for the pool and removed after, where x lacks one."""
    unbatched = ndim(x) == n + 1
    if unbatched:
        x = imp.emit(make("expand_dims", x, [0]))
    out = imp.emit(pool(x))
    return imp.emit(make("squeeze", out, axis=[0])) if unbatched else out


def _max_pool(n: int, with_indices: bool) -> Any:
    def convert(node: Any, imp: Any) -> Any:
        a = imp.named_args(node)
        kernel = _ints(a["kernel_size"], n)
        stride = _ints(a["stride"], n) if a["stride"] else kernel  # [] means the kernel's
        out = _pooled(imp, a["self"], n, lambda x: make(
            f"nn.max_pool{n}d", x, pool_size=kernel, strides=stride,
            padding=_ints(a["padding"], n), dilation=_ints(a["dilation"], n),
            ceil_mode=bool(a["ceil_mode"]), layout=_LAYOUTS[n]))
        if not with_indices:
            return out
        return imp.emit(as_expr((out, imp.emit(make("zeros_like", out)))))
    return convert


def _avg_pool(n: int) -> Any:
    def convert(node: Any, imp: Any) -> Any:
        a = imp.named_args(node)
        kernel = _ints(a["kernel_size"], n)
        stride = _ints(a["stride"], n) if a["stride"] else kernel
        padding = _ints(a["padding"], n)
        divisor = a.get("divisor_override")
        # a divisor equal to the window's size is the plain average where no window reaches
        # into the padding uncounted; other divisors have no relax form
        if divisor is not None and not (divisor == math.prod(kernel) and (
                a["count_include_pad"] or not any(padding))):
            raise NotImplementedError(f"from_exported_program: avg_pool{n}d with "
                                      f"divisor_override={divisor} is not supported")
        return _pooled(imp, a["self"], n, lambda x: make(
            f"nn.avg_pool{n}d", x, pool_size=kernel, strides=stride, padding=padding,
            ceil_mode=bool(a["ceil_mode"]), count_include_pad=bool(a["count_include_pad"]),
            layout=_LAYOUTS[n]))
    return convert


def _adaptive_avg_pool(n: int) -> Any:
    def convert(node: Any, imp: Any) -> Any:
        x, size = imp.retrieve_args(node)[:2]
        return _pooled(imp, x, n, lambda x: make(f"nn.adaptive_avg_pool{n}d", x,
                                                 _ints(size, n), layout=_LAYOUTS[n]))
    return convert


for _n in (1, 2, 3):
    converts(f"max_pool{_n}d.default")(_max_pool(_n, False))
    converts(f"max_pool{_n}d_with_indices.default")(_max_pool(_n, True))
    converts(f"avg_pool{_n}d.default")(_avg_pool(_n))
    converts(f"adaptive_avg_pool{_n}d.default", f"_adaptive_avg_pool{_n}d.default")(
        _adaptive_avg_pool(_n))


def _resize(method: str, align_default: bool) -> Any:
    """torch's upsample ops as TVM 0.27's resize2d: the output size torch computed (from a size
    or from scale factors), align_corners or half-pixel coordinates."""
    def convert(node: Any, imp: Any) -> Any:
        a = imp.named_args(node)
        size = [int(d) for d in node.meta["val"].shape[2:]]
        align = a.get("align_corners")
        align = align_default if align is None else bool(align)
        return make("image.resize2d", imp.retrieve_args(node)[0], size, layout="NCHW",
                    method=method,
                    coordinate_transformation_mode="align_corners" if align else "half_pixel")
    return convert


# NOTE: TVM 0.27 has no antialiased resize; for upsampling antialiasing changes nothing
converts("upsample_bilinear2d.vec", "upsample_bilinear2d.default",
         "_upsample_bilinear2d_aa.default")(_resize("linear", False))
converts("upsample_nearest2d.vec", "upsample_nearest2d.default")(
    _resize("nearest_neighbor", False))
converts("upsample_bicubic2d.vec", "upsample_bicubic2d.default")(_resize("cubic", False))
