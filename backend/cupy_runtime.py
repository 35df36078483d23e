"""The `cupy` backend's runtime: a step program (program.py) run with CuPy on the GPU.

`load(payload, arrays)` is the loader of kind "cupy" (the codegen in cupy.py uses it too). It
checks the program at once but imports CuPy at the first call, so a file with GPU functions
loads (and can be inspected) on a machine without CuPy; calling one there says what is missing.
Tensors on the GPU are used in place (DLPack); host tensors are copied over and the result back.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..vm.external import ExternalFunction
from .numpy_ops import ARITY, conv2d_im2col
from .program import check, compile_program


class CuPyUnavailableError(RuntimeError):
    pass


def cupy_module() -> Any:
    try:
        import cupy  # noqa: PLC0415  (optional dependency, imported on first use)

        cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # noqa: BLE001  (no CuPy, no driver, or no device)
        raise CuPyUnavailableError(
            "the cupy backend needs CuPy and an NVIDIA GPU (pip install tvmlite[cuda]); "
            f"here: {err}") from None
    return cupy


def cupy_ops(cp: Any) -> dict[str, Callable[..., Any]]:
    return {
        "relax.nn.conv2d": lambda x, w, **attrs: conv2d_im2col(x, w, xp=cp, **attrs),
        "relax.add": lambda a, b, **_: a + b,
        "relax.nn.relu": lambda a, **_: cp.maximum(a, 0),
        "relax.matmul": lambda a, b, **_: a @ b,
        "relax.permute_dims": lambda a, axes=None, **_: cp.transpose(a, axes),
    }


CUPY_ARITY = {name: ARITY[name] for name in cupy_ops(None)}


def load(payload: Any, arrays: dict[str, np.ndarray]) -> ExternalFunction:
    """Rebuild (or build) a cupy function from its program; ProgramError if malformed."""
    check(payload, arrays, CUPY_ARITY)
    n = payload["inputs"]
    state: list[Any] = []  # [cupy, run], made at the first call (constants uploaded then)

    def dps(*args: Any) -> None:
        if not state:
            cp = cupy_module()
            uploaded = {k: cp.asarray(v) for k, v in arrays.items()}
            state[:] = [cp, compile_program(payload, cupy_ops(cp), {}, uploaded.__getitem__)]
        cp, run = state
        if len(args) != n + 1:
            raise ValueError(f"cupy function: expected {n} inputs and an output, got {len(args)}")
        on_gpu = getattr(args[0], "__dlpack_device__", lambda: (1, 0))()[0] == 2
        inputs = [cp.from_dlpack(a) if on_gpu else cp.asarray(np.from_dlpack(a))
                  for a in args[:n]]
        result = run(inputs)
        if on_gpu:
            cp.from_dlpack(args[n])[...] = result
        else:
            np.copyto(np.from_dlpack(args[n]), cp.asnumpy(result))

    return ExternalFunction("cupy", payload, dps, arrays)
