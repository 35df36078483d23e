"""`example_npu`: TVM's teaching NPU backend in Python (`relax.backend.contrib.example_npu`).

TVM's bring-your-own-codegen tutorial partitions a model for an example NPU whose patterns
prefer fused `conv2d + relu` and `matmul + relu` over single ops. Importing this module
registers the same pattern names (`example_npu.conv2d_relu_fused`, ..., for the ops tvmlite
has) and the codegen `relax.ext.example_npu`. Unlike TVM's stub, which only logs what an NPU
would do and leaves its outputs uninitialized, these functions compute (numpy, through the
same step programs as the `blas` backend, so an exported executable carries them); the
decisions an NPU would make are kept in `dispatch_log()`: for each offloaded function, the
engine (matrix unit for convolutions and matmuls, vector unit otherwise) and the memory tier
its largest tensor fits in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.dpl import bindings_of, is_op, wildcard
from ..ir.expr import Call, Function, GlobalVarRef, Op
from ..ir.module import IRModule
from ..vm.external import ExternalFunction
from ..vm.registry import register_func
from . import blas_runtime
from .numpy_eval import to_program
from .pattern_registry import register_patterns
from .patterns import make_fused_bias_activation_pattern, make_matmul_pattern

SRAM_BYTES = 256 * 1024  # what the example NPU keeps on chip
_MATRIX_OPS = ("relax.nn.conv2d", "relax.matmul")
_LOG: list[dict[str, Any]] = []


def _single(op: str, arity: int) -> tuple[Any, dict[str, Any]]:
    root = is_op(op)(*[wildcard() for _ in range(arity)])
    return root, {"root": root}


def _patterns() -> list[tuple[Any, ...]]:
    """Fused patterns first: FuseOpsByPattern tries them in order (TVM's priorities)."""
    return [
        ("example_npu.conv2d_relu_fused",
         *make_fused_bias_activation_pattern("relax.nn.conv2d", False, "relax.nn.relu")),
        ("example_npu.matmul_relu_fused", *make_matmul_pattern(False, "relax.nn.relu")),
        ("example_npu.conv2d", *make_fused_bias_activation_pattern("relax.nn.conv2d")),
        ("example_npu.dense", *make_matmul_pattern(False, None, True)),
        ("example_npu.matmul", *make_matmul_pattern()),
        ("example_npu.max_pool2d", *_single("relax.nn.max_pool2d", 1)),
        ("example_npu.softmax", *_single("relax.nn.softmax", 1)),
        ("example_npu.relu", *_single("relax.nn.relu", 1)),
        ("example_npu.divide", *_single("relax.divide", 2)),
        ("example_npu.subtract", *_single("relax.subtract", 2)),
        ("example_npu.multiply", *_single("relax.multiply", 2)),
        ("example_npu.add", *_single("relax.add", 2)),
    ]


def _ops_in(func: Function, mod: IRModule) -> set[str]:
    """The operators `func` runs, through the composite functions it calls."""
    ops: set[str] = set()
    for value in bindings_of(func).values():
        if isinstance(value, Function):  # a composite inlined as a local function
            ops |= _ops_in(value, mod)
        elif isinstance(value, Call) and isinstance(value.op, Op):
            ops.add(value.op.name)
        elif isinstance(value, Call) and isinstance(value.op, GlobalVarRef):
            callee = mod.functions.get(value.op.gvar)
            if isinstance(callee, Function):
                ops |= _ops_in(callee, mod)
    return ops


def _plan(func: Function, mod: IRModule) -> dict[str, Any]:
    """Where an NPU would run `func`: its engine and the memory tier of its largest tensor."""
    engine = "matrix" if _ops_in(func, mod) & set(_MATRIX_OPS) else "vector"
    sizes = [int(np.prod(s.static_shape)) * np.dtype(s.dtype).itemsize
             for s in (p.struct_info for p in func.params)
             if getattr(s, "static_shape", None) is not None and getattr(s, "dtype", "")]
    tier = "SRAM" if max(sizes, default=0) <= SRAM_BYTES else "DRAM"
    return {"function": func.attr_dict.get("global_symbol", ""), "engine": engine,
            "memory": tier}


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[ExternalFunction]:
    """`relax.ext.example_npu`: one exportable function per offloaded function."""
    out = []
    for func in functions:
        _LOG.append(_plan(func, mod))
        out.append(blas_runtime.load(*to_program(func, mod)))
    return out


def dispatch_log() -> list[dict[str, Any]]:
    """The NPU's decisions for every function compiled so far in this process."""
    return list(_LOG)


register_patterns(_patterns())
register_func("relax.ext.example_npu", codegen, override=True)
def _json_runtime_create(*_: Any) -> None:
    raise NotImplementedError(
        "tvmlite's example NPU has no JSON runtime to create: relax.ext.example_npu returns "
        "runnable (and exportable) functions, which RunCodegen puts in the executable")


# NOTE: TVM's tutorial probes for the NPU's runtime by this name; here the codegen's functions
# are the runtime, so the name answers "available" and says so if anyone calls it.
register_func("runtime.ExampleNPUJSONRuntimeCreate", _json_runtime_create, override=True)
