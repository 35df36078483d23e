"""Offloaded graph functions as step programs: the compile side of the Python backends.

`to_program(func, mod)` writes a relax Function as the plain-data program of program.py (calls
of composite functions, global or local, become nested programs, constants become named
arrays), which the `blas` and `cupy` runtimes run and an exported executable saves.
`compile_function(func, mod)` is the shortcut for a backend of your own: an exportable numpy
callable (kind "blas").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.expr import Call, Constant, Expr, Function, GlobalVarRef, Op, Var, VarBinding
from ..ir.module import IRModule
from ..vm.external import ExternalFunction
from .numpy_ops import NUMPY_OPS, conv2d_im2col  # noqa: F401  (their home before numpy_ops)


def to_program(func: Function, mod: IRModule | None
               ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(program, constants by name) for `func`; NotImplementedError for what has no step."""
    arrays: dict[str, np.ndarray] = {}
    return _program(func, mod, arrays), arrays


def _program(func: Function, mod: IRModule | None, arrays: dict[str, np.ndarray]
             ) -> dict[str, Any]:
    refs: dict[Var, list[Any]] = {p: ["input", i] for i, p in enumerate(func.params)}
    steps: list[dict[str, Any]] = []
    local: dict[Var, Function] = {}  # composites inlined as local functions (as TVM does)
    for block in func.body.blocks:
        for b in block.bindings:
            if isinstance(b, VarBinding) and isinstance(b.value, Function):
                local[b.var] = b.value
                continue
            if not isinstance(b, VarBinding) or not isinstance(b.value, Call):
                raise NotImplementedError(f"cannot offload the binding of {b.var.name_hint}")
            call = b.value
            args = [_ref(a, refs, arrays) for a in call.args]
            if isinstance(call.op, Var) and call.op in local:
                steps.append({"call": _program(local[call.op], mod, arrays), "args": args})
            elif isinstance(call.op, Op):
                if call.op.name not in NUMPY_OPS:
                    raise NotImplementedError(f"no numpy implementation of {call.op.name}")
                attrs = {k: _plain(v, f"{call.op.name}.{k}") for k, v in dict(call.attrs).items()}
                steps.append({"op": call.op.name, "attrs": attrs, "args": args})
            elif isinstance(call.op, GlobalVarRef) and mod is not None:
                steps.append({"call": _program(mod[call.op.gvar], mod, arrays), "args": args})
            else:
                raise NotImplementedError(f"cannot offload a call of {call.op!r}")
            refs[b.var] = ["step", len(steps) - 1]
    if len(steps) == 1 and "call" in steps[0] and func.body.body in refs and \
            refs[func.body.body] == ["step", 0] and \
            steps[0]["args"] == [["input", i] for i in range(len(func.params))]:
        return steps[0]["call"]  # a function that only calls one composite is that composite
    composite = func.attr_dict.get("Composite")
    return {"composite": None if composite is None else str(composite),
            "inputs": len(func.params), "steps": steps,
            "result": _ref(func.body.body, refs, arrays)}


def _ref(e: Expr, refs: dict[Var, list[Any]], arrays: dict[str, np.ndarray]) -> list[Any]:
    if isinstance(e, Constant):
        name = f"c{len(arrays)}"
        arrays[name] = e.data.numpy() if hasattr(e.data, "numpy") else np.asarray(e.data)
        return ["const", name]
    if isinstance(e, Var) and e in refs:
        return refs[e]
    raise NotImplementedError(f"cannot offload an operand {type(e).__name__}")


def _plain(v: Any, where: str) -> Any:
    """An attribute as JSON data (tuples become lists; the runtime turns them back)."""
    if isinstance(v, (tuple, list)):
        return [_plain(x, where) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, np.generic):
        return v.item()
    raise NotImplementedError(f"attribute {where} = {v!r} is not plain data")


def compile_function(func: Function, mod: IRModule | None = None) -> ExternalFunction:
    """A destination-passing `f(*inputs, out)` running `func` with numpy; it can be exported."""
    from .blas_runtime import load

    return load(*to_program(func, mod))
