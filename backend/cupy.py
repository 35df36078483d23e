"""The `cupy` backend (GPU): dense/matmul (cuBLAS) and conv2d (im2col + cuBLAS) through CuPy.

Importing this module registers the patterns (`cupy.*`) and the codegen `relax.ext.cupy`.
CuPy is imported only when the codegen runs; without CuPy or a GPU it says so plainly. Tensors
on the GPU are used in place (DLPack); host tensors are copied over and the result back.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..ir.dpl import bindings_of
from ..ir.expr import Constant, Function
from ..ir.module import IRModule
from ..vm.registry import register_func
from .blas import _conv2d_supported
from .numpy_eval import conv2d_im2col
from .pattern_registry import register_patterns
from .patterns import make_fused_bias_activation_pattern, make_matmul_pattern


class CuPyUnavailableError(RuntimeError):
    pass


def _cupy() -> Any:
    try:
        import cupy  # noqa: PLC0415  (optional dependency, imported on first use)

        cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # noqa: BLE001  (no CuPy, no driver, or no device)
        raise CuPyUnavailableError(
            "the cupy backend needs CuPy and an NVIDIA GPU (pip install tvmlite[cuda]); "
            f"here: {err}") from None
    return cupy


def _patterns() -> list[tuple[Any, ...]]:
    conv = "relax.nn.conv2d"
    return [
        ("cupy.conv2d_bias_relu",
         *make_fused_bias_activation_pattern(conv, True, "relax.nn.relu"), _conv2d_supported),
        ("cupy.conv2d_bias", *make_fused_bias_activation_pattern(conv, True), _conv2d_supported),
        ("cupy.dense_bias_relu", *make_matmul_pattern(True, "relax.nn.relu", True)),
        ("cupy.dense_bias", *make_matmul_pattern(True, None, True)),
        ("cupy.dense", *make_matmul_pattern(False, None, True)),
    ]


def _ops(cp: Any) -> dict[str, Callable[..., Any]]:
    return {
        "relax.nn.conv2d": lambda x, w, **attrs: conv2d_im2col(x, w, xp=cp, **attrs),
        "relax.add": lambda a, b, **_: a + b,
        "relax.nn.relu": lambda a, **_: cp.maximum(a, 0),
        "relax.matmul": lambda a, b, **_: a @ b,
        "relax.permute_dims": lambda a, axes=None, **_: cp.transpose(a, axes),
    }


def _kernel(cp: Any, func: Function) -> Callable[[list[Any]], Any]:
    """The composite's bindings, in order, on CuPy arrays (constants uploaded once)."""
    ops = _ops(cp)
    steps = []
    for var, call in bindings_of(func).items():
        args = [cp.asarray(a.data.numpy()) if isinstance(a, Constant) else a for a in call.args]
        steps.append((var, ops[call.op.name], args, dict(call.attrs)))  # type: ignore[union-attr]
    params, result = list(func.params), func.body.body

    def run(inputs: list[Any]) -> Any:
        env: dict[Any, Any] = dict(zip(params, inputs))
        for var, op, args, attrs in steps:
            env[var] = op(*[a if isinstance(a, cp.ndarray) else env[a] for a in args], **attrs)
        return env[result]

    return run


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[Callable[..., None]]:
    """`relax.ext.cupy`: one DPS callable per composite function, running on the GPU."""
    cp = _cupy()
    out = []
    for func in functions:
        kernel = _kernel(cp, func)
        n_inputs = len(func.params)

        def dps(*args: Any, kernel: Any = kernel, n_inputs: int = n_inputs) -> None:
            on_gpu = getattr(args[0], "__dlpack_device__", lambda: (1, 0))()[0] == 2
            inputs = [cp.from_dlpack(a) if on_gpu else cp.asarray(np.from_dlpack(a))
                      for a in args[:n_inputs]]
            result = kernel(inputs)
            if on_gpu:
                cp.from_dlpack(args[n_inputs])[...] = result
            else:
                np.copyto(np.from_dlpack(args[n_inputs]), cp.asnumpy(result))

        out.append(dps)
    return out


register_patterns(_patterns())
register_func("relax.ext.cupy", codegen, override=True)
