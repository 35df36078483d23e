"""The operators offloaded functions run, in numpy (runtime side: imports numpy alone).

`NUMPY_OPS[name](*arrays, **attrs)` computes one relax operator; `ARITY[name]` is how many
array arguments it takes (what a saved program is checked against). `conv2d_im2col` also runs
on CuPy (the `cupy` backend passes `xp=cupy`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

Impl = Callable[..., Any]


def conv2d_im2col(x: Any, w: Any, strides: Any = (1, 1), padding: Any = (0, 0, 0, 0),
                  dilation: Any = (1, 1), groups: int = 1, xp: Any = np, **_: Any) -> Any:
    """NCHW x OIHW convolution as one GEMM over an im2col view (no copy until the reshape).

    `xp` is the array module: numpy here, CuPy for the `cupy` backend (the same code runs on
    both, since CuPy mirrors numpy's pad and sliding_window_view)."""
    if groups != 1 or tuple(dilation) != (1, 1):
        raise NotImplementedError("the im2col conv2d handles groups=1, dilation=1")
    top, left, bottom, right = padding
    padded = xp.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    o, c, kh, kw = w.shape
    win = xp.lib.stride_tricks.sliding_window_view(padded, (kh, kw), axis=(2, 3))
    win = win[:, :, ::strides[0], ::strides[1]]  # (N, C, OH, OW, KH, KW)
    n, _, oh, ow = win.shape[:4]
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * oh * ow, c * kh * kw)
    out = cols @ w.reshape(o, c * kh * kw).T  # BLAS sgemm
    return out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2)


def _pool(x: np.ndarray, pool_size: Any, strides: Any, padding: Any, reduce: Any,
          pad_value: float) -> np.ndarray:
    top, left, bottom, right = padding
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)), constant_values=pad_value)
    win = np.lib.stride_tricks.sliding_window_view(xp, tuple(pool_size), axis=(2, 3))
    return reduce(win[:, :, ::strides[0], ::strides[1]], axis=(4, 5))


def _softmax(x: np.ndarray, axis: int = -1, **_: Any) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


NUMPY_OPS: dict[str, Impl] = {
    "relax.add": lambda a, b, **_: a + b,
    "relax.subtract": lambda a, b, **_: a - b,
    "relax.multiply": lambda a, b, **_: a * b,
    "relax.divide": lambda a, b, **_: a / b,
    "relax.maximum": lambda a, b, **_: np.maximum(a, b),
    "relax.minimum": lambda a, b, **_: np.minimum(a, b),
    "relax.exp": lambda a, **_: np.exp(a),
    "relax.negative": lambda a, **_: -a,
    "relax.nn.relu": lambda a, **_: np.maximum(a, 0),
    "relax.sigmoid": lambda a, **_: 1 / (1 + np.exp(-a)),
    "relax.tanh": lambda a, **_: np.tanh(a),
    "relax.matmul": lambda a, b, **_: np.matmul(a, b),
    "relax.permute_dims": lambda a, axes=None, **_: np.transpose(a, axes),
    "relax.reshape": lambda a, shape=None, **_: a.reshape(shape),
    "relax.nn.conv2d": conv2d_im2col,
    "relax.nn.softmax": _softmax,
    "relax.nn.max_pool2d": lambda x, pool_size, strides, padding, **_: _pool(
        x, pool_size, strides, padding, np.max, -np.inf),
}

_BINARY = ("add", "subtract", "multiply", "divide", "maximum", "minimum", "matmul",
           "nn.conv2d")
ARITY: dict[str, int] = {name: 2 if name[len("relax."):] in _BINARY else 1 for name in NUMPY_OPS}
