"""Integer (and boolean) TIR expressions as postfix programs (`"a0 #2 * #1 +"`), the form
the VM evaluates.

`vm.builtin.eval_shape` and kernel signatures' computed dims (docs/internals.md) use it: the
VM runs such a program with `vm.builtins.compile_shape_program`, never with `eval`.
"""

from __future__ import annotations

from typing import Any

from . import expr as tir

_RPN = {tir.BinaryOp.ADD: "+", tir.BinaryOp.SUB: "-", tir.BinaryOp.MUL: "*",
        tir.BinaryOp.FLOORDIV: "//", tir.BinaryOp.FLOORMOD: "%", tir.BinaryOp.MIN: "min",
        tir.BinaryOp.MAX: "max", tir.BinaryOp.DIV: "/", tir.BinaryOp.MOD: "%",
        # conditions (`R.prim_value(N % 8 == 0)`) evaluate to 1 or 0
        tir.BinaryOp.EQ: "==", tir.BinaryOp.NE: "!=", tir.BinaryOp.LT: "<",
        tir.BinaryOp.LE: "<=", tir.BinaryOp.GT: ">", tir.BinaryOp.GE: ">=",
        tir.BinaryOp.AND: "and", tir.BinaryOp.OR: "or"}


def shape_program(e: tir.PrimExpr, operands: list[tir.Var]) -> tuple[str | None, list[tir.Var]]:
    """(postfix text, the variables it reads as a0, a1, ...) or (None, _) if not integer math."""
    tokens: list[str] = []

    def walk(x: Any) -> bool:
        if isinstance(x, tir.IntImm):
            tokens.append(f"#{x.value}")
            return True
        if isinstance(x, tir.Var):
            if x not in operands:
                operands.append(x)
            tokens.append(f"a{operands.index(x)}")
            return True
        if isinstance(x, tir.Cast) and x.dtype.startswith("int"):
            return walk(x.value)
        if isinstance(x, tir.BinOp) and x.op in _RPN:
            ok = walk(x.a) and walk(x.b)
            tokens.append(_RPN[x.op])
            return ok
        return False

    return (" ".join(tokens) if walk(e) else None), operands
