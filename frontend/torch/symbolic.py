"""What torch.export knows about a value, in tvmlite's terms: dtypes, shapes, symbolic dims.

torch.export records each node's result as a fake tensor (`node.meta["val"]`) whose sizes are
ints or `torch.SymInt`s over sympy symbols (`s77`); a symbol becomes one int64 `tir.Var` of
the same name, shared by every shape that mentions it.
"""

from __future__ import annotations

from typing import Any

from ...ir import struct_info as si
from ...tir import expr as tx

_DTYPES = {"float32": "float32", "float64": "float64", "float16": "float16",
           "bfloat16": "bfloat16", "int64": "int64", "int32": "int32", "int16": "int16",
           "int8": "int8", "uint8": "uint8", "bool": "bool"}


def dtype_name(torch_dtype: Any) -> str:
    """`torch.float32` -> "float32"."""
    name = str(torch_dtype).removeprefix("torch.")
    if name not in _DTYPES:
        raise NotImplementedError(f"from_exported_program: torch dtype {torch_dtype} has no "
                                  f"tvmlite counterpart (supported: {', '.join(_DTYPES)})")
    return _DTYPES[name]


class SymbolTable:
    """One `tir.Var` per sympy symbol of the exported program."""

    def __init__(self) -> None:
        self.vars: dict[str, tx.Var] = {}

    def var(self, name: str) -> tx.Var:
        return self.vars.setdefault(name, tx.Var(name, "int64"))

    def dim(self, d: Any) -> Any:
        """An int, or a PrimExpr for a `torch.SymInt` (or a sympy expression)."""
        if isinstance(d, int):
            return d
        expr = d.node.expr if hasattr(d, "node") else d
        if getattr(expr, "is_number", False):
            return int(expr)
        return self.prim_expr(expr)

    def prim_expr(self, e: Any) -> tx.PrimExpr:
        """sympy -> TIR for what shapes of exported programs contain: + * // %."""
        if e.is_Integer:
            return tx.const(int(e), "int64")
        if e.is_Symbol:
            return self.var(str(e))
        parts = [self.prim_expr(a) for a in e.args]
        kind = type(e).__name__
        if kind in ("Add", "Mul"):
            out = parts[0]
            for p in parts[1:]:
                out = out + p if kind == "Add" else out * p
            return out
        if kind in ("FloorDiv", "Mod", "PythonMod") and len(parts) == 2:
            return parts[0] // parts[1] if kind == "FloorDiv" else parts[0] % parts[1]
        raise NotImplementedError(f"from_exported_program: the symbolic size {e} uses {kind}, "
                                  "which tvmlite cannot express; export with static shapes")

    def shape(self, sizes: Any) -> tuple[Any, ...]:
        return tuple(self.dim(d) for d in sizes)

    def tensor_sinfo(self, fake: Any) -> si.TensorStructInfo:
        """The struct info of a (fake) torch tensor: shape with symbolic dims, dtype."""
        dims = tuple(tx.const(d, "int64") if isinstance(d, int) else d
                     for d in self.shape(fake.shape))
        return si.TensorStructInfo(dims, dtype_name(fake.dtype))
