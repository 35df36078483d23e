"""Runs an offloaded graph function with numpy: the engine behind the Python backends.

A backend's codegen gets graph functions; `compile_function` turns one into a destination-
passing callable `f(*inputs, out)` that walks its bindings once per call. Ops are looked up by
name in `NUMPY_OPS`; calls of composite functions go through `composite_impls` first, so a
backend can run a whole `conv2d + bias + relu` as one BLAS-backed kernel.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ir.expr import Call, Constant, Expr, Function, GlobalVarRef, Op, Tuple, Var, VarBinding
from ..ir.module import IRModule

Impl = Callable[..., np.ndarray]


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


def compile_function(func: Function, mod: IRModule | None,
                     composite_impls: dict[str, Callable[..., Impl | None]] | None = None
                     ) -> Callable[..., None]:
    """A DPS callable `f(*inputs, out)` running `func` with numpy (and the backend's kernels)."""
    run = _compile_body(func, mod, composite_impls or {})

    def dps(*args: Any) -> None:
        *inputs, out = args
        result = run([np.from_dlpack(a) for a in inputs])
        np.copyto(np.from_dlpack(out), result, casting="same_kind")

    return dps


def _compile_body(func: Function, mod: IRModule | None,
                  composite_impls: dict[str, Callable[..., Impl | None]]
                  ) -> Callable[[list[np.ndarray]], np.ndarray]:
    steps: list[tuple[Var, Impl, list[Any]]] = []
    for block in func.body.blocks:
        for b in block.bindings:
            if not isinstance(b, VarBinding) or not isinstance(b.value, Call):
                raise NotImplementedError(f"cannot offload the binding of {b.var.name_hint}")
            steps.append((b.var, _impl_of(b.value, mod, composite_impls),
                          [_prepare(a) for a in b.value.args]))
    params, result = list(func.params), func.body.body

    def run(inputs: list[np.ndarray]) -> np.ndarray:
        env: dict[Any, np.ndarray] = dict(zip(params, inputs))
        for var, impl, args in steps:
            env[var] = impl(*[_value(a, env) for a in args])
        return env[result]

    return run


def _impl_of(call: Call, mod: IRModule | None,
             composite_impls: dict[str, Callable[..., Impl | None]]) -> Impl:
    if isinstance(call.op, Op):
        base = NUMPY_OPS.get(call.op.name)
        if base is None:
            raise NotImplementedError(f"no numpy implementation of {call.op.name}")
        attrs = dict(call.attrs)
        return lambda *a: base(*a, **attrs)
    if isinstance(call.op, GlobalVarRef) and mod is not None:
        callee = mod[call.op.gvar]
        name = str(callee.attr_dict.get("Composite", ""))
        make = composite_impls.get(name)
        fast = make(callee) if make is not None else None
        if fast is not None:
            return fast
        inner = _compile_body(callee, mod, composite_impls)
        return lambda *a: inner(list(a))
    raise NotImplementedError(f"cannot offload a call of {call.op!r}")


def _prepare(e: Expr) -> Any:
    """Constants become numpy arrays once, at compile time, not on every call."""
    if isinstance(e, Constant):
        return e.data.numpy() if hasattr(e.data, "numpy") else np.asarray(e.data)
    if isinstance(e, Tuple):
        return Tuple(tuple(_prepare(f) for f in e.fields))
    return e


def _value(e: Any, env: dict[Any, np.ndarray]) -> Any:
    if isinstance(e, np.ndarray):
        return e
    if isinstance(e, Tuple):
        return tuple(_value(f, env) for f in e.fields)
    return env[e]
