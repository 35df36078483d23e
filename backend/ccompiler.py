"""A minimal `ccompiler` backend: elementwise composites become C source, built by `cc`.

This is TVM's BYOC tutorial codegen (seed 001) on Relax, with the rebuild gone: the codegen is a
Python function registered as `relax.ext.ccompiler`. It emits one C function per offloaded
function, compiles them with the system C compiler into a shared library, and returns ctypes
callables. `last_source()` shows the C it wrote.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from typing import Any, Callable

import numpy as np

from ..ir.dpl import is_op, wildcard
from ..ir.expr import Call, Function, GlobalVarRef, Op, Var, VarBinding
from ..ir.module import IRModule
from ..ir.struct_info import TensorStructInfo
from ..vm.registry import register_func
from .pattern_registry import register_patterns

_C_OPS = {"relax.add": "{0} + {1}", "relax.subtract": "{0} - {1}", "relax.multiply": "{0} * {1}",
          "relax.nn.relu": "({0} > 0.0f ? {0} : 0.0f)"}
_SOURCES: list[str] = []


class CCompilerError(RuntimeError):
    pass


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


def emit_c(name: str, func: Function, mod: IRModule | None = None) -> str:
    """C source for one function: a loop over elements evaluating its bindings in order.

    Calls of composite functions (what MergeCompositeFunctions groups) are inlined.
    """
    # C names are positional (in0, v0, ...): relax names could clash with `out`, `n` or `i`.
    body: list[str] = []
    result = _inline(func, [f"in{k}[i]" for k in range(len(func.params))], mod, body)
    args = ", ".join([f"const float* in{k}" for k in range(len(func.params))]
                     + ["float* out", "long n"])
    return (f"void {name}({args}) {{\n  for (long i = 0; i < n; ++i) {{\n"
            + "\n".join(body) + f"\n    out[i] = {result};\n  }}\n}}\n")


def _inline(func: Function, args: list[str], mod: IRModule | None, body: list[str]) -> str:
    env: dict[Var, str] = dict(zip(func.params, args))
    for b in (b for block in func.body.blocks for b in block.bindings):
        if not isinstance(b, VarBinding) or not isinstance(b.value, Call):
            raise CCompilerError(f"ccompiler cannot emit the binding of {b.var.name_hint}")
        operands = [env[a] for a in b.value.args]  # type: ignore[index]
        op = b.value.op
        if isinstance(op, GlobalVarRef) and mod is not None:
            expr = _inline(mod[op.gvar], operands, mod, body)
        elif isinstance(op, Op) and op.name in _C_OPS:
            expr = _C_OPS[op.name].format(*operands)
        else:
            raise CCompilerError(f"ccompiler has no C for {op!r}")
        temp = f"v{len(body)}"
        body.append(f"    float {temp} = {expr};  /* {b.var.name_hint} */")
        env[b.var] = temp
    return env[func.body.body]  # type: ignore[index]


def _compile(source: str) -> ctypes.CDLL:
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        raise CCompilerError("the ccompiler backend needs a C compiler (cc or gcc) on PATH")
    key = hashlib.sha256(source.encode()).hexdigest()[:16]
    workdir = tempfile.mkdtemp(prefix="tvmlite_cc_")
    c_path, so_path = os.path.join(workdir, f"{key}.c"), os.path.join(workdir, f"{key}.so")
    with open(c_path, "w") as f:
        f.write(source)
    done = subprocess.run([cc, "-O2", "-shared", "-fPIC", c_path, "-o", so_path],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise CCompilerError(f"cc failed on the generated source:\n{done.stderr}\n{source}")
    return ctypes.CDLL(so_path)


def codegen(functions: list[Function], options: dict[str, Any], mod: IRModule
            ) -> list[Callable[..., None]]:
    """`relax.ext.ccompiler`: C for every function, one shared library, ctypes callables."""
    names = [f"ccompiler_{i}_" + re.sub(r"\W", "_", str(f.attr_dict.get("global_symbol", "")))
             for i, f in enumerate(functions)]
    source = "\n".join(emit_c(n, f, mod) for n, f in zip(names, functions))
    _SOURCES.append(source)
    lib = _compile(source)
    return [_caller(getattr(lib, n), len(f.params)) for n, f in zip(names, functions)]


def _caller(cfunc: Any, n_inputs: int) -> Callable[..., None]:
    def dps(*args: Any) -> None:
        arrays = [np.from_dlpack(a) for a in args]
        out = arrays[n_inputs]
        if len(arrays) != n_inputs + 1 or any(a.size != out.size or a.dtype != np.float32
                                              for a in arrays):
            raise ValueError("ccompiler kernel: every argument must be float32 with "
                             f"{out.size} elements")  # never hand C memory that does not fit
        ptrs = [ctypes.c_void_p(a.ctypes.data) for a in arrays]
        cfunc(*ptrs, ctypes.c_long(out.size))

    dps._library = cfunc  # type: ignore[attr-defined]  # keeps the shared library loaded
    return dps


def last_source() -> str:
    """The C source of the latest ccompiler codegen run (what the tutorial shows)."""
    return _SOURCES[-1] if _SOURCES else ""


register_patterns(_patterns())
register_func("relax.ext.ccompiler", codegen, override=True)
