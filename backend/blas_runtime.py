"""The `blas` backend's runtime: a step program (program.py) run with numpy's BLAS.

`load(payload, arrays)` is the loader of kind "blas": the codegen (blas.py) builds its callables
with it too, so a loaded executable runs exactly what the building process ran. A composite
conv2d (+ bias (+ relu)) whose weights are constants runs as one im2col GEMM with the bias and
relu applied in place (`fused_conv`, recognized in the program itself).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..vm.external import ExternalFunction
from .numpy_ops import ARITY, NUMPY_OPS, conv2d_im2col
from .program import FastPath, attrs_of, check, compile_program

CONV_CHAINS = (["relax.nn.conv2d"], ["relax.nn.conv2d", "relax.add"],
               ["relax.nn.conv2d", "relax.add", "relax.nn.relu"])


def fused_conv(program: dict[str, Any], const: Callable[[str], Any]
               ) -> Callable[..., np.ndarray] | None:
    """conv2d -> add -> relu, each step feeding the next, with a constant weight; else None."""
    steps = program["steps"]
    if [s.get("op") for s in steps] not in CONV_CHAINS:
        return None
    chained = all(s["args"][0] == ["step", k] for k, s in enumerate(steps[1:]))
    (data_ref, w_ref), bias_ref = steps[0]["args"], steps[1]["args"][1:] if steps[1:] else []
    if (not chained or w_ref[0] != "const" or program["result"] != ["step", len(steps) - 1]
            or any(r[0] == "step" for r in [data_ref, *bias_ref])):
        return None  # weights are inputs: the generic program (still im2col + BLAS) runs it
    w, attrs = const(w_ref[1]), attrs_of(steps[0])
    data = _operand(data_ref, const)
    bias = _operand(bias_ref[0], const) if bias_ref else None
    relu = len(steps) == 3

    def run(*inputs: np.ndarray) -> np.ndarray:
        y = conv2d_im2col(data(inputs), w, **attrs)
        if bias is not None:
            y += bias(inputs)
        return np.maximum(y, 0, out=y) if relu else y

    return run


def _operand(ref: list[Any], const: Callable[[str], Any]
             ) -> Callable[[tuple[np.ndarray, ...]], np.ndarray]:
    """How to get an operand at run time: a constant or the i-th input."""
    kind, at = ref
    if kind == "const":
        value = const(at)
        return lambda inputs: value
    return lambda inputs: inputs[at]


FAST_PATHS: dict[str, FastPath] = {
    "blas.conv2d_bias_relu": fused_conv, "blas.conv2d_bias": fused_conv, "blas.conv2d": fused_conv,
}


def load(payload: Any, arrays: dict[str, np.ndarray]) -> ExternalFunction:
    """Rebuild (or build) a blas function from its program; ProgramError if malformed."""
    check(payload, arrays, ARITY)
    run = compile_program(payload, NUMPY_OPS, FAST_PATHS, arrays.__getitem__)
    n = payload["inputs"]

    def dps(*args: Any) -> None:
        if len(args) != n + 1:
            raise ValueError(f"blas function: expected {n} inputs and an output, got {len(args)}")
        result = run([np.from_dlpack(a) for a in args[:n]])
        np.copyto(np.from_dlpack(args[n]), result, casting="same_kind")

    return ExternalFunction("blas", payload, dps, arrays)
