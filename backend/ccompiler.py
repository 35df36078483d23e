"""A minimal `ccompiler` backend: elementwise composites become C source, built by `cc`.

This is TVM's BYOC tutorial codegen (seed 001) on Relax, with the rebuild gone: the codegen is a
Python function registered as `relax.ext.ccompiler`. It writes each offloaded function as a
step program (numpy_eval.to_program), emits one C function per program (ccompiler_runtime.py),
compiles them with the system C compiler into one shared library, and returns exportable
ctypes callables (an exported executable saves the programs; loading writes and builds the C
again). `last_source()` shows the C it wrote.
"""

from __future__ import annotations

import re
from typing import Any

from ..ir.dpl import is_op, wildcard
from ..ir.expr import Function
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo
from ..vm.external import ExternalFunction
from ..vm.registry import register_func
from .ccompiler_runtime import C_ARITY, CCompilerError, c_source, caller, compile_library
from .numpy_eval import to_program
from .pattern_registry import register_patterns
from .program import ProgramError, check

__all__ = ["CCompilerError", "codegen", "emit_c", "last_source"]
_SOURCES: list[str] = []


def _same_shape_float32(ctx: Any) -> bool:
    """Offload only float32 ops whose operands all have the output's static shape."""
    root = ctx.matched_expr
    out = root.struct_info
    if not isinstance(out, TensorStructInfo) or out.dtype != "float32" or out.static_shape is None:
        return False
    for e in ctx.annotated_expr.values():
        s = getattr(e, "struct_info", None)
        if isinstance(s, TensorStructInfo) and s.static_shape not in (None, out.static_shape):
            return False
    return True


def _patterns() -> list[tuple[Any, ...]]:
    a, b = wildcard(), wildcard()
    out = []
    for name in ("add", "subtract", "multiply"):
        out.append((f"ccompiler.{name}", is_op(f"relax.{name}")(a, b), {}, _same_shape_float32))
    return out


def _c_program(func: Function, mod: IRModule | None) -> dict[str, Any]:
    try:
        program, arrays = to_program(func, mod)
        check(program, arrays, C_ARITY)
    except (NotImplementedError, ProgramError) as err:
        raise CCompilerError(f"ccompiler cannot emit C for this function: {err}") from None
    if arrays:
        raise CCompilerError("ccompiler takes no constant operands")
    return program


def emit_c(name: str, func: Function, mod: IRModule | None = None) -> str:
    """C source for one function: a loop over elements evaluating its bindings in order."""
    return c_source(name, _c_program(func, mod))


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[ExternalFunction]:
    """`relax.ext.ccompiler`: C for every function, one shared library, ctypes callables."""
    names = [f"ccompiler_{i}_" + re.sub(r"\W", "_", str(f.attr_dict.get("global_symbol", "")))
             for i, f in enumerate(functions)]
    programs = [_c_program(f, mod) for f in functions]
    source = "\n".join(c_source(n, p) for n, p in zip(names, programs))
    _SOURCES.append(source)
    lib = compile_library(source)
    return [caller(p, getattr(lib, n)) for n, p in zip(names, programs)]


def last_source() -> str:
    """The C source of the latest ccompiler codegen run (what the tutorial shows)."""
    return _SOURCES[-1] if _SOURCES else ""


register_patterns(_patterns())
register_func("relax.ext.ccompiler", codegen, override=True)
